import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailKit
@testable import HealthTrailRun

/// Exact copies of a record are counted once: a run on an export equals, file by file, the run
/// on the same export with its copies removed by `Tests/reference/drop_copies.py`, a script
/// written from the rule in docs/outputs.md that shares no code with HealthTrail.
@Suite struct RecordCopyTests {
    static let script = Support.packageRoot.appendingPathComponent("Tests/reference/drop_copies.py").path

    /// Runs the script; returns the copies it counted, per record type identifier.
    static func dropCopies(_ arguments: [String]) throws -> [String: Int] {
        let result = try Support.runProgram("/usr/bin/env", ["python3", script] + arguments)
        try #require(result.status == 0, "drop_copies.py: \(result.stderr)")
        return try JSONDecoder().decode([String: Int].self, from: Data(result.stdout.utf8))
    }

    /// Every output file but the manifest, by path: what must not depend on copies. The
    /// database is read by the sqlite3 shell, every table but `meta`, which repeats the
    /// manifest's counts of the records as read.
    static func outputs(_ dir: String) throws -> [String: Data] {
        var files = try Support.snapshot(dir).filter { !$0.key.hasSuffix("manifest.json") }
        if files.removeValue(forKey: "/healthtrail.db") != nil {
            let dump = try Support.runProgram("/usr/bin/env", ["sqlite3", "-readonly", dir + "/healthtrail.db", ".dump"])
            try #require(dump.status == 0, "sqlite3: \(dump.stderr)")
            let rows = dump.stdout.split(separator: "\n").filter { !$0.hasPrefix("INSERT INTO meta ") }
            #expect(rows.count > 1_000)
            files["/healthtrail.db (sqlite3 .dump without meta)"] = Data(rows.joined(separator: "\n").utf8)
        }
        return files
    }

    static func run(_ input: String, _ out: String, spillRunLength: Int? = nil) throws -> Manifest {
        var options = RunOptions(inputPath: input, outputDirectory: out)
        options.formats = [.csv, .sqlite]
        if let spillRunLength { options.spillRunLength = spillRunLength }
        return try ExportRun.run(options)
    }

    /// Files that differ between two output folders (missing ones included).
    static func differences(_ a: [String: Data], _ b: [String: Data]) -> [String] {
        Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }.sorted()
    }

    /// The real iOS 11 export: Mi Fit synced its samples again and again, 13,023 copies of
    /// 84,723 records. Before copies were dropped, 2016-08-05 summed 63,160 steps.
    @Test(.enabled(if: Support.hasRealFixtures, "needs ../shared/fixtures/real"))
    func aRealExportsCopiesCountOnce() throws {
        let dir = Support.temporaryDirectory()
        let export = Support.fixture("ericwolter/Export.zip")
        let expected = try Self.dropCopies([export, dir + "/without-copies.zip"])
        #expect(expected.values.reduce(0, +) == 13_023)
        let manifest = try Self.run(export, dir + "/out")
        let reference = try Self.run(dir + "/without-copies.zip", dir + "/reference")
        #expect(manifest.normalisation.recordCopies == expected)
        #expect(reference.normalisation.recordCopies.isEmpty)
        let (a, b) = (try Self.outputs(dir + "/out"), try Self.outputs(dir + "/reference"))
        #expect(a.count > 10)
        #expect(Self.differences(a, b).isEmpty, "files that differ: \(Self.differences(a, b))")
        // The day the copies swelled: its distinct records hold 7,790 Mi Fit and 4,769 iPhone
        // steps, which overlap; counted once, the day has no more than their sum.
        let daily = try Support.readCSV(dir + "/out/daily.csv")
        let day = try #require(daily.rows.first { $0[0] == "2016-08-05" })
        let steps = try #require(Double(day[daily.header.firstIndex(of: "steps")!]))
        #expect(steps >= 7_790 && steps <= 7_790 + 4_769)
    }

    /// A generated export (which has no copies) with thousands of copies scattered among the
    /// records of their type, each with a new creationDate; the runs of the copies go through
    /// the disk (a short run length), as a large export's do.
    @Test func scatteredCopiesOfAGeneratedExportCountOnce() throws {
        let dir = Support.temporaryDirectory()
        let synth = try Support.runProgram(Support.binary, ["synth", dir + "/export.zip", "--days", "6", "--seed", "11"])
        try #require(synth.status == 0, "\(synth.stderr)")
        let original = try Self.run(dir + "/export.zip", dir + "/original")
        #expect(original.normalisation.recordCopies.isEmpty)
        let scattered = try Self.dropCopies([dir + "/export.zip", "-", "--scatter", "3000", "--seed", "5", dir + "/with-copies.zip"])
        #expect(scattered.values.reduce(0, +) == 3_000)
        let removed = try Self.dropCopies([dir + "/with-copies.zip", dir + "/reference.zip"])
        #expect(removed == scattered)
        let manifest = try Self.run(dir + "/with-copies.zip", dir + "/out", spillRunLength: 500)
        _ = try Self.run(dir + "/reference.zip", dir + "/reference")
        #expect(manifest.normalisation.recordCopies == scattered)
        let (a, b) = (try Self.outputs(dir + "/out"), try Self.outputs(dir + "/reference"))
        #expect(Self.differences(a, b).isEmpty, "files that differ: \(Self.differences(a, b))")
        #expect(a.keys.contains("/healthtrail.db (sqlite3 .dump without meta)"))
        // Copies that only differ in where they lie leave the figures of the original export.
        let (daily, originalDaily) = (try Support.readCSV(dir + "/out/daily.csv"), try Support.readCSV(dir + "/original/daily.csv"))
        #expect(daily.rows == originalDaily.rows)
    }

    /// `inspect` counts the copies it would drop, per type, in its JSON and its text.
    @Test(.enabled(if: Support.hasRealFixtures, "needs ../shared/fixtures/real"))
    func inspectCountsTheCopies() throws {
        let export = Support.fixture("ericwolter/Export.zip")
        let json = try Support.runCLI(["inspect", export, "--json", "--quiet"])
        try #require(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let counts = try #require(object["counts"] as? [String: Any])
        let copies = try #require(counts["copies_by_type"] as? [String: Int])
        #expect(copies["HKQuantityTypeIdentifierStepCount"] == 5_158)
        #expect(copies["HKQuantityTypeIdentifierHeartRate"] == 245)
        #expect(copies.values.reduce(0, +) == 13_023)
        let text = try Support.runCLI(["inspect", export, "--quiet"])
        #expect(text.stdout.contains("HKCategoryTypeIdentifierSleepAnalysis  (2461 copies of another record, counted once)"))
    }

    /// The fingerprint tells records apart by each field of the rule, and by nothing else.
    @Test func theFingerprintReadsEveryFieldOfTheRuleAndNoOther() throws {
        func copies(_ records: [String]) throws -> [String: Int] {
            let dir = Support.temporaryDirectory()
            try Support.makeZip(dir + "/export.zip", [("apple_health_export/export.xml", Support.exportXML(records.joined(separator: "\n")))])
            return try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out")).normalisation.recordCopies
        }
        let steps = "HKQuantityTypeIdentifierStepCount"
        func record(
            type: String = steps, source: String = "Phone", unit: String = "count", start: String = "2024-03-01 10:00:00 +0100",
            end: String = "2024-03-01 10:05:00 +0100", value: String = "120", extra: String = ""
        ) -> String {
            " <Record type=\"\(type)\" sourceName=\"\(source)\" unit=\"\(unit)\" startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(value)\"\(extra)/>"
        }
        // Differ only in what the rule leaves out: copies.
        #expect(
            try copies([
                record(), record(extra: " creationDate=\"2024-05-01 10:00:00 +0100\" sourceVersion=\"2\""),
                record(extra: " device=\"&lt;&lt;HKDevice: 0x2834&gt;&gt;\""),
            ]) == [steps: 2])
        // Differ in one field of the rule each: no copies.
        #expect(
            try copies([
                record(), record(source: "Watch"), record(start: "2024-03-01 10:00:01 +0100"), record(end: "2024-03-01 10:05:01 +0100"),
                record(value: "121"), record(type: "HKQuantityTypeIdentifierFlightsClimbed"),
                // The same instant written at another offset is another record as written.
                record(start: "2024-03-01 11:00:00 +0200", end: "2024-03-01 11:05:00 +0200"),
            ]).isEmpty)
    }
}
