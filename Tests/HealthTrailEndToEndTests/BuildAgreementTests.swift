import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailKit
@testable import HealthTrailRun
@testable import HealthTrailSynth

/// The release binary (what users run) and the debug binary of the same sources write the same
/// bytes for the same input: no compiler setting may change what HealthTrail computes. Both
/// builds run the same command on the bundled sample, on generated archives with every feature
/// the generator has, and on every real fixture; every output file must be byte-identical, the
/// manifest's clock readings (`timings`, `started_utc`, `finished_utc`) aside. A run that fails
/// must fail the same way in both: same exit code, same message.
///
/// `make test-agreement` builds both binaries before these tests (`Support.binary`,
/// `Support.debugBinary`); `make test` skips them, and CI runs both.
@Suite(.serialized) struct BuildAgreementTests {
    /// One input and the options it runs with.
    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        var description: String { name }
    }

    /// Generated archives: several seeds, every generator option, a trip abroad (from 10 days
    /// on), both kinds of broken route link, the broken iOS 16 DTD, stored entries.
    static func generatedArchives(in dir: String) throws -> [(String, String)] {
        var variants: [(String, SynthOptions)] = []
        var plain = SynthOptions(days: 12, seed: 1)
        plain.firstDay = (2023, 3, 20)   // the change to summer time falls inside
        variants.append(("seed1-12d", plain))
        var broken = SynthOptions(days: 10, seed: 2)
        broken.includeBrokenRouteLinks = true
        broken.exportOffsetMinutes = -300
        variants.append(("seed2-broken-links", broken))
        var legacy = SynthOptions(days: 5, seed: 3)
        legacy.brokenDTD = true
        legacy.xmlName = "导出.xml"
        legacy.topFolder = "Export"
        legacy.compressionLevel = 0
        variants.append(("seed3-dtd-stored", legacy))
        var noRoutes = SynthOptions(days: 4, seed: 4)
        noRoutes.includeRoutes = false
        variants.append(("seed4-no-routes", noRoutes))
        return try variants.map { name, options in
            let path = dir + "/\(name).zip"
            _ = try ExportSynthesizer.write(to: path, options: options)
            return (name, path)
        }
    }

    /// The real route files of the fixtures, as orphans in an archive of their own (they come
    /// without their export.xml).
    static func realRouteArchive(in dir: String, fixtures: URL) throws -> String? {
        let folder = fixtures.appendingPathComponent("applehealth-gpx")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return nil }
        let path = dir + "/real-gpx.zip"
        let zip = try ZipWriter(path: path)
        try zip.addEntry("apple_health_export/export.xml", bytes: Array(Support.exportXML("").utf8))
        for name in names.sorted() where name.hasSuffix(".gpx") {
            let bytes = try Data(contentsOf: folder.appendingPathComponent(name))
            try zip.addEntry("apple_health_export/workout-routes/" + name, bytes: Array(bytes))
        }
        try zip.finish()
        return path
    }

    static func cases() throws -> [Case] {
        let dir = Support.temporaryDirectory("build-agreement-inputs")
        var cases: [Case] = [
            Case(name: "sample", arguments: [Support.packageRoot.appendingPathComponent("data/sample-export.zip").path]),
            Case(
                name: "sample, five zones, times, no geojson",
                arguments: [
                    Support.packageRoot.appendingPathComponent("data/sample-export.zip").path,
                    "--max-hr", "190", "--geojson-times", "--source-priority", "iPhone,Watch",
                    "--join-tolerance", "5", "--colour-scale", "inferno", "--svg-size", "640",
                ]),
        ]
        for (name, path) in try generatedArchives(in: dir) {
            cases.append(Case(name: name, arguments: [path]))
        }
        if let fixtures = Support.realFixtures {
            for relative in [
                "k0rventen/test-export.zip", "k0rventen/test-export3.zip", "k0rventen/test-export4.zip",
                "k0rventen/test-export-cn.zip", "ericwolter/Export.zip", "hacktj23/apple_health_export",
            ] {
                cases.append(Case(name: "real " + relative, arguments: [fixtures.appendingPathComponent(relative).path]))
            }
            if let gpx = try realRouteArchive(in: dir, fixtures: fixtures) {
                cases.append(Case(name: "real applehealth-gpx", arguments: [gpx]))
            }
        }
        return cases
    }

    /// Runs `binary run <arguments> --out out --quiet`: exit code and standard error.
    /// Gives the folders one manifest key: the manifest tags text from the data under its
    /// folder's key (`ManifestNames`), which is random where the run makes it, so two builds'
    /// folders would otherwise differ by their keys alone.
    static func shareOneManifestKey(_ folders: [String]) throws {
        let key = String(repeating: "5a", count: 32) + "\n"
        for out in folders {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            #expect(
                FileManager.default.createFile(
                    atPath: out + "/" + ManifestNames.keyFileName, contents: Data(key.utf8),
                    attributes: [.posixPermissions: 0o600]))
        }
    }

    static func run(_ binary: String, _ arguments: [String], out: String) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["run"] + arguments + ["--out", out, "--quiet"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        // The message names the output folder and may name a staging folder after the process
        // id: both differ between the two runs.
        let text = String(decoding: message, as: UTF8.self).replacingOccurrences(of: out, with: "OUT")
            .replacingOccurrences(of: #"\.(staging|commit|old)-[0-9]+"#, with: ".$1-PID", options: .regularExpression)
        return (process.terminationStatus, text)
    }

    /// A folder's files with the manifest's clock readings removed.
    static func comparable(_ dir: String) throws -> [String: Data] {
        var files = try Support.snapshot(dir)
        if let data = files["/manifest.json"] {
            var manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            for clock in ["timings", "started_utc", "finished_utc"] { manifest.removeValue(forKey: clock) }
            files["/manifest.json"] = try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys])
        }
        return files
    }

    @Test func releaseAndDebugWriteTheSameBytes() throws {
        let release = Support.binary, debug = Support.debugBinary
        #expect(release != debug)
        var compared = 0
        for testCase in try Self.cases() {
            let dir = Support.temporaryDirectory("build-agreement")
            try Self.shareOneManifestKey([dir + "/release", dir + "/debug"])
            let (releaseStatus, releaseMessage) = try Self.run(release, testCase.arguments, out: dir + "/release")
            let (debugStatus, debugMessage) = try Self.run(debug, testCase.arguments, out: dir + "/debug")
            #expect(releaseStatus == debugStatus, "\(testCase): exit \(releaseStatus) (release) against \(debugStatus) (debug)")
            #expect(releaseMessage == debugMessage, "\(testCase): the builds' messages differ")
            let a = try Self.comparable(dir + "/release"), b = try Self.comparable(dir + "/debug")
            #expect(
                Set(a.keys) == Set(b.keys),
                "\(testCase): files only in release \(Set(a.keys).subtracting(b.keys).sorted()), only in debug \(Set(b.keys).subtracting(a.keys).sorted())"
            )
            for (file, bytes) in a.sorted(by: { $0.key < $1.key }) where b[file] != nil {
                #expect(bytes == b[file], "\(testCase): \(file) differs between the release and debug builds")
            }
            if releaseStatus == 0 { compared += a.count }
            try? FileManager.default.removeItem(atPath: dir)
        }
        // The comparison saw real outputs: the sample alone writes a few dozen files.
        #expect(compared > 100)
    }
}
