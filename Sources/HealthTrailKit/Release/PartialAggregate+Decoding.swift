import Foundation
import HealthTrailArchive
import HealthTrailBase

extension PartialAggregate {
    /// Reads the bytes of a partial aggregate file (see the type's documentation for the format).
    ///
    /// Only the canonical bytes are accepted: a file whose bytes differ from the encoding of what
    /// it holds (edited, re-indented, duplicated keys, persons out of order) is corrupt, because
    /// merging relies on equal contents having equal bytes.
    ///
    /// - Throws: `InputError` naming `file`: not a partial aggregate, another format version, or
    ///   corrupt. The message never holds a value from the file.
    package init(bytes: [UInt8], file: String) throws {
        func fail(_ message: String) -> InputError { InputError(file: file, message) }
        let data = Data(bytes)
        guard let header = try? JSONDecoder().decode(Header.self, from: data), header.format == Self.formatName else {
            // Every partial begins with these bytes: one that does and does not parse was cut or damaged.
            if bytes.starts(with: Array("{\"format\":\"\(Self.formatName)\",".utf8)) {
                throw fail("corrupt partial aggregate (not valid JSON: cut short?)")
            }
            throw fail("not a HealthTrail partial aggregate")
        }
        guard header.version == Self.formatVersion else {
            throw fail(
                "partial aggregate format version \(header.version.map(String.init) ?? "missing"); "
                    + "this healthtrail reads version \(Self.formatVersion): rebuild it with this version")
        }
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: data)
        } catch {
            throw fail("corrupt partial aggregate (fields missing or of the wrong type)")
        }
        self.init(
            toolVersion: wire.toolVersion, specSHA256: wire.specSHA256, persons: wire.persons,
            releases: wire.releases.mapValues { BoundedTotals(counts: $0.counts, sums: $0.sums) }, file: file)
        guard encode() == bytes else {
            throw fail("corrupt partial aggregate (its bytes are not the canonical encoding of its contents: edited?)")
        }
        try check(fail)
    }

    /// What canonical bytes can still get wrong.
    private func check(_ fail: (String) -> InputError) throws {
        func isHash(_ s: String) -> Bool { s.utf8.count == 64 && s.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) } }
        guard isHash(specSHA256) else { throw fail("corrupt partial aggregate (spec_sha256 is not a SHA-256)") }
        guard !persons.isEmpty else { throw fail("corrupt partial aggregate (no persons)") }
        guard persons.allSatisfy(Self.isValidPerson) else {
            throw fail("corrupt partial aggregate (a person's name is malformed)")
        }
        for (id, totals) in releases {
            // Counts are numbers of contributions; zero entries are left out by every writer.
            guard totals.counts.values.allSatisfy({ $0 > 0 }), totals.sums.values.allSatisfy({ $0 != 0 }) else {
                throw fail("corrupt partial aggregate (release \(id) holds a zero entry or a negative count)")
            }
        }
    }

    /// The first two fields, read leniently: a file of another format or version must be told
    /// apart from a corrupt one.
    private struct Header: Decodable {
        var format: String?
        var version: Int64?
    }

    private struct Wire: Decodable {
        var toolVersion: String
        var specSHA256: String
        var persons: [String]
        var releases: [String: WireTotals]

        enum CodingKeys: String, CodingKey {
            case persons, releases
            case toolVersion = "tool_version", specSHA256 = "spec_sha256"
        }
    }

    private struct WireTotals: Decodable {
        var counts: [String: Int64]
        var sums: [String: Int64]
    }
}
