import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailKit
@testable import HealthTrailRun

/// Pseudonym keys: what key files are accepted, and what `healthtrail keygen` writes.
@Suite struct PseudonymKeyTests {
    /// Writes a key file with the given mode.
    func keyFile(_ dir: String, _ name: String, _ contents: [UInt8], mode: Int = 0o600) throws -> String {
        let path = dir + "/" + name
        try Data(contents).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    func hex(_ bytes: [UInt8]) -> [UInt8] { Array((bytes.map { String(format: "%02x", $0) }.joined() + "\n").utf8) }

    @Test func aPseudonymIsTheHMACOfTheNameUnderTheKey() throws {
        let dir = Support.temporaryDirectory()
        // RFC 4231 test case 6: key 131 × 0xaa, HMAC-SHA256 = 60e431591ee0b67f0d8a26aa…
        let rfc = try PseudonymKey(path: keyFile(dir, "rfc.key", hex([UInt8](repeating: 0xaa, count: 131))))
        #expect(rfc.pseudonym(for: "Test Using Larger Than Block-Size Key - Hash Key First") == "p_60e431591ee0b67f")
        // The same key given as raw bytes is the same key.
        let raw = try PseudonymKey(path: keyFile(dir, "raw.key", [UInt8](repeating: 0xaa, count: 131)))
        #expect(raw.pseudonym(for: "alice") == rfc.pseudonym(for: "alice"))

        let one = try PseudonymKey(path: keyFile(dir, "one.key", hex((0..<32).map { UInt8($0) })))
        let oneAgain = try PseudonymKey(path: dir + "/one.key")
        let two = try PseudonymKey(path: keyFile(dir, "two.key", hex((0..<32).map { UInt8($0 + 1) })))
        #expect(one.pseudonym(for: "alice") == oneAgain.pseudonym(for: "alice"))
        #expect(one.pseudonym(for: "alice") != two.pseudonym(for: "alice"))
        #expect(one.pseudonym(for: "alice") != one.pseudonym(for: "bob"))
        let names = (0..<1000).map { one.pseudonym(for: "person-\($0)") }
        #expect(Set(names).count == 1000)
        #expect(names.allSatisfy { $0.count == 18 && $0.hasPrefix("p_") && $0.dropFirst(2).allSatisfy(\.isHexDigit) })
        #expect(names.allSatisfy(PartialAggregate.isValidPerson))
    }

    @Test func keyFilesThatAreMissingShortOrReadableByOthersAreRefused() throws {
        let dir = Support.temporaryDirectory()
        let key = hex((0..<32).map { UInt8($0 * 7) })
        let cases: [(String, String)] = [
            (try keyFile(dir, "open.key", key, mode: 0o644), "accessible by group or others (mode 0644): chmod 600 it"),
            (try keyFile(dir, "group.key", key, mode: 0o640), "accessible by group or others (mode 0640): chmod 600 it"),
            (try keyFile(dir, "short.key", hex((0..<31).map { UInt8($0) })), "holds 31 bytes of key material; at least 32"),
            (try keyFile(dir, "short-raw.key", Array("secret\n".utf8)), "holds 7 bytes of key material; at least 32"),
            (dir + "/missing.key", "no such key file"),
        ]
        for (path, message) in cases {
            let error = #expect(throws: InputError.self) { try PseudonymKey(path: path) }
            #expect(error?.file == path)
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
        }
        #expect(throws: Never.self) { _ = try PseudonymKey(path: keyFile(dir, "fine.key", key, mode: 0o400)) }
    }

    @Test func keygenWritesAnOwnerOnlyKeyAndNeverOverwrites() throws {
        let dir = Support.temporaryDirectory()
        let path = dir + "/cohort.key"
        let made = try Support.runCLI(["keygen", path])
        #expect(made.status == 0, "\(made.stderr)")
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.count == 65 && text.hasSuffix("\n") && text.dropLast().allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(throws: Never.self) { _ = try PseudonymKey(path: path) }

        let again = try Support.runCLI(["keygen", path])
        #expect(again.status != 0)
        #expect(again.stderr.contains("\(path): already exists: refusing to overwrite a key"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)

        // Each key is fresh randomness.
        try PseudonymKey.generate(at: dir + "/other.key")
        #expect(try String(contentsOfFile: dir + "/other.key", encoding: .utf8) != text)
    }
}
