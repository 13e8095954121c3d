// The noise mechanisms a release can use, built from privacy parameters.

import Foundation

/// Why a ``NoiseMechanism`` cannot be built from the given parameters.
package enum NoiseParameterError: Error, Equatable, CustomStringConvertible {
    /// Sensitivity must be ≥ 1 and ε or ρ must be > 0.
    case notPositive(String)
    /// The exact parameters do not fit the documented integer bounds of the sampler.
    case outOfRange(String)

    package var description: String {
        switch self {
        case .notPositive(let what): return "\(what) must be positive"
        case .outOfRange(let what): return "\(what) is outside the supported range"
        }
    }
}

/// Integer noise for a differentially private release, free of floating-point attacks: every
/// sample is drawn exactly (integer arithmetic only) from the operating system's CSPRNG.
package enum NoiseMechanism: Sendable, Hashable, CustomStringConvertible {
    /// Discrete Laplace noise, P(x) ∝ exp(−|x|/scale): pure ε-DP with ε = Δ/scale.
    case discreteLaplace(scale: Rational)
    /// Discrete Gaussian noise, P(x) ∝ exp(−x²/(2σ²)): ρ-zCDP with ρ = Δ²/(2σ²).
    case discreteGaussian(sigmaSquared: Rational)

    // MARK: From privacy parameters

    /// Discrete Laplace noise for pure ε-DP on an integer query of L1 sensitivity Δ:
    /// scale = Δ/ε, exactly (ε = 0.5 given as `Rational("0.5")` is 1/2, scale 2Δ).
    package static func laplace(sensitivity: Int64, epsilon: Rational) throws(NoiseParameterError) -> NoiseMechanism {
        guard sensitivity >= 1 else { throw .notPositive("sensitivity") }
        guard epsilon.numerator > 0 else { throw .notPositive("epsilon") }
        guard let scale = Rational(sensitivity).dividedReportingOverflow(by: epsilon),
            DiscreteLaplace.supports(scale: scale)
        else {
            throw .outOfRange("Laplace scale Δ/ε = \(sensitivity)/(\(epsilon)) (at most 2^32)")
        }
        return .discreteLaplace(scale: scale)
    }

    /// Discrete Gaussian noise for ρ-zCDP on an integer query of L2 sensitivity Δ:
    /// σ² = Δ²/(2ρ), exactly.
    package static func gaussian(sensitivity: Int64, rho: Rational) throws(NoiseParameterError) -> NoiseMechanism {
        guard sensitivity >= 1 else { throw .notPositive("sensitivity") }
        guard rho.numerator > 0 else { throw .notPositive("rho") }
        let delta = Rational(sensitivity)
        guard let deltaSquared = delta.multipliedReportingOverflow(by: delta),
            let halfOverRho = Rational(rho.denominator, rho.numerator).multipliedReportingOverflow(by: Rational(1, 2)),
            let sigmaSquared = deltaSquared.multipliedReportingOverflow(by: halfOverRho),
            DiscreteGaussian.supports(sigmaSquared: sigmaSquared)
        else {
            throw .outOfRange("Gaussian σ² = Δ²/(2ρ) for Δ = \(sensitivity), ρ = \(rho) (numerator and denominator below 2^30)")
        }
        return .discreteGaussian(sigmaSquared: sigmaSquared)
    }

    /// Throws if the parameters of a directly constructed case are outside the sampler's bounds.
    package func validate() throws(NoiseParameterError) {
        switch self {
        case .discreteLaplace(let scale):
            guard DiscreteLaplace.supports(scale: scale) else { throw .outOfRange("Laplace scale \(scale)") }
        case .discreteGaussian(let sigmaSquared):
            guard DiscreteGaussian.supports(sigmaSquared: sigmaSquared) else { throw .outOfRange("Gaussian σ² \(sigmaSquared)") }
        }
    }

    // MARK: Sampling (always the secure source)

    /// One noise sample from the operating system's CSPRNG. - Precondition: ``validate()`` passes.
    package func sample() -> Int64 {
        var source = SecureNoiseSource()
        return sample(using: &source)
    }

    /// `count` independent noise samples from the operating system's CSPRNG (for the CLI and the
    /// side-by-side comparison with OpenDP).
    package func samples(count: Int) -> [Int64] {
        var source = SecureNoiseSource()
        return (0..<count).map { _ in sample(using: &source) }
    }

    /// `value` plus one noise sample from the CSPRNG; throws if the sum would overflow `Int64`.
    package func noisy(_ value: Int64) throws(NoiseParameterError) -> Int64 {
        let (sum, overflow) = value.addingReportingOverflow(sample())
        // The value is a raw total: an error never holds it.
        guard !overflow else { throw .outOfRange("a total with its noise") }
        return sum
    }

    /// Sampling from any source: internal, so only this module and `@testable` tests can choose
    /// the source (the seeded one for reproducible statistics).
    package func sample<S: NoiseSource>(using source: inout S) -> Int64 {
        switch self {
        case .discreteLaplace(let scale): return DiscreteLaplace.sample(scale: scale, using: &source)
        case .discreteGaussian(let sigmaSquared): return DiscreteGaussian.sample(sigmaSquared: sigmaSquared, using: &source)
        }
    }

    // MARK: Reporting (Double, never used to sample)

    /// The variance of the noise, in Double, for reporting only.
    /// Laplace: 2q/(1−q)² with q = e^(−1/t). Gaussian: Σ x²·e^(−x²/2σ²) / Σ e^(−x²/2σ²).
    package var variance: Double {
        switch self {
        case .discreteLaplace(let scale):
            let t = scale.doubleValue
            let q = exp(-1 / t), oneMinusQ = -expm1(-1 / t)
            return 2 * q / (oneMinusQ * oneMinusQ)
        case .discreteGaussian(let sigmaSquared):
            let weights = Self.gaussianWeights(sigmaSquared.doubleValue)
            var mass = weights[0], moment = 0.0
            for x in 1..<weights.count {
                mass += 2 * weights[x]
                moment += 2 * Double(x) * Double(x) * weights[x]
            }
            return moment / mass
        }
    }

    /// Half-width of the 95 % error bar: the smallest k ≥ 0 with P(|noise| ≤ k) ≥ 0.95.
    /// Laplace: from the exact tail P(|X| > k) = 2q^(k+1)/(1+q); Gaussian: from the PMF summed
    /// in Double. Reporting only.
    package func errorBar95() -> Int64 {
        switch self {
        case .discreteLaplace(let scale):
            let t = scale.doubleValue
            let q = exp(-1 / t)
            func tail(_ k: Double) -> Double { 2 * exp(-(k + 1) / t) / (1 + q) }
            // Solve 2q^(k+1)/(1+q) ≤ 0.05 for k, then settle the rounding by evaluating the tail.
            var k = max(0, (t * log(40 / (1 + q)) - 1).rounded(.up))
            while k > 0 && tail(k - 1) <= 0.05 { k -= 1 }
            while tail(k) > 0.05 { k += 1 }
            return Int64(k)
        case .discreteGaussian(let sigmaSquared):
            let weights = Self.gaussianWeights(sigmaSquared.doubleValue)
            let mass = weights.dropFirst().reduce(weights[0]) { $0 + 2 * $1 }
            var inside = weights[0]
            var k = 0
            while inside < 0.95 * mass && k + 1 < weights.count {
                k += 1
                inside += 2 * weights[k]
            }
            return Int64(k)
        }
    }

    /// e^(−x²/2σ²) for x = 0, 1, … until the terms vanish below 1e-300 (x ≈ 37σ).
    private static func gaussianWeights(_ sigmaSquared: Double) -> [Double] {
        let limit = Int((sqrt(2 * sigmaSquared * 700)).rounded(.up)) + 2
        return (0...limit).map { x in exp(-Double(x) * Double(x) / (2 * sigmaSquared)) }
    }

    package var description: String {
        switch self {
        case .discreteLaplace(let scale): return "discrete Laplace (scale \(scale))"
        case .discreteGaussian(let sigmaSquared): return "discrete Gaussian (σ² = \(sigmaSquared))"
        }
    }
}
