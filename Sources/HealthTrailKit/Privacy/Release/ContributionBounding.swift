/// One value a privacy unit contributes to one partition.
struct Contribution {
    /// The privacy unit: a date (`day`), a workout id (`workout`), or the archive (`person`).
    var unit: String
    var partition: String
    var value: Double
}

/// Per-partition totals after contributions are bounded, on the release's fixed-point unit.
struct BoundedTotals: Equatable {
    /// Contributions counted, per partition.
    var counts: [String: Int64] = [:]
    /// Sum of clamped values in resolution units, per partition (`mean`: centred on the bounds'
    /// midpoint, so each contribution lies within ±half the range).
    var sums: [String: Int64] = [:]
}

/// Bounds what one privacy unit can change, before any aggregate is computed.
///
/// A unit keeps at most K partitions (chosen by a hash of unit and partition: depends on that
/// unit's own data only, and is the same on every run) and at most M contributions in each;
/// values are clamped to the declared bounds and put on the declared resolution. Contributions
/// to partitions that are not public are dropped. One unit can then change a count by at most
/// K·M and a sum by at most K·M·B (B the largest magnitude a clamped value can have): the
/// sensitivities the noise is scaled to.
enum ContributionBounding {
    static func bound(_ contributions: [Contribution], release: ReleaseSpec.Release, publicKeys: Set<String>) -> BoundedTotals {
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
                    totals.counts[partition, default: 0] += 1
                    guard release.aggregate != .count else { continue }
                    let clamped = min(max(value, lower), upper)
                    totals.sums[partition, default: 0] += Int64(((clamped - centre) / resolution).rounded())
                }
            }
        }
        return totals
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
