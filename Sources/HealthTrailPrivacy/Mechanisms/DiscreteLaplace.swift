// Discrete Laplace (two-sided geometric) noise, sampled exactly: CKS20 Algorithm 2.

/// The discrete Laplace distribution on the integers, P(x) ∝ exp(−|x| / t) for a rational scale
/// t = n/d, sampled exactly with integer arithmetic (Canonne, Kamath & Steinke 2020, Alg. 2).
///
/// Adding it to an integer query of sensitivity Δ is (Δ/t)-differentially private.
///
/// Bounds: numerator and denominator of the scale are any positive `Int64`, and t ≤ 2^32
/// (``maximumScale``). Internally X = U + n·V is formed in 128 bits; a draw whose |x| would not
/// fit in `Int64` is redrawn, which conditions the output on |x| < 2^63 — an event of
/// probability > 1 − e^−(2^30) for t ≤ 2^32, so the deviation is far below anything measurable
/// (and below the 2^−64 granularity of any 64-bit generator).
package enum DiscreteLaplace {
    /// The largest supported scale, 2^32.
    package static let maximumScale: Int64 = 1 << 32

    /// Whether `scale` is supported: positive and at most ``maximumScale``.
    package static func supports(scale: Rational) -> Bool {
        guard scale.numerator > 0 else { return false }
        let (limit, overflow) = maximumScale.multipliedReportingOverflow(by: scale.denominator)
        return overflow || scale.numerator <= limit
    }

    /// One exact sample of discrete Laplace noise with the given scale.
    ///
    /// Releases should go through ``NoiseMechanism/sample()``, which always uses the secure
    /// source; this entry point takes any ``NoiseSource``.
    ///
    /// - Precondition: ``supports(scale:)``.
    package static func sample(scale: Rational, using source: inout some NoiseSource) -> Int64 {
        precondition(supports(scale: scale), "DiscreteLaplace: unsupported scale \(scale)")
        return sample(numerator: UInt64(scale.numerator), denominator: UInt64(scale.denominator), using: &source)
    }

    /// CKS20 Algorithm 2 for scale t = n/d:
    /// 1. U ← uniform{0, …, n−1}; D ← Bernoulli(exp(−U/n)); if D = 0 restart.
    /// 2. V ← number of successes of Bernoulli(exp(−1)) before the first failure.
    /// 3. X ← U + n·V (geometric: P(X = x) ∝ exp(−x/n)); Y ← ⌊X/d⌋ (P(Y = y) ∝ exp(−y·d/n)).
    /// 4. B ← fair bit; if B = 1 and Y = 0 restart (so 0 is not counted twice); return (1−2B)·Y.
    package static func sample<S: NoiseSource>(numerator n: UInt64, denominator d: UInt64, using source: inout S) -> Int64 {
        while true {
            let u: UInt64 = n == 1 ? 0 : source.uniform(below: n)
            if !ExactBernoulli.expMinusFraction(u, over: n, using: &source) { continue }
            var v: UInt64 = 0
            while ExactBernoulli.expMinusOne(using: &source) { v &+= 1 }
            // X = U + n·V in 128 bits, then Y = ⌊X/d⌋ (redraw when Y would not fit in Int64).
            var x = n.multipliedFullWidth(by: v)
            let (low, carry) = x.low.addingReportingOverflow(u)
            x.low = low
            if carry { x.high &+= 1 }   // n·V < 2^127, no overflow of the high word
            if x.high >= d { continue }
            let y = d.dividingFullWidth(x).quotient
            if y > UInt64(Int64.max) { continue }
            let negative = source.bit()
            if negative && y == 0 { continue }
            return negative ? -Int64(y) : Int64(y)
        }
    }
}
