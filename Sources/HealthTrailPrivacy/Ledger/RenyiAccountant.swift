import Foundation

/// A Rényi-DP curve: an upper bound on the Rényi divergence of order α between a release's
/// outputs on any two neighbouring inputs, at each order of `RDPCurve.orders` (Mironov 2017,
/// "Rényi Differential Privacy"). Curves compose by adding them order by order.
///
/// - A ρ-zCDP release (discrete Gaussian) has ε(α) = αρ, which is what ρ-zCDP means.
/// - A pure ε release (discrete Laplace) is bounded by binary randomized response with the same
///   ε: every ε-DP mechanism is a post-processing of it (Kairouz, Oh & Viswanath 2015, "The
///   Composition Theorem for Differential Privacy", Theorem 2.2), and post-processing never
///   increases a Rényi divergence. `randomizedResponse(epsilon:order:)` gives its divergence,
///   which is at most min(ε, αε²/2): never looser than charging ε²/2 in zCDP, and much tighter
///   for large ε.
///
/// In `Double`: the accountant states and checks guarantees; it draws no noise. Where the
/// ledger compares a curve with a limit it allows for rounding in the safe direction
/// (`RenyiAccountant.roundingMargin`).
package struct RDPCurve: Hashable, Sendable {
    /// The orders α the curve is kept at: those of Google's `dp_accounting`
    /// (`DEFAULT_RDP_ORDERS`), 1.1 to 10.9 in steps of 0.1, 11 to 63, then 128, 256, 512, 1024,
    /// so that the two accountants can be compared order by order.
    package static let orders: [Double] = {
        let tenths: [Double] = (1...99).map { (step: Int) -> Double in 1 + Double(step) / 10 }
        let whole: [Double] = (11...63).map { (order: Int) -> Double in Double(order) }
        return tenths + whole + [128, 256, 512, 1024]
    }()

    /// ε(α) at each of `orders`, in order.
    package private(set) var epsilons: [Double]

    /// The curve of no release at all.
    package static let zero = RDPCurve(epsilons: Array(repeating: 0, count: orders.count))

    /// A curve past every limit, for a sum that overflowed exact arithmetic.
    package static let infinite = RDPCurve(epsilons: Array(repeating: .infinity, count: orders.count))

    private init(epsilons: [Double]) { self.epsilons = epsilons }

    /// The curve of one release of this cost.
    package init(_ cost: PrivacyCost) {
        switch cost {
        case .pureDP(let epsilon):
            let e = epsilon.doubleValue
            epsilons = Self.orders.map { Self.randomizedResponse(epsilon: e, order: $0) }
        case .zCDP(let rho):
            let r = rho.doubleValue
            epsilons = Self.orders.map { $0 * r }
        }
    }

    /// The Rényi divergence of order α between binary randomized response's output
    /// distributions, (p, 1 − p) and (1 − p, p) with p = e^ε / (1 + e^ε):
    ///
    ///     1/(α − 1) · ln( p^α (1 − p)^(1 − α) + (1 − p)^α p^(1 − α) )
    ///   = ( ln cosh((α − ½)ε) − ln cosh(ε/2) ) / (α − 1),
    ///
    /// the second form exact algebra on the first (multiply out e^(ε/2)). Its two terms differ
    /// by a good part of themselves (about (α − ½)² against ¼), so no digits cancel even for
    /// tiny ε, where the first form loses most of them; `logCosh` stays exact for large ones.
    /// - Precondition: ε ≥ 0 and α > 1.
    package static func randomizedResponse(epsilon: Double, order alpha: Double) -> Double {
        precondition(epsilon >= 0 && alpha > 1, "RDPCurve: ε must be ≥ 0 and α > 1")
        guard epsilon > 0 else { return 0 }
        let value = (logCosh((alpha - 0.5) * epsilon) - logCosh(epsilon / 2)) / (alpha - 1)
        // Never above ε (the divergence of any ε-DP pair) nor below 0, whatever the rounding.
        return min(epsilon, max(0, value))
    }

    /// ln cosh x for x ≥ 0: ln(1 + 2 sinh²(x/2)) below 1 (accurate as x → 0, where cosh x − 1
    /// would lose its digits), x + ln(1 + e^(−2x)) − ln 2 from 1 on (no overflow).
    private static func logCosh(_ x: Double) -> Double {
        if x < 1 {
            let s = sinh(x / 2)
            return log1p(2 * s * s)
        }
        return x + log1p(exp(-2 * x)) - log(2.0)
    }

    /// The composition of both: their curves added order by order.
    package func adding(_ other: RDPCurve) -> RDPCurve {
        RDPCurve(epsilons: zip(epsilons, other.epsilons).map { $0 + $1 })
    }

    /// `times` compositions of this curve.
    package func repeated(_ times: Int) -> RDPCurve {
        RDPCurve(epsilons: epsilons.map { $0 * Double(times) })
    }

    /// Order by order the larger of the two: a bound on both.
    package func atLeast(_ other: RDPCurve) -> RDPCurve {
        RDPCurve(epsilons: zip(epsilons, other.epsilons).map { Swift.max($0, $1) })
    }

    /// The smallest ε with (ε, δ)-DP that the curve implies, by the conversion of Canonne,
    /// Kamath & Steinke (2020, "The Discrete Gaussian for Differential Privacy", Proposition
    /// 12; also Asoodeh et al. 2020 and Balle et al. 2020), minimised over the orders:
    ///
    ///     ε = min over α of  ε(α) + ln(1 − 1/α) − (ln δ + ln α) / (α − 1),
    ///
    /// and 0 where ε(α) is so small that the total variation distance, at most
    /// √(1 − e^(−ε(α))) (Bretagnolle–Huber), is already at most δ. Never below 0. This is the
    /// conversion `dp_accounting`'s `RdpAccountant` makes.
    /// - Precondition: 0 < δ < 1.
    package func epsilon(delta: Double) -> Double {
        precondition(delta > 0 && delta < 1, "RDPCurve: δ must lie strictly between 0 and 1")
        var best = Double.infinity
        for (alpha, rdp) in zip(Self.orders, epsilons) {
            if rdp.isNaN { return .infinity }
            if delta * delta + expm1(-rdp) > 0 { return 0 }
            best = Swift.min(best, rdp + log1p(-1 / alpha) - (log(delta) + log(alpha)) / (alpha - 1))
        }
        return Swift.max(0, best)
    }
}

/// The Rényi-DP accountant: what a set of releases spends as an (ε, δ)-DP guarantee, tighter
/// than converting their ρ total when Laplace releases are among them. Both bounds below are
/// valid, so the smaller one is.
package enum RenyiAccountant {
    /// The relative allowance a limit check makes for the rounding of `Double` arithmetic: a
    /// spend counts as over a limit ε when it exceeds ε / (1 + margin). Sums of a few hundred
    /// curves and the conversion's logarithms are off by far less than 10⁻⁹ of the result.
    package static let roundingMargin = 1e-9

    /// The smallest ε with (ε, δ)-DP implied by releases whose composed Rényi curve is `curve`
    /// and whose zCDP total is ρ: the smaller of `curve.epsilon(delta:)` and the tight zCDP
    /// conversion of ρ (`ApproximateDP`, which optimises over every order, not only the grid).
    package static func epsilon(curve: RDPCurve, rho: Double, delta: Double) -> Double {
        min(curve.epsilon(delta: delta), ApproximateDP.epsilon(rho: rho, delta: delta))
    }

    /// Whether `epsilon`, as computed here, may exceed `limit` once rounding is allowed for:
    /// the safe direction, refusing a spend that rounding could have pushed just under.
    package static func exceeds(_ epsilon: Double, limit: Double) -> Bool {
        !(epsilon * (1 + roundingMargin) <= limit)
    }
}
