import Foundation
import Testing
@testable import HealthTrailKit

/// The `healthtrail` binary as users and cron see it: exit codes, messages, help.
@Suite(.serialized) struct CommandLineTests {
    @Test func helpExplainsTheCommands() throws {
        let (status, out, _) = try Support.runCLI(["--help"])
        #expect(status == 0)
        for word in ["run", "inspect", "synth", "export.zip", "Examples"] { #expect(out.contains(word)) }
        let runHelp = try Support.runCLI(["run", "--help"])
        #expect(runHelp.stdout.contains("--strict") && runHelp.stdout.contains("Exit codes"))
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
        let run = try Support.runCLI(["run", dir + "/export.zip", "--out", dir + "/out", "--quiet",
                                      "--maps", "density,calendars", "--map-area", "10,10,10.1,10.1"])
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
        try Support.makeZip(zip, [("apple_health_export/export.xml", Support.exportXML(ExportDecoderTests.heartRate))])
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
        try Support.makeZip(zip, [("apple_health_export/export.xml", Support.exportXML(ExportDecoderTests.heartRate))])
        let quiet = try Support.runCLI(["run", zip, "--out", dir + "/out", "--quiet"])
        #expect(quiet.status == 0)
        #expect(quiet.stdout.isEmpty && quiet.stderr.isEmpty)   // silent for cron
        let loud = try Support.runCLI(["run", zip, "--out", dir + "/out"])
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
