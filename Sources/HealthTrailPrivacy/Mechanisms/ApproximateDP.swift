import Foundation

/// The (ε, δ)-differential privacy a ρ-zCDP guarantee implies, for reporting a Gaussian release
/// (or a ρ budget) in the standard form.
///
/// ρ-zCDP has no finite pure ε; it gives (ε, δ)-DP for every δ > 0, with ε growing as δ
/// shrinks. The conversion is the tight one of Canonne, Kamath & Steinke (2020, "The Discrete
/// Gaussian for Differential Privacy", §2.3, Corollary 13): for every order α > 1,
///
///     ε(α) = αρ + ln(1 − 1/α) + (ln(1/δ) − ln α) / (α − 1),
///
/// and the guarantee holds with the smallest ε(α). It is never larger than the classic
/// ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016) and often clearly smaller; OpenDP's
/// `make_zCDP_to_approxDP` computes the same bound (the tests compare the two).
///
/// Reporting only, in `Double`: the ledger accounts in exact ρ and never in ε(δ).
package enum ApproximateDP {
    /// The smallest ε with (ε, δ)-DP implied by ρ-zCDP, by a golden-section search over the
    /// order α (on ln(α − 1), where ε(α) is unimodal). 0 for ρ = 0.
    /// - Precondition: ρ ≥ 0 and 0 < δ < 1.
    package static func epsilon(rho: Double, delta: Double) -> Double {
        precondition(rho >= 0 && rho.isFinite, "ApproximateDP: ρ must be a finite number ≥ 0")
        precondition(delta > 0 && delta < 1, "ApproximateDP: δ must lie strictly between 0 and 1")
        guard rho > 0 else { return 0 }
        let logInverseDelta = -log(delta)
        func epsilon(atLogOrder t: Double) -> Double {
            let alphaMinusOne = exp(t), alpha = 1 + alphaMinusOne
            return alpha * rho + log1p(-1 / alpha) + (logInverseDelta - log(alpha)) / alphaMinusOne
        }
        // α − 1 from e^−20 to e^40 holds the optimum for every ρ and δ a release can declare
        // (it lies near √(ln(1/δ)/ρ)).
        var low = -20.0, high = 40.0
        let ratio = (sqrt(5.0) - 1) / 2
        var a = high - ratio * (high - low), b = low + ratio * (high - low)
        var fa = epsilon(atLogOrder: a), fb = epsilon(atLogOrder: b)
        for _ in 0..<200 {
            if fa <= fb {
                high = b; b = a; fb = fa
                a = high - ratio * (high - low); fa = epsilon(atLogOrder: a)
            } else {
                low = a; a = b; fa = fb
                b = low + ratio * (high - low); fb = epsilon(atLogOrder: b)
            }
        }
        return max(0, min(fa, fb))
    }

    /// The classic, looser conversion ρ + 2√(ρ ln(1/δ)), for comparison.
    package static func classicEpsilon(rho: Double, delta: Double) -> Double {
        rho + 2 * (rho * -log(delta)).squareRoot()
    }
}
