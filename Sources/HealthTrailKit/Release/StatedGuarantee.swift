import Foundation
import HealthTrailPrivacy

/// A release's privacy guarantee in the standard form, as `dp/*.csv` rows and `healthtrail
/// release` state it: pure ε-DP for a Laplace release; for a Gaussian release, ρ-zCDP together
/// with the (ε, δ)-DP it implies at the spec's declared δ (`ApproximateDP`, the tight
/// conversion), since ρ-zCDP has no pure ε and "δ = 0" would overstate it.
struct StatedGuarantee: Equatable {
    /// The `epsilon`, `rho` and `delta` columns: ε (pure, or at δ), ρ (Gaussian only), δ (0 for
    /// pure ε).
    let epsilon: String, rho: String, delta: String
    /// `ε = 0.5` or `ρ = 0.125 zCDP, (ε, δ) = (2.42, 1e-06)`.
    let sentence: String

    init(_ release: ReleaseSpec.Release, delta: Double) {
        switch release.mechanism {
        case .laplace:
            let epsilon = Self.exact(release.epsilon ?? 0)
            (self.epsilon, rho, self.delta) = (epsilon, "", "0")
            sentence = "ε = \(epsilon)"
        case .gaussian:
            let rho = release.rho ?? 0
            let epsilon = Self.epsilon(rho: rho, delta: delta)
            (self.epsilon, self.rho, self.delta) = (epsilon, Self.exact(rho), "\(delta)")
            sentence = "ρ = \(self.rho) zCDP, (ε, δ) = (\(epsilon), \(delta))"
        }
    }

    /// The ε that ρ-zCDP implies at δ, rounded up to the third decimal: never smaller than the
    /// conversion's.
    static func epsilon(rho: Double, delta: Double) -> String {
        ReleaseRunner.format((ApproximateDP.epsilon(rho: rho, delta: delta) * 1000).rounded(.up) / 1000)
    }

    /// A declared ε or ρ as the spec gave it, never rounded (rounding down would understate it).
    static func exact(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
