// Exact Bernoulli trials with rational parameters: the building blocks of the samplers of
// Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020),
// section 5. Integer arithmetic only: no floating point anywhere, hence none of the
// least-significant-bit leaks of textbook floating-point Laplace noise (Mironov, CCS 2012).

package enum ExactBernoulli {
    /// Bernoulli(a / b), exactly: a uniform draw from `0..<b` is below `a`.
    @inline(__always)
    package static func ratio<S: NoiseSource>(_ a: UInt64, over b: UInt64, using source: inout S) -> Bool {
        if a == 0 { return false }
        if a >= b { return true }
        return source.uniform(below: b) < a
    }

    /// Bernoulli(exp(−a/b)) for 0 ≤ a ≤ b (γ = a/b ∈ [0, 1]); CKS20 Algorithm 1 (von Neumann).
    ///
    /// K ← 1; repeat A ← Bernoulli(γ/K), K ← K + 1 while A = 1; return (K odd).
    /// Bernoulli(a/(bK)) is drawn as one uniform below b·K when that fits in 64 bits, otherwise
    /// as the product of independent Bernoulli(a/b) and Bernoulli(1/K), the same probability.
    package static func expMinusFraction<S: NoiseSource>(_ a: UInt64, over b: UInt64, using source: inout S) -> Bool {
        precondition(b > 0 && a <= b)
        if a == 0 { return true }
        var k: UInt64 = 1
        while true {
            let (bk, overflow) = b.multipliedReportingOverflow(by: k)
            let accept =
                overflow
                ? (ratio(a, over: b, using: &source) && source.uniform(below: k) == 0)
                : source.uniform(below: bk) < a
            if !accept { break }
            k += 1
        }
        return k & 1 == 1
    }

    /// Bernoulli(exp(−1)): Algorithm 1 with γ = 1; the first trial, Bernoulli(1/1), always
    /// succeeds, so K starts at 2 and each trial is a uniform draw below K being 0.
    @inline(__always)
    package static func expMinusOne<S: NoiseSource>(using source: inout S) -> Bool {
        var k: UInt64 = 2
        while source.uniform(below: k) == 0 { k += 1 }
        return k & 1 == 1
    }

    /// Bernoulli(exp(−γ)) for γ = (high·2^64 + low) / d ≥ 0, a 128-bit numerator over a
    /// 64-bit denominator: ⌊γ⌋ independent Bernoulli(exp(−1)) and one Bernoulli(exp(−(γ−⌊γ⌋))),
    /// all of which must succeed (CKS20, remark after Algorithm 1).
    ///
    /// When ⌊γ⌋ ≥ 2^64 the loop is capped at 2^64 − 1 trials of Bernoulli(exp(−1)); reaching the
    /// cap has probability e^−(2^64 − 1), and the trial then fails — an error below e^−(2^64).
    package static func expMinus<S: NoiseSource>(
        numeratorHigh high: UInt64, low: UInt64, over d: UInt64,
        using source: inout S
    ) -> Bool {
        precondition(d > 0)
        if high >= d {
            for _ in 0..<UInt64.max where !expMinusOne(using: &source) { return false }
            return false
        }
        let (whole, remainder) = d.dividingFullWidth((high: high, low: low))
        var i: UInt64 = 0
        while i < whole {
            if !expMinusOne(using: &source) { return false }
            i += 1
        }
        return expMinusFraction(remainder, over: d, using: &source)
    }
}
