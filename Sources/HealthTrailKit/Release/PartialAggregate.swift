import Crypto
import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailCommit
import HealthTrailRun

/// The noise-free bounded totals of one person (or, merged, of several) for every release of a
/// spec: what a cohort adds up before noise is drawn once for all.
///
/// Bounding is per privacy unit (a day, a workout, a person) and a unit never spans two people,
/// so a cohort's bounded totals are exactly the sums of each person's. They are integers, so
/// merging partials (`merge(_:)`) is exact, associative and commutative: every order and
/// grouping of the same partials gives the same bytes.
///
/// ## File format (version 2)
///
/// One line of JSON in canonical form (see `CanonicalJSON`: keys sorted by UTF-8 bytes, no
/// whitespace, integers only, exactly the bytes of Python's
/// `json.dumps(p, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`), then `\n`:
///
///     {"format":"healthtrail-partial",
///      "persons":["p_5b2e0c9d41aa7f03"],
///      "releases":{"density":{"counts":{"517":2},"sums":{}},
///                  "weekly_steps":{"counts":{"2023-W01":6},"sums":{"2023-W01":4123}}},
///      "spec_sha256":"<sha256 of the spec's releases>","tool_version":"0.2.0","version":2}
///
/// (shown wrapped; the file is one line). Fields:
/// - `format`, `version`: always `healthtrail-partial` and `2`. A file of version 1 is refused
///   with a line saying to rebuild it: its `persons` held an unkeyed SHA-256 of each person's
///   totals, which anyone could recompute from a guess of those totals to confirm it.
/// - `tool_version`: the healthtrail that bounded the data; merging refuses another version.
/// - `spec_sha256`: `specFingerprint(of:)`, the release definitions the totals were computed
///   for, without the budget (changing the budget does not invalidate partials).
/// - `persons`: the pseudonyms of the people whose totals these are, sorted by UTF-8 bytes, each
///   once. Nothing derived from a person's totals is kept beside their pseudonym.
/// - `releases`: per release id, `counts` and `sums` per public partition (the `mean` sums are
///   centred, as in `BoundedTotals`); a density release has `counts` per cell index (row-major)
///   and no sums. Zero entries are left out; every release of the spec is present.
///
/// In Python: `json.load(open(path, encoding="utf-8"))["persons"]` lists the people in a file.
///
/// The totals are raw (noise-free) health data: files are written owner-only (0600).
package struct PartialAggregate: Sendable {
    /// The value of `format`.
    package static let formatName = "healthtrail-partial"
    /// The value of `version` this tool reads and writes.
    package static let formatVersion: Int64 = 2

    /// The healthtrail version that computed the totals.
    package var toolVersion: String
    /// `specFingerprint(of:)` of the spec the totals were computed for.
    package var specSHA256: String
    /// The pseudonyms of the people in these totals, sorted by UTF-8 bytes, each once.
    package var persons: [String]
    /// Bounded totals per release id.
    package var releases: [String: BoundedTotals]
    /// The file this partial was read from, for error messages; not part of its bytes.
    package var file: String?

    /// A partial from its parts (`build` and `merge` make them; tests make odd ones).
    package init(
        toolVersion: String = HealthTrailVersion.current, specSHA256: String, persons: [String],
        releases: [String: BoundedTotals], file: String? = nil
    ) {
        self.toolVersion = toolVersion
        self.specSHA256 = specSHA256
        self.persons = Self.sorted(persons)
        self.releases = releases
        self.file = file
    }

    /// The name errors give this partial: its file, when it was read from one.
    var displayName: String { file ?? "partial aggregate" }

    /// Hex SHA-256 of the spec's release definitions (deterministic JSON, keys sorted), leaving
    /// out the budget: partials stay valid when only the budget changes.
    package static func specFingerprint(of spec: ReleaseSpec) throws -> String {
        // Terms only (`ReleaseSpec.Release.terms`): declaring `expected` changes no partial.
        hex(SHA256.hash(data: try JSONEncoder.sorted.encode(spec.releases.map(\.terms))))
    }

    /// `names` each once, in the order of their UTF-8 bytes: the canonical order of `persons`.
    static func sorted(_ names: [String]) -> [String] {
        Set(names).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The canonical bytes of the file (see the type's documentation).
    package func encode() -> [UInt8] {
        let document: [String: CanonicalJSON] = [
            "format": .string(Self.formatName),
            "version": .integer(Self.formatVersion),
            "tool_version": .string(toolVersion),
            "spec_sha256": .string(specSHA256),
            "persons": .array(persons.map { .string($0) }),
            "releases": Self.json(releases),
        ]
        return CanonicalJSON.object(document).bytes + [0x0A]
    }

    /// Reads a partial aggregate file; errors name it.
    package static func read(path: String) throws -> PartialAggregate {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(file: path, "cannot read the partial aggregate")
        }
        return try PartialAggregate(bytes: [UInt8](data), file: path)
    }

    /// Writes the file whole or not at all (a temporary name in the same folder, then rename),
    /// owner-only: the totals are noise-free.
    package func write(to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        do {
            try OutputFile.write(encode(), to: temporary)
        } catch let error as InputError {
            unlink(temporary)
            throw InputError(file: path, "cannot write the partial aggregate (\(error.message))")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw InputError(file: path, "cannot write the partial aggregate: \(reason)")
        }
    }

    /// Person names are pseudonyms (`p_` + hex) or `self`: letters, digits, `_`, `.`, `-`, at
    /// most 64. They appear in error messages, so a real name has no place here.
    static func isValidPerson(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_.-".unicodeScalars.contains($0))
            }
    }

    static func json(_ releases: [String: BoundedTotals]) -> CanonicalJSON {
        .object(
            releases.mapValues { totals in
                .object([
                    "counts": .object(totals.counts.mapValues { .integer($0) }),
                    "sums": .object(totals.sums.mapValues { .integer($0) }),
                ])
            })
    }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
