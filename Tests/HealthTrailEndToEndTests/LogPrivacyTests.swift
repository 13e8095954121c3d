import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit
@testable import HealthTrailRun
@testable import HealthTrailSynth

/// No value from the data reaches a log line: the logs of runs over a generated archive are
/// scanned for the values, dates and source names its outputs hold.
@Suite(.serialized) struct LogPrivacyTests {
    /// Values an output holds that would identify data if a log line repeated them: decimals,
    /// local dates and source names (a device name can carry its owner's name).
    static func dataValues(in out: String) throws -> Set<String> {
        var values: Set<String> = []
        let daily = try Support.readCSV(out + "/daily.csv")
        for row in daily.rows { for field in row where field.contains(".") || field.contains("-") { values.insert(field) } }
        let workouts = try Support.readCSV(out + "/workouts.csv")
        for row in workouts.rows { for field in row where field.contains(".") && field.count >= 4 { values.insert(field) } }
        let heart = try Support.readCSV(out + "/heart_rate.csv")
        if let source = heart.header.firstIndex(of: "source") { for row in heart.rows { values.insert(row[source]) } }
        return values.filter { $0.count >= 4 }
    }

    @Test func runAndCohortLogsHoldNoValueFromTheData() throws {
        let dir = Support.temporaryDirectory()
        _ = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 5, seed: 9))
        let run = try Support.runCLI(["run", dir + "/export.zip", "--out", dir + "/out", "--log-level", "trace", "--log-format", "json"])
        #expect(run.status == 0)
        let values = try Self.dataValues(in: dir + "/out")
        #expect(values.count > 50)
        #expect(values.contains { $0.contains("Watch") })

        let (root, pipeline) = try CohortRunTests.study(persons: 2, days: 5)
        let cohort = try Support.runCLI(["run", "--pipeline", pipeline, "--log-level", "trace"])
        #expect(cohort.status == 0)
        var cohortValues: Set<String> = []
        for person in try FileManager.default.contentsOfDirectory(atPath: root + "/study/out/persons") {
            cohortValues.formUnion(try Self.dataValues(in: root + "/study/out/persons/" + person))
        }
        for (log, values) in [(run.stderr, values), (cohort.stderr, cohortValues)] {
            #expect(!log.isEmpty)
            let leaked = values.filter { log.contains($0) }
            #expect(leaked.isEmpty, "log lines carry data values: \(leaked.sorted().prefix(5))")
        }
    }

    // MARK: Text libxml2 and the manifest would copy

    /// A record line with a chosen unit and source name.
    static func record(unit: String = "count", source: String = "Watch") -> String {
        " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"\(source)\" unit=\"\(unit)\" startDate=\"2024-01-01 10:00:00 +0000\" endDate=\"2024-01-01 10:01:00 +0000\" value=\"12\"/>\n"
    }

    /// Runs `body` as export.xml, logging everything; returns the run and its output folder.
    static func run(_ body: String, in dir: String, _ extra: [String] = []) throws -> (status: Int32, stderr: String, out: String) {
        try Support.makeZip(dir + "/export.zip", [("apple_health_export/export.xml", Support.exportXML(body))])
        let run = try Support.runCLI(["run", dir + "/export.zip", "--out", dir + "/out", "--log-level", "trace"] + extra)
        return (run.status, run.stderr, dir + "/out")
    }

    /// libxml2's messages quote the document: an undefined entity inside a source name, a
    /// stray element's name. The error names the file, entry, line and kind of error only.
    @Test func xmlErrorsQuoteNothingFromTheDocument() throws {
        let cases = [
            (Self.record(source: "Alice&Bob_SECRET;s iPhone"), "line 12: malformed XML: undefined entity"),
            (Self.record() + " <SECRETTAG>\n", "line 15: malformed XML: mismatched end tag (element opened on line 13)"),
            (Self.record() + " <Record SECRETATTR=\"1\" SECRETATTR=\"2\"/>\n", "line 13: malformed XML: attribute given twice"),
        ]
        for (body, message) in cases {
            for format in ["text", "json"] {
                let run = try Self.run(body, in: Support.temporaryDirectory(), ["--log-format", format])
                #expect(run.status == 1)
                #expect(run.stderr.contains("entry apple_health_export/export.xml: \(message)"), "\(run.stderr)")
                #expect(!run.stderr.contains("SECRET"), "\(run.stderr)")
            }
        }
    }

    /// Unknown units, unknown activity types and missing route files' paths are text from the
    /// data: the manifest counts them under keyed tags, the same in every run into one folder,
    /// and names them only with --debug-manifest. No log line names them either.
    @Test func theManifestTagsTextFromTheData() throws {
        let dir = Support.temporaryDirectory()
        let body =
            Self.record(unit: "SECRETUNIT") + Self.record(unit: "SECRETUNIT") + """
                 <Workout workoutActivityType="HKWorkoutActivityTypeSECRETACTIVITY" sourceName="Watch" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:10:00 +0100">
                  <WorkoutRoute sourceName="Watch" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:10:00 +0100">
                   <FileReference path="/workout-routes/SECRETPATH.gpx"/>
                  </WorkoutRoute>
                 </Workout>

                """
        struct Names { var unknownUnits: [String: Int], unknownActivityTypes: [String: Int], missingFiles: [String] }
        func manifest(_ out: String) throws -> (text: String, manifest: Names) {
            let data = try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json"))
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let normalisation = try #require(json["normalisation"] as? [String: Any])
            let routes = try #require(json["routes"] as? [String: Any])
            let names = Names(
                unknownUnits: try #require(normalisation["unknown_units"] as? [String: Int]),
                unknownActivityTypes: try #require(normalisation["unknown_activity_types"] as? [String: Int]),
                missingFiles: try #require(routes["missing_files"] as? [String]))
            return (String(decoding: data, as: UTF8.self), names)
        }
        let first = try Self.run(body, in: dir)
        #expect(first.status == 0)
        let (text, m) = try manifest(first.out)
        #expect(!text.contains("SECRET") && !first.stderr.contains("SECRET"), "\(text)")
        let tag = try #require(m.unknownUnits.keys.first)
        #expect(m.unknownUnits.count == 1 && m.unknownUnits[tag] == 2)
        #expect(tag.hasPrefix("h_") && tag.count == 18)
        #expect(m.unknownActivityTypes.count == 1 && m.unknownActivityTypes.values.first == 1)
        #expect(m.missingFiles.count == 1 && m.missingFiles[0].hasPrefix("h_"))
        // The folder's key, owner-only; the tags are the same in the next run.
        var info = stat()
        #expect(stat(first.out + "/" + ManifestNames.keyFileName, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let again = try Self.run(body, in: dir, ["--force"])
        #expect(again.status == 0)
        let (_, m2) = try manifest(again.out)
        #expect(m2.unknownUnits == m.unknownUnits && m2.missingFiles == m.missingFiles)
        #expect(m2.unknownActivityTypes == m.unknownActivityTypes)

        // Another folder, another key: a tag cannot be matched across folders.
        let other = try Self.run(body, in: Support.temporaryDirectory())
        #expect(try manifest(other.out).manifest.unknownUnits.keys.first != tag)

        let debug = try Self.run(body, in: dir, ["--debug-manifest"])
        #expect(debug.status == 0)   // not "nothing new": the manifest changes
        let (_, verbatim) = try manifest(debug.out)
        #expect(verbatim.unknownUnits == ["SECRETUNIT": 2])
        #expect(verbatim.unknownActivityTypes == ["HKWorkoutActivityTypeSECRETACTIVITY": 1])
        #expect(verbatim.missingFiles == ["/workout-routes/SECRETPATH.gpx"])
        #expect(!debug.stderr.contains("SECRET"))
    }
}
