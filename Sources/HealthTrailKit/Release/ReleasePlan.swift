import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailPrivacy

/// What a release spec will publish and spend, worked out from the spec alone: no data is read,
/// no noise drawn, nothing recorded (`healthtrail release --plan`). The errors are those every
/// row of `dp/<release>.csv` will carry in `error95`, so a spec can be tuned before its budget is
/// spent on releases nobody can use.
package struct ReleasePlan: Sendable {
    /// One release.
    package struct Release: Sendable {
        package var id: String
        package var aggregate: ReleaseSpec.Aggregate
        /// Noisy values published: public partitions, or the cells of a density grid.
        package var partitions: Int
        package var mechanism: String
        /// `ε = 0.5`, or `ρ = 0.125 zCDP, (ε, δ) = (2.42, 1e-06)`.
        package var guarantee: String
        /// Half-width of the 95 % error bar of each noisy count and sum (in the metric's unit;
        /// for a mean, the sum is centred on the bounds' midpoint), nil where not drawn.
        package var countError95: Double?
        package var sumError95: Double?
        /// Its privacy unit, and how many periods it is published in (`cadence`).
        package var unit: ReleaseSpec.PrivacyUnit
        package var periods: Int
        /// Why the noise swamps the release's declared `expected` value; nil when it does not,
        /// or when nothing is declared.
        package var warning: String?
    }

    /// What the releases spend on one privacy unit once every period is published.
    package struct UnitTotal: Sendable {
        package var unit: ReleaseSpec.PrivacyUnit
        /// In zCDP (a Laplace release counts ε²/2).
        package var rho: Double
        /// In ε, when every release of the unit is pure ε; nil otherwise.
        package var epsilon: Double?
        /// The composed Rényi curve (`RenyiAccountant`), a Laplace release counted as randomized
        /// response with its ε.
        package var rdp: RDPCurve
        /// Whether a Laplace release is among them: then Rényi accounting can be tighter than
        /// converting ρ.
        package var mixesLaplace: Bool

        /// The (ε, δ) the unit's spend implies by Rényi accounting (the smaller of the Rényi
        /// curve's and ρ's conversions).
        package func renyiEpsilon(delta: Double) -> Double {
            RenyiAccountant.epsilon(curve: rdp, rho: rho, delta: delta)
        }
    }

    package var releases: [Release]
    /// Per privacy unit, in the order day, workout, person: units have budgets of their own.
    package var totals: [UnitTotal]
    package var budget: ReleaseSpec.Budget?
    /// The δ Gaussian guarantees are stated at.
    package var delta: Double

    /// Works out every release of `spec`; throws as a release would on parameters out of range.
    package init(spec: ReleaseSpec) throws {
        delta = spec.statedDelta
        budget = spec.budget
        releases = []
        var totals: [ReleaseSpec.PrivacyUnit: UnitTotal] = [:]
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
                    sumError95: sum.map { Double($0.errorBar95()) * resolution }, unit: r.privacyUnit,
                    periods: Publication.all(of: r).count))
            releases[releases.count - 1].warning = Self.warning(r, releases[releases.count - 1])
            guard cost.rho != nil else {
                throw InputError(file: r.id, "release \(r.id): its cost in ρ overflows; lower epsilon")
            }
            let unitCost = Self.unitCost(of: r)
            for unit in Self.units(inside: r.privacyUnit) {
                var total = totals[unit] ?? UnitTotal(unit: unit, rho: 0, epsilon: 0, rdp: .zero, mixesLaplace: false)
                total.rho += unitCost.rho
                total.epsilon = unitCost.epsilon.flatMap { e in total.epsilon.map { $0 + e } }
                total.rdp = total.rdp.adding(unitCost.rdp)
                total.mixesLaplace = total.mixesLaplace || r.mechanism == .laplace
                totals[unit] = total
            }
        }
        self.totals = [ReleaseSpec.PrivacyUnit.day, .workout, .person].compactMap { totals[$0] }
    }

    /// The units a release of `unit` is charged to, as the ledger charges them
    /// (`Charges.units(inside:)`): a release of the person to its days and workouts as well, a
    /// release of days to the workouts of those days.
    static func units(inside unit: ReleaseSpec.PrivacyUnit) -> [ReleaseSpec.PrivacyUnit] {
        Charges.units(inside: unit.rawValue).compactMap(ReleaseSpec.PrivacyUnit.init(rawValue:))
    }

    /// What a release costs its privacy unit, at most, once every period is published: a day or
    /// a workout lies in one period, so its cost is one publication's; the person is in every
    /// period, so a weekly release costs the person once per week. In ε (nil for a Gaussian
    /// release, which has no pure ε), in ρ (ε²/2 for a Laplace release), and as a Rényi curve.
    static func unitCost(of r: ReleaseSpec.Release) -> (epsilon: Double?, rho: Double, rdp: RDPCurve) {
        let count = r.privacyUnit == .person ? max(1, Publication.all(of: r).count) : 1
        let times = Double(count)
        switch r.mechanism {
        case .laplace:
            let e = r.epsilon ?? 0
            let curve = Rational(String(e)).map { RDPCurve(.pureDP(epsilon: $0)) } ?? .infinite
            return (e * times, e * e / 2 * times, curve.repeated(count))
        case .gaussian:
            let rho = r.rho ?? 0
            let curve = Rational(String(rho)).map { RDPCurve(.zCDP(rho: $0)) } ?? .infinite
            return (nil, rho * times, curve.repeated(count))
        }
    }

    /// Whether the noise swamps the value `r` declares it expects (`ReleaseSpec.Release.expected`):
    /// a count's or sum's 95 % error at least that value; a mean whose partitions hold the
    /// expected number of values n with a count error at least n, or an error of about
    /// ±(sum error)/n at least half its declared range (its interval then spans the bounds).
    static func warning(_ r: ReleaseSpec.Release, _ planned: Release) -> String? {
        guard let expected = r.expected else { return nil }
        let f = ReleaseRunner.format
        let advice = "raise its ε or ρ, lower K or M, or publish fewer, coarser partitions"
        switch r.aggregate {
        case .count, .density, .sum:
            let error = (r.aggregate == .sum ? planned.sumError95 : planned.countError95) ?? 0
            guard error >= expected else { return nil }
            return "release \(r.id): its 95 % error ±\(f(error)) is at least the expected value \(f(expected)): "
                + "its figures would be noise; \(advice)"
        case .mean:
            let countError = planned.countError95 ?? 0, meanError = (planned.sumError95 ?? 0) / expected
            let halfRange = ((r.upper ?? 0) - (r.lower ?? 0)) / 2
            guard countError >= expected || meanError >= halfRange else { return nil }
            return "release \(r.id): a mean of the expected \(f(expected)) values is only known to about ±\(f(meanError)) "
                + "(count ±\(f(countError))), against a declared range of ±\(f(halfRange)): its figures would be noise; \(advice)"
        }
    }

    /// The Rényi figure beside the zCDP one, where it can differ (a Laplace release is among the
    /// unit's) or the budget is an (ε, δ) by Rényi accounting; rounded up like every stated ε.
    private func renyi(_ total: UnitTotal, budget renyiBudget: Double?) -> String {
        guard total.mixesLaplace || renyiBudget != nil else { return "" }
        let epsilon = ReleaseRunner.format((total.renyiEpsilon(delta: delta) * 1000).rounded(.up) / 1000)
        return " by zCDP, (\(epsilon), \(delta)) by Rényi accounting"
            + (renyiBudget.map { " of the budget (ε, δ) = (\(ReleaseRunner.format($0)), \(delta))" } ?? "")
    }

    /// The plan as `healthtrail release --plan` prints it: a line per release, then the total.
    package var text: String {
        var table = [["release", "partitions", "periods", "mechanism", "guarantee", "95 % error of each value"]]
        for r in releases {
            let error: String
            switch r.aggregate {
            case .count, .density: error = "count ±" + ReleaseRunner.format(r.countError95 ?? 0)
            case .sum: error = "sum ±" + ReleaseRunner.format(r.sumError95 ?? 0)
            case .mean:
                let sum = ReleaseRunner.format(r.sumError95 ?? 0)
                error = "count ±\(ReleaseRunner.format(r.countError95 ?? 0)), centred sum ±\(sum) (a mean of n values: about ±\(sum)/n)"
            }
            table.append([r.id, "\(r.partitions)", "\(r.periods)", r.mechanism, r.guarantee, error])
        }
        // Columns padded to their widest cell (the last one is not).
        let widths = (0..<5).map { column in table.map { $0[column].count }.max() ?? 0 }
        var lines = table.map { row in
            row.enumerated().map { $0 < 5 ? $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) : $1 }
                .joined(separator: "  ")
        }
        lines += totalLines
        lines += releases.compactMap { $0.warning.map { "warning: " + $0 } }
        return lines.joined(separator: "\n") + "\n"
    }

    /// What each privacy unit will have spent once every period is published, a line per unit,
    /// as `--plan` ends and `healthtrail release` closes: from the spec alone.
    package var totalLines: [String] {
        var lines: [String] = []
        let renyiBudget = budget?.accountant == .renyi ? budget?.epsilon : nil
        for total in totals {
            let spends: String
            if let epsilon = total.epsilon, renyiBudget == nil, budget?.epsilon != nil || budget?.rho == nil {
                spends = "ε = \(ReleaseRunner.format(epsilon))" + (budget?.epsilon.map { " of the budget ε = \(ReleaseRunner.format($0))" } ?? "")
            } else {
                let converted = StatedGuarantee.epsilon(rho: total.rho, delta: delta)
                spends =
                    "ρ = \(ReleaseRunner.format(total.rho))" + (budget?.rho.map { " of the budget ρ = \(ReleaseRunner.format($0))" } ?? "")
                    + ", (ε, δ) = (\(converted), \(delta))" + renyi(total, budget: renyiBudget)
            }
            lines.append("once every period is published, a \(total.unit.rawValue) has spent at most \(spends)")
        }
        return lines
    }
}
