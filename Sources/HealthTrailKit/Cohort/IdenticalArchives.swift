import Foundation
import HealthTrailArchive
import HealthTrailRun
import HealthTrailXML

/// Byte-identical archives of a cohort: one export copied under two names is one person, not
/// two, whatever the names or `privacy.persons` say. Counting it twice would let that person
/// move every total twice as far as the noise is scaled for.
///
/// Archives are compared by the SHA-256 a run records as the input's (`ExportRun.sha256`: of
/// a zip file, or of an unzipped folder's export.xml), so the copy a cohort leaves out is the
/// one the person's own run would call unchanged.
enum IdenticalArchives {
    /// The archives to process, and each copy left out with the archive kept in its place.
    ///
    /// Of identical archives the one kept is the one `rank` puts last (a persons file's line;
    /// nil, unlisted, before every listed one), then the one whose file name sorts last: the
    /// choice depends on names and the persons file only, never on the order archives were
    /// found in. An archive that cannot be read is kept: its own process reports it.
    static func split(_ archives: [String], jobs: Int, rank: @escaping @Sendable (String) -> Int?)
        -> (kept: [String], copies: [(copy: String, kept: String)])
    {
        let hashes = ParallelJobs.run(count: archives.count, jobs: jobs) { contentHash(of: archives[$0]) }
        var keeper: [String: String] = [:]   // hash → archive kept
        func later(_ a: String, than b: String) -> Bool {
            let (ra, rb) = (rank(a) ?? -1, rank(b) ?? -1)
            if ra != rb { return ra > rb }
            let (na, nb) = (PersonMapping.archiveName(of: a), PersonMapping.archiveName(of: b))
            return na != nb ? na > nb : a > b
        }
        for (archive, hash) in zip(archives, hashes) {
            guard let hash else { continue }
            if let current = keeper[hash], !later(archive, than: current) { continue }
            keeper[hash] = archive
        }
        var kept: [String] = [], copies: [(copy: String, kept: String)] = []
        for (archive, hash) in zip(archives, hashes) {
            if let hash, let winner = keeper[hash], winner != archive {
                copies.append((archive, winner))
            } else {
                kept.append(archive)
            }
        }
        return (kept, copies)
    }

    /// The archive's content hash, nil when it cannot be opened as an export.
    static func contentHash(of path: String) -> String? {
        guard let source = try? openExportSource(path: path), let layout = try? ExportLayout(source: source),
            let digest = try? ExportRun.sha256(of: source, main: layout.mainXML)
        else { return nil }
        return "\(digest.0) \(digest.1)"
    }
}
