import Foundation
import Testing

@testable import HealthTrailPrivacy

// Empirical-ε audit of the discrete Laplace mechanism.
//
// Neighbouring inputs 0 and Δ = 1 go through the mechanism 10^6 times each (seeded source, so
// the audit is reproducible). For every threshold set S = {x ≥ k} and S = {x ≤ k} seen in the
// outputs, and both orders of the pair, one-sided Clopper–Pearson bounds give a lower bound on
// the privacy loss:   ε̂(S) = ln( P̲(M(a) ∈ S) / P̄(M(b) ∈ S) ).
// The audit's statistic is the maximum of ε̂(S) over all sets and orders. With a Bonferroni
// split of α = 10^−3 over every bound computed (α per bound = 10^−3 / #bounds), the maximum
// exceeds the true ε with probability ≤ 10^−3, so a correct ε-DP mechanism passes
// (max ε̂ ≤ ε), and a mechanism with true ε' > ε fails once the data can show it.
// The audit must catch the mechanism with half the noise (scale/2, true ε doubled).

@Suite struct PrivacyAuditTests {
    static let draws = 1_000_000
    static let familyAlpha = 1e-3

    struct Audit: CustomStringConvertible {
        var epsilonLowerBound: Double, bestSet: String, bounds: Int, seconds: Double
        var description: String {
            String(
                format: "max ε̂ lower bound %.4f at %@ (%d CP bounds, sampling %.2f s)",
                epsilonLowerBound, bestSet, bounds, seconds)
        }
    }

    /// Audits `noise` for neighbouring inputs 0 and `sensitivity`.
    static func audit(sensitivity: Int64, seed: UInt64, _ noise: (inout SeededNoiseSource) -> Int64) -> Audit {
        let start = Date()
        // Histograms of M(0) = 0 + noise and M(Δ) = Δ + noise over −R…R; values beyond land in
        // the end cells, which leaves every threshold set with |k| < R exact.
        let radius: Int64 = 10_000
        var histograms = [[Int](repeating: 0, count: Int(2 * radius + 1)), [Int](repeating: 0, count: Int(2 * radius + 1))]
        var source = SeededNoiseSource(seed: seed)
        var low = radius, high = -radius
        for (i, input) in [Int64(0), sensitivity].enumerated() {
            for _ in 0..<draws {
                let y = min(max(input + noise(&source), -radius), radius)
                histograms[i][Int(y + radius)] += 1
                low = min(low, y); high = max(high, y)
            }
        }
        let seconds = Date().timeIntervalSince(start)
        // Tail counts: at[i][k] = #{M(i) ≥ k}, for k in low…high+1.
        var atLeast = [[Int]](repeating: [], count: 2)
        for i in 0..<2 {
            var running = 0
            var column = [Int](repeating: 0, count: Int(high - low + 2))
            for k in stride(from: high, through: low, by: -1) {
                running += histograms[i][Int(k + radius)]
                column[Int(k - low)] = running
            }
            atLeast[i] = column
        }
        // Sets: {x ≥ k} for k in low+1…high and their complements {x ≤ k−1}; both orders.
        var sets: [(String, Int, Int)] = []
        for k in (low + 1)...max(low + 1, high) {
            let upper = (atLeast[0][Int(k - low)], atLeast[1][Int(k - low)])
            sets.append(("x ≥ \(k)", upper.0, upper.1))
            sets.append(("x ≤ \(k - 1)", draws - upper.0, draws - upper.1))
        }
        let bounds = sets.count * 2 * 2
        let alpha = familyAlpha / Double(bounds)
        var best = -Double.infinity, bestSet = ""
        for (name, c0, c1) in sets {
            let b0 = DPStatistics.clopperPearson(successes: c0, trials: draws, alpha: alpha)
            let b1 = DPStatistics.clopperPearson(successes: c1, trials: draws, alpha: alpha)
            for (label, lower, upper) in [("M(Δ)/M(0)", b1.lower, b0.upper), ("M(0)/M(Δ)", b0.lower, b1.upper)]
            where lower > 0 {
                let epsilon = log(lower / upper)
                if epsilon > best { best = epsilon; bestSet = "\(label), \(name)" }
            }
        }
        return Audit(epsilonLowerBound: best, bestSet: bestSet, bounds: bounds, seconds: seconds)
    }

    @Test func discreteLaplaceStaysWithinClaimedEpsilon() throws {
        let epsilon = Rational(1)
        let mechanism = try NoiseMechanism.laplace(sensitivity: 1, epsilon: epsilon)
        let result = Self.audit(sensitivity: 1, seed: 101) { mechanism.sample(using: &$0) }
        print("Audit \(mechanism), claimed ε = \(epsilon): \(result)")
        #expect(result.epsilonLowerBound <= epsilon.doubleValue, "\(result)")
        // The audit is tight enough to be meaningful: it certifies most of the true ε = 1.
        #expect(result.epsilonLowerBound > 0.9, "\(result)")
    }

    @Test func auditCatchesHalfTheNoise() throws {
        let epsilon = Rational(1)
        guard case .discreteLaplace(let scale) = try NoiseMechanism.laplace(sensitivity: 1, epsilon: epsilon) else {
            Issue.record("not a Laplace mechanism"); return
        }
        let half = scale.multipliedReportingOverflow(by: Rational(1, 2))!   // true ε = 2
        let result = Self.audit(sensitivity: 1, seed: 102) { DiscreteLaplace.sample(scale: half, using: &$0) }
        print("Audit broken scale \(half) (true ε = 2), claimed ε = \(epsilon): \(result)")
        #expect(result.epsilonLowerBound > epsilon.doubleValue, "\(result)")
    }

    /// Clopper–Pearson bounds against values computed with scipy.stats.beta.ppf.
    @Test func clopperPearsonMatchesReference() {
        // (k, n, alpha) → (lower, upper) from scipy: beta.ppf(alpha, k, n-k+1), beta.ppf(1-alpha, k+1, n-k)
        let cases: [(Int, Int, Double, Double, Double)] = [
            (5, 10, 0.025, 0.18708602844740, 0.81291397155260),
            (0, 100, 0.05, 0, 0.02951304960704),
            (268_941, 1_000_000, 1e-5, 0.26705229599543, 0.27083546396375),
        ]
        for (k, n, alpha, lower, upper) in cases {
            let b = DPStatistics.clopperPearson(successes: k, trials: n, alpha: alpha)
            #expect(abs(b.lower - lower) < 1e-9 && abs(b.upper - upper) < 1e-9, "CP(\(k), \(n), \(alpha)) = \(b)")
        }
        #expect(abs(DPStatistics.chiSquaredCritical(df: 8, alpha: 1e-6) - 42.7) < 0.01)
    }
}
