import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit
@testable import HealthTrailSynth

/// The `healthtrail` binary as users and cron see it: exit codes, messages, help.
@Suite(.serialized) struct CommandLineTests {
    @Test func helpExplainsTheCommands() throws {
        let (status, out, _) = try Support.runCLI(["--help"])
        #expect(status == 0)
        for word in ["run", "inspect", "synth", "export.zip", "Examples"] { #expect(out.contains(word)) }
        let runHelp = try Support.runCLI(["run", "--help"])
        #expect(runHelp.stdout.contains("--strict") && runHelp.stdout.contains("Exit codes"))
    }

    @Test func aSecondRunOnTheSameFolderExitsWith4() throws {
        let dir = Support.temporaryDirectory()
        let zip = dir + "/export.zip"
        try Support.makeZip(zip, [("apple_health_export/export.xml", Support.exportXML(Support.heartRateRecords))])
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        // Another process holds the folder's lock (flock locks belong to open files, so this
        // open conflicts with the run's own, like a second cron run would).
        let fd = open(dir + "/out/.healthtrail.lock", O_RDWR | O_CREAT, 0o600)
        #expect(flock(fd, LOCK_EX) == 0)
        let busy = try Support.runCLI(["run", zip, "--out", dir + "/out", "--quiet"])
        #expect(busy.status == 4)
        #expect(busy.stderr.contains("another healthtrail run"))
        flock(fd, LOCK_UN); close(fd)
        // A lock file left behind by a run that died is taken over.
        try "999999\n".write(toFile: dir + "/out/.healthtrail.lock", atomically: false, encoding: .utf8)
        let next = try Support.runCLI(["run", zip, "--out", dir + "/out", "--quiet"])
        #expect(next.status == 0)
        #expect(next.stderr.contains("taking over the outputs of run 999999"))
    }

    @Test func anotherOptionIsNotARepeat() throws {
        let dir = Support.temporaryDirectory()
        let zip = dir + "/export.zip"
        try Support.makeZip(zip, [("apple_health_export/export.xml", Support.exportXML(Support.heartRateRecords))])
        #expect(try Support.runCLI(["run", zip, "--out", dir + "/out", "--quiet"]).status == 0)
        #expect(try Support.runCLI(["run", zip, "--out", dir + "/out", "--quiet"]).status == 3)
        #expect(try Support.runCLI(["run", zip, "--out", dir + "/out", "--quiet", "--join-tolerance", "20"]).status == 0)
    }

    @Test func usageErrorsExitWith2() throws {
        let missingOut = try Support.runCLI(["run", "/nonexistent.zip"])
        #expect(missingOut.status == 2)
        #expect(missingOut.stderr.contains("--out"))
        #expect(try Support.runCLI(["frobnicate"]).status == 2)
    }

    @Test func mapOptionsChooseWhatIsDrawn() throws {
        let dir = Support.temporaryDirectory()
        _ = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 3, seed: 1))
        let run = try Support.runCLI([
            "run", dir + "/export.zip", "--out", dir + "/out", "--quiet",
            "--maps", "density,calendars", "--map-area", "10,10,10.1,10.1",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir + "/out/svg").sorted()
        #expect(files.contains("density.svg") && files.contains("calendar-steps.svg"))
        #expect(!files.contains("routes.svg") && !files.contains("workouts"))
        let density = try String(contentsOfFile: dir + "/out/svg/density.svg", encoding: .utf8)
        #expect(density.contains("No route to draw"))   // nothing of this export lies in that area
        #expect(try Support.runCLI(["run", dir + "/export.zip", "--out", dir + "/o2", "--maps", "bogus"]).status == 2)
        #expect(try Support.runCLI(["run", dir + "/export.zip", "--out", dir + "/o2", "--map-area", "1,2,3"]).status == 2)
        let none = try Support.runCLI(["run", dir + "/export.zip", "--out", dir + "/o3", "--quiet", "--no-svg"])
        #expect(none.status == 0 && !FileManager.default.fileExists(atPath: dir + "/o3/svg"))
    }

    @Test func badInputExitsWith1AndOneLineNamingTheFile() throws {
        let dir = Support.temporaryDirectory()
        let zip = dir + "/truncated.zip"
        try Support.makeZip(zip, [("apple_health_export/export.xml", Support.exportXML(Support.heartRateRecords))])
        let data = try Data(contentsOf: URL(fileURLWithPath: zip))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: zip))
        let (status, out, err) = try Support.runCLI(["run", zip, "--out", dir + "/out"])
        #expect(status == 1)
        #expect(out.isEmpty)
        let lines = err.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("healthtrail: error: \(zip):") == true)
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/heart_rate.csv"))
    }

    @Test func runAndInspectSucceedQuietlyOnAGoodArchive() throws {
        let dir = Support.temporaryDirectory()
        let zip = dir + "/export.zip"
        try Support.makeZip(zip, [("apple_health_export/export.xml", Support.exportXML(Support.heartRateRecords))])
        let quiet = try Support.runCLI(["run", zip, "--out", dir + "/out", "--quiet"])
        #expect(quiet.status == 0)
        #expect(quiet.stdout.isEmpty && quiet.stderr.isEmpty)   // silent for cron
        // The same archive again: nothing new (exit 3), outputs untouched; --force redoes it.
        let before = try Support.snapshot(dir + "/out")
        // "nothing new" is logged at info: without a terminal, only when asked for.
        let again = try Support.runCLI(["run", zip, "--out", dir + "/out", "--verbose"])
        #expect(again.status == 3)
        #expect(again.stderr.contains("nothing new") && again.stderr.contains("--force"))
        #expect(try Support.snapshot(dir + "/out") == before)
        let loud = try Support.runCLI(["run", zip, "--out", dir + "/out", "--force", "--verbose"])
        #expect(loud.status == 0)
        #expect(loud.stdout.contains("3 heart-rate samples") && loud.stdout.contains(dir + "/out"))
        // Logs name counts and files, never values.
        #expect(!loud.stdout.contains("131.5") && !loud.stdout.contains("Polar"))

        let inspect = try Support.runCLI(["inspect", zip])
        #expect(inspect.status == 0)
        #expect(inspect.stdout.contains("HKQuantityTypeIdentifierHeartRate"))
        #expect(inspect.stdout.contains("version:  13"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/inspect-wrote-nothing"))
    }
}

/// The zip-bomb limits on the command line: refused by default, with the flag that raises them.
@Suite struct ArchiveLimitFlagTests {
    @Test func theExpansionLimitIsRefusedByDefaultAndRaisedByItsFlag() throws {
        let dir = Support.temporaryDirectory()
        // Two MiB of one repeated record: deflate squeezes it far past 200:1.
        let record =
            "<Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"P\" unit=\"count\" startDate=\"2024-01-02 08:00:00 +0100\" endDate=\"2024-01-02 08:10:00 +0100\" value=\"5\"/>\n"
        let body = String(repeating: record, count: 2 * 1024 * 1024 / record.utf8.count)
        try Support.makeZip(dir + "/dense.zip", [("apple_health_export/export.xml", Support.exportXML(body))])
        let refused = try Support.runCLI(["run", dir + "/dense.zip", "--out", dir + "/out", "--quiet"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("--max-expansion-ratio"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/manifest.json"))
        let raised = try Support.runCLI(["run", dir + "/dense.zip", "--out", dir + "/out", "--quiet", "--max-expansion-ratio", "5000"])
        #expect(raised.status == 0, "\(raised.stderr)")
        let small = try Support.runCLI([
            "run", dir + "/dense.zip", "--out", dir + "/out2", "--quiet",
            "--max-expansion-ratio", "5000", "--max-uncompressed", "1MiB",
        ])
        #expect(small.status == 1)
        #expect(small.stderr.contains("--max-uncompressed"))
    }
}
