import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailSynth

/// What the README, `--help` and the man page promise about a run, checked against the binary:
/// the files it writes, its options, its silence without a terminal, its summary's times, and
/// the counts `inspect` and `run` agree on.
@Suite struct DocumentedPromiseTests {
    static let readme: String = (try? String(contentsOf: Support.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""

    /// Without a terminal (cron) a run that succeeds says nothing; --verbose prints the summary,
    /// whose times are the manifest's: reading export.xml, and the whole run.
    @Test func aRunWithoutATerminalIsSilentAndItsSummaryTellsItsTimesApart() throws {
        let dir = Support.temporaryDirectory()
        let zip = dir + "/export.zip"
        _ = try ExportSynthesizer.write(to: zip, options: SynthOptions(days: 2, seed: 21))
        let silent = try Support.runCLI(["run", zip, "--out", dir + "/silent"])
        #expect(silent.status == 0 && silent.stdout.isEmpty && silent.stderr.isEmpty, "\(silent)")

        let verbose = try Support.runCLI(["run", zip, "--out", dir + "/verbose", "--verbose"])
        #expect(verbose.status == 0, "\(verbose.stderr)")
        #expect(verbose.stderr.contains("run started") && verbose.stderr.contains("run finished"), "\(verbose.stderr)")
        let manifest = try CohortRunTests.json(dir + "/verbose/manifest.json")
        let timings = try #require(manifest["timings"] as? [String: Double])
        let reading = try #require(timings["export_xml_s"]), total = try #require(timings["total_s"])
        let first = try #require(verbose.stdout.split(separator: "\n").first.map(String.init))
        let times = try #require(first.firstMatch(of: #/\) in ([0-9.]+) s; the whole run took ([0-9.]+) s$/#), "\(first)")
        #expect(abs((Double(times.output.1) ?? -1) - reading) < 0.006, "\(first) against export_xml_s \(reading)")
        #expect(abs((Double(times.output.2) ?? -1) - total) < 0.006, "\(first) against total_s \(total)")
    }
}
