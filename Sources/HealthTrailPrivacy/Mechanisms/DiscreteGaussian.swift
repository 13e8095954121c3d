// Discrete Gaussian noise, sampled exactly: CKS20 Algorithm 3.

/// The discrete Gaussian distribution on the integers, P(x) ∝ exp(−x² / (2σ²)) for a rational
/// σ² = p/q, sampled exactly with integer arithmetic (Canonne, Kamath & Steinke 2020, Alg. 3):
/// rejection sampling from discrete Laplace noise of integer scale t = ⌊σ⌋ + 1.
///
/// Adding it to an integer query of sensitivity Δ satisfies (Δ²/(2σ²))-zCDP.
///
/// Bounds: 1 ≤ p, q < 2^30 (``componentLimit``), so σ < 2^15 and t ≤ 2^15. Then q·t < 2^31,
/// the acceptance exponent's denominator 2·p·q·t² < 2^63, and for a proposal |Y| ≤ 2^32 the
/// numerator (|Y|·q·t − p)² < 2^126 fits the 128-bit product of `multipliedFullWidth`. A
/// proposal with |Y| > 2^32 is rejected outright: the output is then the discrete Gaussian
/// conditioned on |x| ≤ 2^32, an event of probability > 1 − e^−(2^33) for σ < 2^15.
package enum DiscreteGaussian {
    /// Numerator and denominator of σ² must be below this: 2^30.
    package static let componentLimit: Int64 = 1 << 30

    /// Whether `sigmaSquared` is supported: positive, numerator and denominator below 2^30.
    package static func supports(sigmaSquared: Rational) -> Bool {
        sigmaSquared.numerator > 0 && sigmaSquared.numerator < componentLimit
            && sigmaSquared.denominator < componentLimit
    }

    /// One exact sample of discrete Gaussian noise with variance parameter σ².
    ///
    /// Releases should go through ``NoiseMechanism/sample()``, which always uses the secure
    /// source; this entry point takes any ``NoiseSource``.
    ///
    /// - Precondition: ``supports(sigmaSquared:)``.
    package static func sample(sigmaSquared: Rational, using source: inout some NoiseSource) -> Int64 {
        precondition(supports(sigmaSquared: sigmaSquared), "DiscreteGaussian: unsupported σ² \(sigmaSquared)")
        return sample(p: UInt64(sigmaSquared.numerator), q: UInt64(sigmaSquared.denominator), using: &source)
    }

    /// ⌊√(p/q)⌋ by binary search on integers: the largest m with m²·q ≤ p (m < 2^15).
    package static func floorSqrt(p: UInt64, q: UInt64) -> UInt64 {
        var lo: UInt64 = 0, hi: UInt64 = 1 << 15   // m²q ≤ p < 2^30 ⇒ m < 2^15
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if mid * mid * q <= p { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// CKS20 Algorithm 3 for σ² = p/q: t ← ⌊σ⌋ + 1; repeat Y ← DiscreteLaplace(t),
    /// C ← Bernoulli(exp(−(|Y| − σ²/t)² / (2σ²))) until C = 1; return Y.
    /// The exponent is (|Y|·q·t − p)² / (2·p·q·t²), numerator in 128 bits.
    package static func sample<S: NoiseSource>(p: UInt64, q: UInt64, using source: inout S) -> Int64 {
        let t = floorSqrt(p: p, q: q) + 1
        let qt = q * t   // < 2^31
        let denominator = 2 * p * (qt * t)   // 2·p·q·t² < 2^63
        while true {
            let y = DiscreteLaplace.sample(numerator: t, denominator: 1, using: &source)
            let magnitude = y.magnitude
            if magnitude > 1 << 32 { continue }
            let scaled = magnitude * qt   // < 2^63
            let w = scaled >= p ? scaled - p : p - scaled
            let square = w.multipliedFullWidth(by: w)
            if ExactBernoulli.expMinus(numeratorHigh: square.high, low: square.low, over: denominator, using: &source) {
                return y
            }
        }
    }
}
