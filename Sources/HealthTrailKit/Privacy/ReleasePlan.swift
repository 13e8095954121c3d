import Foundation
import HealthTrailArchive
import HealthTrailPrivacy

/// What a release spec will publish and spend, worked out from the spec alone: no data is read,
/// no noise drawn, nothing recorded (`healthtrail release --plan`). The errors are those every
/// row of `dp/<release>.csv` will carry in `error95`, so a spec can be tuned before its budget is
/// spent on releases nobody can use.
public struct ReleasePlan: Sendable {
    /// One release.
    public struct Release: Sendable {
        public var id: String
        public var aggregate: ReleaseSpec.Aggregate
        /// Noisy values published: public partitions, or the cells of a density grid.
        public var partitions: Int
        public var mechanism: String
        /// `ε = 0.5`, or `ρ = 0.125 zCDP, (ε, δ) = (2.42, 1e-06)`.
        public var guarantee: String
        /// Half-width of the 95 % error bar of each noisy count and sum (in the metric's unit;
        /// for a mean, the sum is centred on the bounds' midpoint), nil where not drawn.
        public var countError95: Double?
        public var sumError95: Double?
    }

    public var releases: [Release]
    /// Every release's cost in zCDP, summed (a Laplace release counts ε²/2).
    public var totalRho: Double
    /// Every release's ε, summed, when all are pure ε; nil otherwise.
    public var totalEpsilon: Double?
    public var budget: ReleaseSpec.Budget?
    /// The δ Gaussian guarantees are stated at.
    public var delta: Double

    /// Works out every release of `spec`; throws as a release would on parameters out of range.
    public init(spec: ReleaseSpec) throws {
        delta = spec.statedDelta
        budget = spec.budget
        releases = []
        var rho = 0.0, epsilon: Double? = 0
        for r in spec.releases {
            let guarantee = StatedGuarantee(r, delta: delta).sentence
            let count: NoiseMechanism?, sum: NoiseMechanism?, cost: PrivacyCost, name: String, partitions: Int
            if r.aggregate == .density {
                (count, cost, name) = try ReleaseRunner.densityNoise(r)
                sum = nil
                let grid = DensityRelease.grid(for: r)
                partitions = grid.width * grid.height
            } else {
                let plan = try NoisePlan(r)
                (count, sum, cost, name) = (plan.count, plan.sum, plan.cost, plan.mechanismName)
                partitions = PublicPartitions.keys(for: r).count
            }
            let resolution = r.resolution ?? 1
            releases.append(
                Release(
                    id: r.id, aggregate: r.aggregate, partitions: partitions, mechanism: name, guarantee: guarantee,
                    countError95: count.map { Double($0.errorBar95()) },
                    sumError95: sum.map { Double($0.errorBar95()) * resolution }))
            guard let costRho = cost.rho else {
                throw InputError(file: r.id, "release \(r.id): its cost in ρ overflows; lower epsilon")
            }
            rho += costRho.doubleValue
            epsilon = cost.epsilon.flatMap { e in epsilon.map { $0 + e.doubleValue } }
        }
        totalRho = rho
        totalEpsilon = epsilon
    }

    /// The plan as `healthtrail release --plan` prints it: a line per release, then the total.
    public var text: String {
        var table = [["release", "partitions", "mechanism", "guarantee", "95 % error of each value"]]
        for r in releases {
            let error: String
            switch r.aggregate {
            case .count, .density: error = "count ±" + ReleaseRunner.format(r.countError95 ?? 0)
            case .sum: error = "sum ±" + ReleaseRunner.format(r.sumError95 ?? 0)
            case .mean:
                let sum = ReleaseRunner.format(r.sumError95 ?? 0)
                error = "count ±\(ReleaseRunner.format(r.countError95 ?? 0)), centred sum ±\(sum) (a mean of n values: about ±\(sum)/n)"
            }
            table.append([r.id, "\(r.partitions)", r.mechanism, r.guarantee, error])
        }
        // Columns padded to their widest cell (the last one is not).
        let widths = (0..<4).map { column in table.map { $0[column].count }.max() ?? 0 }
        var lines = table.map { row in
            row.enumerated().map { $0 < 4 ? $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) : $1 }
                .joined(separator: "  ")
        }
        let spends: String
        if let epsilon = totalEpsilon, budget?.epsilon != nil || budget?.rho == nil {
            spends = "ε = \(ReleaseRunner.format(epsilon))" + (budget?.epsilon.map { " of the budget ε = \(ReleaseRunner.format($0))" } ?? "")
        } else {
            let converted = StatedGuarantee.epsilon(rho: totalRho, delta: delta)
            spends =
                "ρ = \(ReleaseRunner.format(totalRho))" + (budget?.rho.map { " of the budget ρ = \(ReleaseRunner.format($0))" } ?? "")
                + ", (ε, δ) = (\(converted), \(delta))"
        }
        lines.append("if every release is new, the spec spends \(spends)")
        return lines.joined(separator: "\n") + "\n"
    }
}
