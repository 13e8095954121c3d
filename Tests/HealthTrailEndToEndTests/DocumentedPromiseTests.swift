import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailSynth

/// What the README, `--help` and the man page promise about a run, checked against the binary:
/// the files it writes, its options, its silence without a terminal, its summary's times, and
/// the counts `inspect` and `run` agree on.
@Suite struct DocumentedPromiseTests {
    static let readme: String = (try? String(contentsOf: Support.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""

    /// A run of a generated archive with every output and format: its folder.
    static func fullRun(_ dir: String) throws -> String {
        let zip = dir + "/export.zip"
        _ = try ExportSynthesizer.write(to: zip, options: SynthOptions(days: 3, seed: 12))
        let out = dir + "/out"
        let run = try Support.runCLI(["run", zip, "--out", out, "--format", "csv,sqlite,parquet", "--ecg-samples", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        return out
    }

    /// The names a run's folder holds at its top (a folder as `name/`), the lock file aside.
    static func topLevelNames(_ out: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: out).filter { !$0.hasPrefix(".") }.map { name in
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: out + "/" + name, isDirectory: &isFolder)
            return isFolder.boolValue ? name + "/" : name
        }.sorted()
    }

    @Test func runHelpAndTheReadmeNameEveryFileARunWrites() throws {
        let out = try Self.fullRun(Support.temporaryDirectory())
        let names = try Self.topLevelNames(out)
        for expected in ["splits.csv", "best_efforts.csv", "healthtrail.db", "parquet/", "ecg_samples.csv", "records/", "svg/"] {
            #expect(names.contains(expected), "\(expected) not written: \(names)")
        }
        let help = try Support.runCLI(["run", "--help"])
        let helpRun = try Support.runCLI(["help", "run"])
        #expect(help.status == 0 && helpRun.status == 0)
        for name in names {
            #expect(help.stdout.contains(name), "run --help does not name \(name)")
            #expect(helpRun.stdout.contains(name), "help run does not name \(name)")
            #expect(Self.readme.contains(name), "the README does not name \(name)")
        }
    }

    @Test func theReadmeListsEveryOptionOfRun() throws {
        let help = try Support.runCLI(["run", "--help"])
        #expect(help.status == 0)
        let options = Set(help.stdout.matches(of: #/--[a-z][a-z0-9-]*[a-z0-9]/#).map { String($0.output) })
        #expect(options.count > 20, "\(options.sorted())")
        for option in ["--split-unit", "--max-expansion-ratio", "--max-uncompressed"] { #expect(options.contains(option)) }
        for option in options.sorted() {
            #expect(Self.readme.contains(option), "the README does not mention \(option)")
        }
    }

    /// A shell continuation (`\` at the end of an example's line) reads as a stray `\` once the
    /// help is wrapped: no command's help has one.
    @Test func noHelpHasAStrayBackslash() throws {
        for command in ["run", "validate", "partial", "merge", "release", "keygen", "inspect", "synth"] {
            let help = try Support.runCLI(["help", command])
            #expect(help.status == 0, "\(command)")
            for line in help.stdout.split(separator: "\n") {
                #expect(!line.trimmingCharacters(in: .whitespaces).hasSuffix("\\"), "help \(command): \(line)")
            }
            // Each example is one line: none wrapped onto a line of its own.
            let examples = help.stdout.components(separatedBy: "Example").dropFirst().first?.components(separatedBy: "\n\n").first ?? ""
            for line in examples.split(separator: "\n").dropFirst() {
                #expect(line.hasPrefix("  "), "help \(command): an example wrapped: \(line)")
            }
        }
    }

    /// Every pipeline file the README and the pipeline docs point to validates, and the
    /// `formats:` key the README mentions is shown in the shipped nightly pipeline.
    @Test func everyPipelineTheDocsMentionValidates() throws {
        let docs = try ["README.md", "docs/pipelines.md", "pipelines/README.md"].map {
            try String(contentsOf: Support.packageRoot.appendingPathComponent($0), encoding: .utf8)
        }.joined(separator: "\n")
        let mentioned = Set(docs.matches(of: #/pipelines\/([a-z]+)\.yaml/#).map { String($0.output.1) })
        #expect(mentioned.isSuperset(of: ["nightly", "cohort", "releases"]), "\(mentioned.sorted())")
        // releases.yaml is a release spec, read by release --spec and by a pipeline's releases.
        for name in mentioned.sorted() where name != "releases" {
            let path = Support.packageRoot.appendingPathComponent("pipelines/\(name).yaml").path
            let result = try Support.runCLI(["validate", path])
            #expect(result.status == 0, "\(name).yaml: \(result.stderr)")
        }
        let plan = try Support.runCLI(["release", "--spec", Support.packageRoot.appendingPathComponent("pipelines/releases.yaml").path, "--plan"])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(Self.readme.contains("`formats:`"))
        let nightly = try String(contentsOf: Support.packageRoot.appendingPathComponent("pipelines/nightly.yaml"), encoding: .utf8)
        #expect(nightly.contains("\nformats: "))
    }

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
