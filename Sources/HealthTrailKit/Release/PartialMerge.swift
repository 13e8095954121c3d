import Crypto
import HealthTrailArchive
import HealthTrailBase
import HealthTrailRun

extension PartialAggregate {
    /// The partial aggregate of everyone in `parts`: their counts and sums added up.
    ///
    /// Exact integer sums, so any order and grouping of the same partials gives the same bytes
    /// (as long as no total overflows 64 bits, which is an error, never a wrap). Partials with
    /// the same bytes count once: a task result delivered twice (a Spark retry) is not data
    /// counted twice. Merging one partial returns it unchanged.
    ///
    /// - Throws: `InputError` naming the partial's file (when it was read from one): no
    ///   partials; one made by another healthtrail version or for other release definitions
    ///   than the first; a person in two different partials (the same person counted twice
    ///   would break the bound on what one person can change); totals that overflow.
    package static func merge(_ parts: [PartialAggregate]) throws -> PartialAggregate {
        var seen = Set<SHA256Digest>()   // digests, not bytes: thousands of partials may be merged
        let unique = parts.filter { seen.insert(SHA256.hash(data: $0.encode())).inserted }
        guard let first = unique.first else { throw InputError(file: "merge", "no partial aggregates to merge") }
        if unique.count == 1 { return first }

        var owners: [String: String] = [:]
        for part in unique {
            guard part.toolVersion == HealthTrailVersion.current else {
                throw InputError(
                    file: part.displayName,
                    "made by healthtrail \(part.toolVersion); this is "
                        + "\(HealthTrailVersion.current): rebuild it with this version")
            }
            guard part.specSHA256 == first.specSHA256, Set(part.releases.keys) == Set(first.releases.keys) else {
                throw InputError(file: part.displayName, "computed for other release definitions than \(first.displayName)")
            }
            for person in part.persons {
                if let other = owners[person] {
                    throw InputError(file: part.displayName, "person \(person) is in two partials: \(other) and \(part.displayName)")
                }
                owners[person] = part.displayName
            }
        }

        var releases = first.releases.mapValues { _ in BoundedTotals() }
        for part in unique {
            for (id, totals) in part.releases {
                func add(_ table: [String: Int64], into total: inout [String: Int64]) throws {
                    for (key, value) in table {
                        let (sum, overflow) = (total[key] ?? 0).addingReportingOverflow(value)
                        guard !overflow else {
                            throw InputError(file: part.displayName, "release \(id): the merged totals overflow 64-bit integers")
                        }
                        total[key] = sum
                    }
                }
                try add(totals.counts, into: &releases[id]!.counts)
                try add(totals.sums, into: &releases[id]!.sums)
            }
        }
        // Centred sums (`mean`) of several people can cancel out: zero entries are left out.
        for id in releases.keys { releases[id]!.sums = releases[id]!.sums.filter { $0.value != 0 } }
        return PartialAggregate(
            toolVersion: first.toolVersion, specSHA256: first.specSHA256, persons: Array(owners.keys),
            releases: releases)
    }
}
