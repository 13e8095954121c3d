import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit
@testable import HealthTrailSynth

/// The crontab line of docs/pipelines.md, run as cron would run it: by /bin/sh, with its own $HOME.
@Suite(.serialized) struct CronExampleTests {
    /// The command of the crontab line in the cron example of docs/pipelines.md (the fields after
    /// the five time fields), read from the page itself so the documented line is the tested one.
    static func documentedCronCommand() throws -> String {
        let page = try String(contentsOfFile: Support.packageRoot.path + "/docs/pipelines.md", encoding: .utf8)
        guard let marker = page.range(of: "<!-- cron-example"),
            let block = page[marker.upperBound...].range(of: "```crontab\n"),
            let end = page[block.upperBound...].range(of: "```")
        else {
            throw CronExampleMissing()
        }
        let lines = page[block.upperBound..<end.lowerBound].split(separator: "\n").filter { !$0.hasPrefix("#") }
        guard let line = lines.first else { throw CronExampleMissing() }
        var rest = Substring(line)
        for _ in 0..<5 {   // minute hour day month weekday
            rest = rest.drop { $0 == " " }.drop { $0 != " " }
        }
        return String(rest.drop { $0 == " " })
    }

    struct CronExampleMissing: Error {}

    /// Runs `command` with /bin/sh, as cron does: a small environment with HOME and PATH.
    static func cron(_ command: String, home: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.environment = ["HOME": home, "PATH": "/usr/bin:/bin", "SHELL": "/bin/sh"]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test func theDocumentedCronLineRunsTheNightlyPipeline() throws {
        let command = try Self.documentedCronCommand()
        #expect(command.contains("--pipeline $HOME/pipelines/nightly.yaml"))
        let home = Support.temporaryDirectory("cronhome")
        let fm = FileManager.default
        // As docs/pipelines.md says: pipelines/ copied to ~/pipelines, the binary in ~/bin.
        try fm.createDirectory(atPath: home + "/bin", withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: home + "/bin/healthtrail", withDestinationPath: Support.binary)
        try fm.copyItem(atPath: Support.packageRoot.path + "/pipelines", toPath: home + "/pipelines")
        // Two exports landed; the newer one must be processed.
        try fm.createDirectory(atPath: home + "/HealthExports", withIntermediateDirectories: true)
        _ = try ExportSynthesizer.write(to: home + "/HealthExports/export-old.zip", options: SynthOptions(days: 4, seed: 1))
        _ = try ExportSynthesizer.write(to: home + "/HealthExports/export.zip", options: SynthOptions(days: 6, seed: 2))
        try fm.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -86_400)], ofItemAtPath: home + "/HealthExports/export-old.zip")

        #expect(try Self.cron(command, home: home) == 0)
        let manifest =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: home + "/health/manifest.json"))) as! [String: Any]
        #expect((manifest["input"] as? [String: Any])?["name"] as? String == "export.zip")
        #expect(fm.fileExists(atPath: home + "/health/routes.geojson"))
        #expect(fm.fileExists(atPath: home + "/health/svg/density.svg"))
        #expect(try Support.readCSV(home + "/health/dp/monthly_resting_hr.csv").rows.count == 6)
        var log = try String(contentsOfFile: home + "/healthtrail.log", encoding: .utf8)
        #expect(log.contains("\"event\":\"release.published\""))
        let firstNight = log.split(separator: "\n").count

        // The next night: nothing new, outputs untouched, exit 0 as on a night with a new export
        // (nightly.yaml publishes DP), and as many log lines, none of them saying so.
        let before = try UnattendedRunTests.fingerprint(home + "/health")
        #expect(try Self.cron(command, home: home) == 0)
        #expect(UnattendedRunTests.changed(try UnattendedRunTests.fingerprint(home + "/health"), before) == [])
        log = try String(contentsOfFile: home + "/healthtrail.log", encoding: .utf8)
        #expect(log.split(separator: "\n").count == 2 * firstNight, "\(log)")
        for word in ["run.nothing_new", "run.finished", "workouts=", "\"workouts\"", "\"records\"", "\"seconds\""] {
            #expect(!log.contains(word), "\(word) in \(log)")
        }
        for line in log.split(separator: "\n") {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "not one JSON object: \(line)")
        }
    }
}

/// `run --pipeline`: the file's settings apply, and options on the command line win over them.
@Suite struct PipelineRunTests {
    @Test func commandLineOptionsOverrideThePipelineFile() throws {
        let dir = Support.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/exports", withIntermediateDirectories: true)
        _ = try ExportSynthesizer.write(to: dir + "/exports/export.zip", options: SynthOptions(days: 3, seed: 4))
        try """
        version: 1
        kind: person
        input:
          path: exports
        output: from-file
        outputs: [csv, geojson, svg]
        join_tolerance_s: 10
        maps:
          kinds: [routes]
        """.write(toFile: dir + "/mine.yaml", atomically: true, encoding: .utf8)

        // The file alone: relative paths from the file's folder, its tolerance and maps.
        #expect(try Support.runCLI(["run", "--pipeline", dir + "/mine.yaml", "--quiet"]).status == 0)
        let fromFile = try CohortRunTests.json(dir + "/from-file/manifest.json")
        #expect((fromFile["routes"] as? [String: Any])?["join_tolerance_seconds"] as? Int == 10)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/from-file/svg") == ["routes.svg"])

        // Overrides: another folder, another tolerance, no maps.
        let run = try Support.runCLI([
            "run", "--pipeline", dir + "/mine.yaml", "--out", dir + "/overridden",
            "--join-tolerance", "30", "--no-svg", "--quiet",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let overridden = try CohortRunTests.json(dir + "/overridden/manifest.json")
        #expect((overridden["routes"] as? [String: Any])?["join_tolerance_seconds"] as? Int == 30)
        #expect(!FileManager.default.fileExists(atPath: dir + "/overridden/svg"))
        #expect(FileManager.default.fileExists(atPath: dir + "/overridden/routes.geojson"))
    }

    @Test func anInvalidPipelineExitsWith2AndNamesTheLine() throws {
        let dir = Support.temporaryDirectory()
        try "version: 1\nkind: persn\n".write(toFile: dir + "/typo.yaml", atomically: true, encoding: .utf8)
        let run = try Support.runCLI(["run", "--pipeline", dir + "/typo.yaml"])
        #expect(run.status == 2)
        #expect(run.stderr.contains(dir + "/typo.yaml:2:"))
    }
}
