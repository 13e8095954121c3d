import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailDecode
import HealthTrailPrivacy

/// What to release under differential privacy: read from a YAML file in `pipelines/`.
///
/// Everything that decides the noise is declared here, never read from the data: the privacy
/// unit, the bounds values are clamped to, how many partitions and contributions a unit may
/// have, the public partitions (calendar weeks of a declared range, HealthKit's activity list),
/// the mechanism and its ε or ρ.
package struct ReleaseSpec: Codable, Sendable, Equatable {
    package var releases: [Release]
    /// Total budget the ledger enforces across runs.
    package var budget: Budget?

    package struct Budget: Codable, Sendable, Equatable {
        /// A pure ε total (basic composition), or with `accountant: renyi` the ε of an (ε, δ)
        /// total.
        package var epsilon: Double?
        package var rho: Double?
        /// The δ at which a ρ-zCDP release states its (ε, δ) guarantee (`statedDelta`), and
        /// the δ of an (ε, δ) total.
        package var delta: Double?
        /// `renyi`: `epsilon` and `delta` are an (ε, δ)-DP total, held by Rényi accounting
        /// (`RenyiAccountant`) rather than by basic composition.
        package var accountant: Accountant?

        package init(epsilon: Double? = nil, rho: Double? = nil, delta: Double? = nil, accountant: Accountant? = nil) {
            self.epsilon = epsilon
            self.rho = rho
            self.delta = delta
            self.accountant = accountant
        }
    }

    /// How an `epsilon` budget composes: `renyi` makes it the ε of an (ε, δ) total.
    package enum Accountant: String, Codable, Sendable { case renyi }

    /// The δ a Gaussian release's guarantee is stated at, in `dp/*.csv` and by `healthtrail
    /// release`, and the δ of an (ε, δ) budget: the spec's `budget.delta`, or 10⁻⁶.
    package var statedDelta: Double { budget?.delta ?? 1e-6 }

    /// The limit the ledger enforces and records in its first line: ε, ρ, or with
    /// `accountant: renyi` the (ε, δ) of `epsilon` at `statedDelta` (exact fractions of the
    /// numbers as written).
    package var ledgerLimit: BudgetLimit {
        let epsilon = budget?.epsilon.flatMap { Rational(String($0)) }, rho = budget?.rho.flatMap { Rational(String($0)) }
        guard budget?.accountant == .renyi else { return BudgetLimit(epsilon: epsilon, rho: rho) }
        let renyi = epsilon.flatMap { e in Rational(String(statedDelta)).map { BudgetLimit.RenyiLimit(epsilon: e, delta: $0) } }
        return BudgetLimit(rho: rho, renyi: renyi)
    }

    package struct Release: Codable, Sendable, Equatable {
        /// Names the file `dp/<id>.csv` and the ledger entries.
        package var id: String
        /// `daily.<column>` (a column of daily.csv) or `workouts.count` / `workouts.<column>`.
        package var metric: String
        /// `count`, `sum`, `mean`, or `density` (route cells of a fixed grid over `area`).
        package var aggregate: Aggregate
        /// `week` (ISO weeks of `from`…`to`), `month` (calendar months), `day`, `activity_week`
        /// and `activity_month` (activity × week or month).
        package var partition: PartitionKind
        /// First and last local date of the public partitions, `yyyy-MM-dd` (a relative date of
        /// the spec is resolved when it is read: `ReleaseDates`).
        package var from: String
        package var to: String
        /// Activities for `activity_week` (default: running, walking, cycling, hiking, swimming).
        package var activities: [String]?
        /// `day`, `workout` or `person`: what one contribution bound protects.
        package var privacyUnit: PrivacyUnit
        /// Values are clamped to [lower, upper] (declared, never from the data).
        package var lower: Double?
        package var upper: Double?
        /// The fixed-point unit values are put on before noise (1 bpm, 1 m, 1 step).
        package var resolution: Double?
        /// At most this many partitions per privacy unit (K) and contributions per partition (M).
        package var maxPartitions: Int
        package var maxContributions: Int
        /// `laplace` (pure ε) or `gaussian` (ρ-zCDP).
        package var mechanism: MechanismKind
        package var epsilon: Double?
        package var rho: Double?
        /// `density`: the fixed grid's area, `[minLat, minLon, maxLat, maxLon]` (declared, never
        /// from the data), and how many cells across.
        package var area: [Double]?
        package var cells: Int?
        /// How the release repeats under cron: `once` (the default) publishes the whole
        /// `from`…`to` once it has closed; `week` each ISO week, `month` each calendar month,
        /// `year` each calendar year, once it has closed.
        /// Either way a period is drawn once and never again (see `Publication`).
        package var cadence: Cadence?
        /// What a partition is expected to hold, declared from public knowledge (a study's
        /// design, population figures), never from the data: a count's or sum's typical value,
        /// a density cell's typical count, the typical number of values of a mean. Only
        /// `--plan` reads it, to warn when the noise swamps it (`ReleasePlan`); it is no term of
        /// the release and changes nothing drawn or spent.
        package var expected: Double?

        enum CodingKeys: String, CodingKey {
            case id, metric, aggregate, partition, from, to, activities, lower, upper, resolution, mechanism, epsilon, rho
            case area, cells, cadence, expected
            case privacyUnit = "privacy_unit", maxPartitions = "max_partitions", maxContributions = "max_contributions"
        }
    }

    package enum Aggregate: String, Codable, Sendable { case count, sum, mean, density }
    package enum PartitionKind: String, Codable, Sendable {
        case week, day, month, activityWeek = "activity_week", activityMonth = "activity_month"

        /// Whether the partitions are activity × period.
        var byActivity: Bool { self == .activityWeek || self == .activityMonth }
    }
    package enum PrivacyUnit: String, Codable, Sendable { case day, workout, person }
    package enum MechanismKind: String, Codable, Sendable { case laplace, gaussian }
    package enum Cadence: String, Codable, Sendable { case once, week, month, year }

    /// Reads and checks a spec, its relative dates read against `asOf` (`yyyy-MM-dd`, UTC;
    /// default today); the error names the file and the line of the first problem
    /// (`healthtrail validate` on a pipeline that names this file lists all of them).
    package static func load(path: String, asOf: String? = nil) throws -> ReleaseSpec {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw InputError(file: path, "cannot read the release spec")
        }
        var walker = YAMLSchemaWalker()
        let today = asOf.flatMap(PublicPartitions.day) ?? ReleaseDates.today()
        let read = ReleaseSpecReader.readFile(text: text, defaultUnit: nil, walker: &walker, today: today)
        let problems = walker.problems.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
        guard let read, problems.isEmpty else {
            let first = problems.first ?? PipelineProblem(line: 1, column: 1, keyPath: "", message: "not a valid release spec")
            let more = problems.dropFirst().map { "\($0.line)" }
            let also = more.isEmpty ? "" : " (more problems at line\(more.count == 1 ? "" : "s") \(more.joined(separator: ", ")))"
            throw InputError(file: path, line: first.line, "\(first)\(also)")
        }
        return ReleaseSpec(releases: read.items.map(\.release), budget: read.budget)
    }
}

extension ReleaseSpec.Release {
    /// The release without what is no term of it (`expected`, read by `--plan` only): what the
    /// partial's and the ledger's fingerprints are computed from.
    var terms: Self {
        var terms = self
        terms.expected = nil
        return terms
    }

    /// Throws the first of `mistakes()`, naming the release.
    func check(file: String) throws {
        if let first = mistakes().first { throw InputError(file: file, "release \(id): \(first.message)") }
    }

    /// Everything wrong with this release, each with the key it is about (where a file reader
    /// reports it), in a fixed order.
    func mistakes() -> [(key: String, message: String)] {
        var found: [(key: String, message: String)] = []
        func fail(_ key: String, _ message: String) { found.append((key, message)) }
        if id.isEmpty || !id.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-") }) {
            fail("id", "id may hold ASCII letters, digits, _ and - only")
        }
        // An activity listed twice would be two partitions with one key, drawn twice.
        if let activities, Set(activities).count != activities.count {
            fail("activities", "an activity is listed twice")
        }
        let fromDate = Timestamp.parse(from + " 00:00:00 +0000"), toDate = Timestamp.parse(to + " 00:00:00 +0000")
        if fromDate == nil || toDate == nil || from > to {
            fail(
                fromDate == nil ? "from" : "to",
                "from and to must be dates yyyy-MM-dd or relative dates (26 weeks ago, last complete month, …) with from ≤ to")
        }
        if fromDate != nil && toDate != nil && from <= to && PublicPartitions.countedDays(of: self) == nil {
            // Weekly and monthly partitions are the whole weeks or months inside from…to.
            let period = [.month, .activityMonth].contains(partition) ? "calendar month" : "ISO week (Monday to Sunday)"
            fail("to", "no whole \(period) lies between from and to")
        }
        for (key, value) in [("max_partitions", maxPartitions), ("max_contributions", maxContributions)] where value < 1 {
            fail(key, "max_partitions and max_contributions must be ≥ 1")
        }
        if let cadence, cadence != .once {
            let fits: [ReleaseSpec.PartitionKind] = cadence == .week ? [.day, .week, .activityWeek] : [.day, .month, .activityMonth]
            if aggregate == .density && cadence != .year {
                fail(
                    "cadence",
                    "a density map is drawn once for its dates, or each calendar year: cadence \(cadence.rawValue) is for count, sum and mean")
            } else if aggregate == .density {
                // One map per file: its counts are those of from…to, so from…to is the one year.
                if let days = PublicPartitions.countedDays(of: self), !PublicPartitions.isOneCalendarYear(days) {
                    fail("from", "a density map with cadence year covers one calendar year: from and to its first and last day (last complete year)")
                }
            } else if !fits.contains(partition) {
                fail(
                    "cadence",
                    "cadence \(cadence.rawValue) publishes whole \(cadence.rawValue)s: use it with partition "
                        + fits.map(\.rawValue).joined(separator: ", "))
            }
        }
        if let expected, !(expected > 0) { fail("expected", "expected must be a positive number") }
        var metricReported = false
        if aggregate == .density {
            let areaMessage = "density needs area [minLat, minLon, maxLat, maxLon] and cells 4…1000"
            if !(area.map { $0.count == 4 && $0[0] < $0[2] && $0[1] < $0[3] } ?? false) { fail("area", areaMessage) }
            if !(cells.map { (4...1000).contains($0) } ?? false) { fail("cells", areaMessage) }
            if metric != "routes" { fail("metric", "density reads metric: routes"); metricReported = true }
            if privacyUnit == .day { fail("privacy_unit", "density counts workouts or persons, not days") }
        } else if aggregate != .count {
            let boundsOK = lower.flatMap { l in upper.map { u in l.isFinite && u.isFinite && l < u } } ?? false
            if !boundsOK {
                fail(lower == nil ? "lower" : "upper", "sum and mean need finite declared bounds lower < upper")
            }
        }
        // A resolution ≤ 0 would turn the sensitivity into nonsense and publish raw values.
        if let resolution {
            if !resolution.isFinite || resolution <= 0 {
                fail("resolution", "resolution must be a positive number")
            } else if max(abs(lower ?? 0), abs(upper ?? 0)) / resolution >= 1e12 {
                fail("resolution", "bounds / resolution must stay below 10^12")
            }
        }
        for (key, value) in [("max_partitions", maxPartitions), ("max_contributions", maxContributions)] where value > 100_000 {
            fail(key, "max_partitions and max_contributions must be ≤ 100000")
        }
        switch mechanism {
        case .laplace: if !(epsilon.map { $0 > 0 && $0 <= 10 } ?? false) { fail("epsilon", "laplace needs 0 < epsilon ≤ 10") }
        case .gaussian: if !(rho.map { $0 > 0 && $0 <= 10 } ?? false) { fail("rho", "gaussian needs 0 < rho ≤ 10") }
        }
        if !metricReported && !(metric.hasPrefix("daily.") || metric.hasPrefix("workouts.") || metric == "routes") {
            fail("metric", "metric must be daily.<column> or workouts.count / workouts.<column>")
        }
        // The run would refuse it (a day's figures cannot be split by workout): say so now.
        if metric.hasPrefix("daily.") && privacyUnit == .workout {
            fail("privacy_unit", "daily figures have no workout privacy unit (use day or person)")
        }
        return found
    }
}
