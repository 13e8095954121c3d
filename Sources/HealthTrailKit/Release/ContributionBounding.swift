import HealthTrailArchive
import HealthTrailBase

/// One value a privacy unit contributes to one partition.
struct Contribution {
    /// The privacy unit, qualified by the person it belongs to: `<person>|<date>` (`day`),
    /// `<person>|<workout id>` (`workout`), or `<person>` (`person`). Units of two people never
    /// share a name, so one person's bounding never touches another's.
    var unit: String
    var partition: String
    var value: Double
}

/// Per-partition totals after contributions are bounded, on the release's fixed-point unit.
///
/// Integers only, so totals of several people add up exactly, in any order. Partial aggregates
/// leave zero entries out. A density release keeps its counts under the cell's row-major index
/// (`"517"`).
package struct BoundedTotals: Equatable, Sendable {
    /// Contributions counted, per partition.
    package var counts: [String: Int64]
    /// Sum of clamped values in resolution units, per partition (`mean`: centred on the bounds'
    /// midpoint, so each contribution lies within ±half the range).
    package var sums: [String: Int64]

    package init(counts: [String: Int64] = [:], sums: [String: Int64] = [:]) {
        self.counts = counts
        self.sums = sums
    }
}

/// Bounds what one privacy unit can change, before any aggregate is computed.
///
/// A unit keeps at most K partitions (chosen by a hash of unit and partition: depends on that
/// unit's own data only, and is the same on every run; the unit's name includes its person, so
/// the people of a cohort do not all favour the same partitions) and at most M contributions in each;
/// values are clamped to the declared bounds and put on the declared resolution. Contributions
/// to partitions that are not public are dropped. One unit can then change a count by at most
/// K·M and a sum by at most K·M·B (B the largest magnitude a clamped value can have): the
/// sensitivities the noise is scaled to.
enum ContributionBounding {
    /// The bounded totals of one person's run outputs for one release: the single place both
    /// `healthtrail release` and partial aggregates get them from.
    static func totals(for release: ReleaseSpec.Release, runDirectory: String, person: String) throws -> BoundedTotals {
        if release.aggregate == .density {
            let counts = try DensityRelease.bounded(release, runDirectory: runDirectory, person: person).counts
            var totals = BoundedTotals()
            for (cell, count) in counts.enumerated() where count != 0 { totals.counts[String(cell)] = count }
            return totals
        }
        let contributions = try ReleaseInputs.contributions(for: release, runDirectory: runDirectory, person: person)
        var totals = try bound(contributions, release: release, publicKeys: Set(PublicPartitions.keys(for: release)))
        // A centred sum (`mean`) can come back to zero: zero entries are left out.
        totals.sums = totals.sums.filter { $0.value != 0 }
        return totals
    }

    /// Bounds the contributions of every unit and adds them up per partition. Totals that would
    /// overflow 64 bits are an error, never wrapped.
    static func bound(_ contributions: [Contribution], release: ReleaseSpec.Release, publicKeys: Set<String>) throws -> BoundedTotals {
        var byUnit: [String: [String: [Double]]] = [:]
        for c in contributions where publicKeys.contains(c.partition) && c.value.isFinite {
            byUnit[c.unit, default: [:]][c.partition, default: []].append(c.value)
        }
        var totals = BoundedTotals()
        let resolution = release.resolution ?? 1
        let lower = release.lower ?? 0, upper = release.upper ?? 0
        let centre = release.aggregate == .mean ? (lower + upper) / 2 : 0
        for unit in byUnit.keys.sorted() {
            let partitions = byUnit[unit]!
            let kept = partitions.keys.sorted { stableHash(unit + "|" + $0) < stableHash(unit + "|" + $1) }
                .prefix(release.maxPartitions)
            for partition in kept {
                for value in partitions[partition]!.prefix(release.maxContributions) {
                    try add(1, to: &totals.counts, partition, release: release)
                    guard release.aggregate != .count else { continue }
                    let clamped = min(max(value, lower), upper)
                    // Bounds and resolution are the spec's, checked when it is read; converted
                    // exactly anyway, so that a spec check missed is an error, never a trap.
                    guard let units = Int64(exactly: ((clamped - centre) / resolution).rounded()) else {
                        throw InputError(
                            file: release.id,
                            "release \(release.id): a bounded value does not fit 64-bit integers; lower the bounds or raise the resolution")
                    }
                    try add(units, to: &totals.sums, partition, release: release)
                }
            }
        }
        return totals
    }

    /// `table[key] += value`, refusing to wrap (a wrapped total would be silently wrong).
    static func add(_ value: Int64, to table: inout [String: Int64], _ key: String, release: ReleaseSpec.Release) throws {
        let (total, overflow) = (table[key] ?? 0).addingReportingOverflow(value)
        guard !overflow else {
            throw InputError(file: release.id, "release \(release.id): a total overflows 64-bit integers; lower the bounds or the resolution")
        }
        table[key] = total
    }

    /// The largest change one unit can make to a partition's sum, in resolution units.
    static func valueBound(_ release: ReleaseSpec.Release) -> Int64 {
        let resolution = release.resolution ?? 1
        let lower = release.lower ?? 0, upper = release.upper ?? 0
        let magnitude = release.aggregate == .mean ? (upper - lower) / 2 : max(abs(lower), abs(upper))
        return max(1, Int64(min(1e12, (magnitude / resolution).rounded(.up))))   // the spec check keeps it below 10^12
    }

    /// FNV-1a: stable across runs and machines (Swift's `hashValue` is not).
    static func stableHash(_ text: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }
}
