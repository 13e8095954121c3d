import Foundation
import HealthTrailArchive
import HealthTrailBase

/// Which person each archive of a cohort belongs to (`privacy.persons`), so that two exports of
/// one person are one privacy unit, not two.
///
/// The file is a small CSV, `archive,person` on its first line, then one archive per line: its
/// file name as it lies in the input folder (`alice-2024-06.zip`, or an unzipped folder's name)
/// and the person's name, which is only ever written as its pseudonym. Blank lines and lines
/// starting with `#` are ignored.
///
/// ```
/// archive,person
/// alice-2024-01.zip,alice
/// alice-2024-06.zip,alice
/// bob.zip,bob
/// ```
///
/// A person with several archives is counted once, from the archive listed last (list each
/// person's exports oldest first): the others are left out and counted as superseded. The rule
/// is the file's order, never the archives' dates or contents, so a cohort on one machine and
/// on Spark (whose driver reads the same file) choose the same archive. Without the file
/// (`persons: each archive`), each archive is a person of its own name. Either way,
/// byte-identical archives are one person (`IdenticalArchives`).
package struct PersonMapping: Sendable, Equatable {
    /// Archive file name → (person, line in the file).
    private var entries: [String: (person: String, line: Int)]

    package static func == (a: PersonMapping, b: PersonMapping) -> Bool {
        a.entries.mapValues { "\($0.person)\n\($0.line)" } == b.entries.mapValues { "\($0.person)\n\($0.line)" }
    }

    /// Reads the file; the error names the file and the line of the first mistake.
    package init(path: String) throws {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw InputError(file: path, "cannot read the list of persons")
        }
        entries = [:]
        var sawHeader = false
        let unixText = text.replacingOccurrences(of: "\r\n", with: "\n")   // "\r\n" is one Character
        for (index, raw) in unixText.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard sawHeader else {
                guard fields == ["archive", "person"] else {
                    throw InputError(file: path, line: index + 1, "the first line must be: archive,person")
                }
                sawHeader = true
                continue
            }
            guard fields.count == 2, !fields[0].isEmpty, !fields[1].isEmpty, !fields[0].contains("/") else {
                throw InputError(file: path, line: index + 1, "expected an archive's file name, a comma and a person's name")
            }
            if let earlier = entries[fields[0]] {
                throw InputError(file: path, line: index + 1, "this archive is listed already, on line \(earlier.line)")
            }
            entries[fields[0]] = (fields[1], index + 1)
        }
        guard sawHeader else { throw InputError(file: path, "empty: the first line must be archive,person") }
    }

    /// The file name an archive is listed under: the last component of its path.
    package static func archiveName(of path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.lastPathComponent
    }

    /// The line the file lists an archive on, nil when it does not list it.
    package func line(ofArchive path: String) -> Int? { entries[Self.archiveName(of: path)]?.line }

    /// The person an archive belongs to, nil when the file does not list it.
    package func person(ofArchive path: String) -> String? { entries[Self.archiveName(of: path)]?.person }

    /// The archives of a cohort sorted out: one per person (the one listed last), those another
    /// archive of the same person supersedes, and those the file does not list.
    package func choose(_ archives: [String]) -> (chosen: [(archive: String, person: String)], superseded: [String], unlisted: [String]) {
        var best: [String: (archive: String, line: Int)] = [:]
        var unlisted: [String] = []
        for archive in archives {
            guard let entry = entries[Self.archiveName(of: archive)] else {
                unlisted.append(archive)
                continue
            }
            if let current = best[entry.person], current.line >= entry.line { continue }
            best[entry.person] = (archive, entry.line)
        }
        let winners = Set(best.values.map(\.archive))
        let chosen = archives.filter(winners.contains).map { ($0, person(ofArchive: $0)!) }
        let superseded = archives.filter { !winners.contains($0) && person(ofArchive: $0) != nil }
        return (chosen, superseded, unlisted)
    }
}
