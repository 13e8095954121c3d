import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailPrivacy

/// The (ε, δ) a ρ-zCDP guarantee implies (`ApproximateDP`), checked against OpenDP's own
/// conversion (`make_zCDP_to_approxDP`, from PyPI; `make test` installs it) and against what
/// any correct conversion must satisfy.
@Suite struct ApproximateDPTests {
    static let rhos = [0.001, 0.01, 0.125, 0.5, 2.0, 8.0, 50.0]
    static let deltas = [1e-3, 1e-6, 1e-9, 1e-12]

    /// Whether python3 can import OpenDP here.
    static let openDPAvailable: Bool = {
        (try? Support.runProgram("/usr/bin/env", ["python3", "-c", "import opendp"]).status) == 0
    }()

    /// OpenDP's ε for every (ρ, δ) of the grid: a Gaussian measurement of scale 1/√(2ρ) on
    /// integers (ρ-zCDP at sensitivity 1, the ρ OpenDP states is read back), cast to
    /// approximate DP. Tolerance: OpenDP rounds its arithmetic conservatively, which moves ε
    /// far less than 10⁻⁶ of itself.
    @Test(.enabled(if: openDPAvailable, "python3 cannot import opendp (PyPI unreachable when make test installed it)"))
    func agreesWithOpenDP() throws {
        let script = """
            import math, sys, opendp.prelude as dp
            dp.enable_features("contrib")
            for rho in [\(Self.rhos.map { "\($0)" }.joined(separator: ","))]:
                m = dp.m.make_gaussian(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1 / math.sqrt(2 * rho))
                stated = m.map(1)
                profile = dp.c.make_zCDP_to_approxDP(m).map(1)
                for delta in [\(Self.deltas.map { "\($0)" }.joined(separator: ","))]:
                    print(repr(stated), repr(delta), repr(profile.epsilon(delta)))
            """
        let result = try Support.runProgram("/usr/bin/env", ["python3", "-c", script])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.stdout.split(separator: "\n").map { $0.split(separator: " ").compactMap { Double($0) } }
        #expect(rows.count == Self.rhos.count * Self.deltas.count && rows.allSatisfy { $0.count == 3 }, "\(result.stdout)")
        for row in rows where row.count == 3 {
            let (rho, delta, theirs) = (row[0], row[1], row[2])
            let ours = ApproximateDP.epsilon(rho: rho, delta: delta)
            #expect(abs(ours - theirs) <= 1e-6 * theirs, "ρ = \(rho), δ = \(delta): ours \(ours), OpenDP \(theirs)")
        }
    }

    /// The search finds the minimum over the order α: no α on a dense grid (α − 1 from e^−10
    /// to e^20, 30,000 steps) gives a smaller ε than the one returned.
    @Test func findsTheSmallestEpsilonOverTheOrders() {
        for rho in Self.rhos + [1e-4, 100] {
            for delta in Self.deltas + [1e-15, 1e-2] {
                let found = ApproximateDP.epsilon(rho: rho, delta: delta)
                var best = Double.infinity
                for step in 0...30_000 {
                    let alpha = 1 + exp(-10 + 30 * Double(step) / 30_000)
                    best = min(best, alpha * rho + log1p(-1 / alpha) + (-log(delta) - log(alpha)) / (alpha - 1))
                }
                #expect(found <= max(0, best) + 1e-9 * max(1, best), "ρ = \(rho), δ = \(delta): \(found) against \(best)")
            }
        }
    }

    /// Never looser than the classic bound, smaller as δ grows, larger as ρ grows; the example
    /// the privacy page quotes (ρ = 2 at δ = 10⁻⁶) below the classic 12.51.
    @Test func behavesAsAConversionMust() {
        for rho in Self.rhos {
            var previous = Double.infinity
            for delta in Self.deltas.sorted() {
                let epsilon = ApproximateDP.epsilon(rho: rho, delta: delta)
                #expect(epsilon <= ApproximateDP.classicEpsilon(rho: rho, delta: delta) + 1e-12)
                #expect(epsilon > rho, "on this grid (δ ≤ 10⁻³), ε exceeds ρ")
                #expect(epsilon < previous, "ε falls as δ grows")
                previous = epsilon
            }
        }
        #expect(ApproximateDP.epsilon(rho: 0, delta: 1e-6) == 0)
        let example = ApproximateDP.epsilon(rho: 2, delta: 1e-6)
        #expect(example < 12.5 && example > 10, "\(example)")
    }
}
