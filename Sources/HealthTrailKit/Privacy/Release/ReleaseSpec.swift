import Foundation
import Yams

/// What to release under differential privacy: read from a YAML file in `pipelines/`.
///
/// Everything that decides the noise is declared here, never read from the data: the privacy
/// unit, the bounds values are clamped to, how many partitions and contributions a unit may
/// have, the public partitions (calendar weeks of a declared range, HealthKit's activity list),
/// the mechanism and its ε or ρ.
public struct ReleaseSpec: Codable, Sendable, Equatable {
    public var releases: [Release]
    /// Total budget the ledger enforces across runs.
    public var budget: Budget?

    public struct Budget: Codable, Sendable, Equatable {
        public var epsilon: Double?
        public var rho: Double?
    }

    public struct Release: Codable, Sendable, Equatable {
        /// Names the file `dp/<id>.csv` and the ledger entries.
        public var id: String
        /// `daily.<column>` (a column of daily.csv) or `workouts.count` / `workouts.<column>`.
        public var metric: String
        /// `count`, `sum`, `mean`, or `density` (route cells of a fixed grid over `area`).
        public var aggregate: Aggregate
        /// `week` (ISO weeks of `from`…`to`), `day`, `activity_week` (activity × week).
        public var partition: PartitionKind
        /// First and last local date of the public partitions, `yyyy-MM-dd`.
        public var from: String
        public var to: String
        /// Activities for `activity_week` (default: running, walking, cycling, hiking, swimming).
        public var activities: [String]?
        /// `day`, `workout` or `person`: what one contribution bound protects.
        public var privacyUnit: PrivacyUnit
        /// Values are clamped to [lower, upper] (declared, never from the data).
        public var lower: Double?
        public var upper: Double?
        /// The fixed-point unit values are put on before noise (1 bpm, 1 m, 1 step).
        public var resolution: Double?
        /// At most this many partitions per privacy unit (K) and contributions per partition (M).
        public var maxPartitions: Int
        public var maxContributions: Int
        /// `laplace` (pure ε) or `gaussian` (ρ-zCDP).
        public var mechanism: MechanismKind
        public var epsilon: Double?
        public var rho: Double?
        /// `density`: the fixed grid's area, `[minLat, minLon, maxLat, maxLon]` (declared, never
        /// from the data), and how many cells across.
        public var area: [Double]?
        public var cells: Int?

        enum CodingKeys: String, CodingKey {
            case id, metric, aggregate, partition, from, to, activities, lower, upper, resolution, mechanism, epsilon, rho
            case area, cells
            case privacyUnit = "privacy_unit", maxPartitions = "max_partitions", maxContributions = "max_contributions"
        }
    }

    public enum Aggregate: String, Codable, Sendable { case count, sum, mean, density }
    public enum PartitionKind: String, Codable, Sendable { case week, day, activityWeek = "activity_week" }
    public enum PrivacyUnit: String, Codable, Sendable { case day, workout, person }
    public enum MechanismKind: String, Codable, Sendable { case laplace, gaussian }

    /// Reads and checks a spec; errors name the file and what is wrong.
    public static func load(path: String) throws -> ReleaseSpec {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw InputError(file: path, "cannot read the release spec")
        }
        let spec: ReleaseSpec
        do {
            spec = try YAMLDecoder().decode(ReleaseSpec.self, from: text)
        } catch {
            throw InputError(file: path, "not a valid release spec: \(error)")
        }
        for r in spec.releases { try r.check(file: path) }
        guard Set(spec.releases.map(\.id)).count == spec.releases.count else {
            throw InputError(file: path, "release ids must be unique")
        }
        return spec
    }
}

extension ReleaseSpec.Release {
    func check(file: String) throws {
        func fail(_ m: String) -> InputError { InputError(file: file, "release \(id): \(m)") }
        guard id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }), !id.isEmpty else {
            throw fail("id may hold letters, digits, _ and - only")
        }
        guard Timestamp.parse(from + " 00:00:00 +0000") != nil, Timestamp.parse(to + " 00:00:00 +0000") != nil, from <= to else {
            throw fail("from and to must be dates yyyy-MM-dd with from ≤ to")
        }
        guard maxPartitions >= 1, maxContributions >= 1 else { throw fail("max_partitions and max_contributions must be ≥ 1") }
        if aggregate == .density {
            guard let a = area, a.count == 4, a[0] < a[2], a[1] < a[3], let c = cells, (4...1000).contains(c) else {
                throw fail("density needs area [minLat, minLon, maxLat, maxLon] and cells 4…1000")
            }
            guard metric == "routes" else { throw fail("density reads metric: routes") }
            guard privacyUnit != .day else { throw fail("density counts workouts or persons, not days") }
        } else if aggregate != .count {
            guard let lower, let upper, lower.isFinite, upper.isFinite, lower < upper else {
                throw fail("sum and mean need finite declared bounds lower < upper")
            }
        }
        // A resolution ≤ 0 would turn the sensitivity into nonsense and publish raw values.
        if let resolution {
            guard resolution.isFinite, resolution > 0 else { throw fail("resolution must be a positive number") }
            let magnitude = max(abs(lower ?? 0), abs(upper ?? 0))
            guard magnitude / resolution < 1e12 else { throw fail("bounds / resolution must stay below 10^12") }
        }
        guard maxPartitions <= 100_000, maxContributions <= 100_000 else {
            throw fail("max_partitions and max_contributions must be ≤ 100000")
        }
        switch mechanism {
        case .laplace: guard let e = epsilon, e > 0, e <= 10 else { throw fail("laplace needs 0 < epsilon ≤ 10") }
        case .gaussian: guard let r = rho, r > 0, r <= 10 else { throw fail("gaussian needs 0 < rho ≤ 10") }
        }
        guard metric.hasPrefix("daily.") || metric.hasPrefix("workouts.") || metric == "routes" else {
            throw fail("metric must be daily.<column> or workouts.count / workouts.<column>")
        }
    }
}
