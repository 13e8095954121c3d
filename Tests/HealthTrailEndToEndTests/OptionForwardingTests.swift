import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit
@testable import HealthTrailRun

/// Every run option given to a cohort run reaches each person's `partial` process: the options
/// `partial` takes are read from the binary's own description of itself, so an option added to
/// the run settings and not forwarded fails here. A cohort forwards the run settings
/// `RunOptionDeclaration.runSettings` declares: an option `partial` takes that is not declared
/// there fails too.
@Suite struct OptionForwardingTests {
    /// What the cohort passes to each `partial` itself (`PersonProcess`), and what no run may
    /// pass on (help, version).
    static let setByTheCohort: Set<String> = [
        "--pipeline", "--out", "--outputs", "--person", "--key-file", "--force",
        "--quiet", "--verbose", "--log-format", "--version", "--help",
    ]

    /// A valid value other than the default for each option a run passes on (nil: a flag).
    static let values: [String: String?] = [
        "--strict": nil, "--source-priority": "iPhone,Watch", "--join-tolerance": "31", "--max-hr": "191",
        "--max-hr-from-birth-date": nil, "--geojson-times": nil, "--ecg-samples": nil, "--no-svg": nil, "--no-report": nil, "--svg-size": "901",
        "--colour-scale": "inferno", "--maps": "routes,density", "--map-area": "48.80,2.25,48.92,2.42",
        "--map-min-points": "7", "--max-expansion-ratio": "301", "--max-uncompressed": "63G", "--log-level": "notice",
        "--format": "csv,parquet", "--split-unit": "mi",
    ]

    /// The long option names of a command, from `--experimental-dump-help`.
    static func longOptions(of command: String) throws -> Set<String> {
        let dump = try Support.runCLI([command, "--experimental-dump-help"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let arguments = try #require((json["command"] as? [String: Any])?["arguments"] as? [[String: Any]])
        return Set(
            arguments.flatMap {
                ($0["names"] as? [[String: Any]] ?? []).compactMap { name in
                    name["kind"] as? String == "long" ? "--" + (name["name"] as? String ?? "") : nil
                }
            })
    }

    /// The options a cohort forwards: the declared run settings, and `--log-level`.
    static let forwarded = Set(RunOptionDeclaration.runSettings.map(\.option)).union(["--log-level"])

    @Test func everyOptionPartialTakesIsDeclaredAndSoForwarded() throws {
        let forwardable = try Self.longOptions(of: "partial").subtracting(Self.setByTheCohort)
        #expect(
            forwardable.subtracting(Self.forwarded).isEmpty,
            "options partial takes that RunOptionDeclaration.runSettings does not declare, so a cohort would not pass them on: \(forwardable.subtracting(Self.forwarded))"
        )
        #expect(Self.forwarded.isSubset(of: forwardable), "declared but not taken by partial: \(Self.forwarded.subtracting(forwardable))")
        #expect(
            Set(Self.values.keys) == Self.forwarded, "forwarded options without a test value here: \(Self.forwarded.subtracting(Self.values.keys))")
        #expect(Set(RunOptionDeclaration.runSettings.map(\.name)).count == RunOptionDeclaration.runSettings.count, "a name declared twice")
    }

    @Test func theCohortPassesOnEveryDeclaredOptionWithItsValueInOrder() throws {
        // Every declared run setting with a value, between options the cohort sets itself.
        var given: [String] = [], expected: [String] = []
        for (index, setting) in RunOptionDeclaration.runSettings.enumerated() {
            let value = try #require(Self.values[setting.option])
            let arguments = [setting.option] + (value.map { [$0] } ?? [])
            #expect(setting.isFlag == (value == nil), "\(setting.option): a flag is declared without a value name")
            // Every other option with a value is given as --name=value.
            let written = value != nil && index % 2 == 1 ? [setting.option + "=" + value!] : arguments
            given += written + (index % 3 == 0 ? ["--force"] : ["--out", "/tmp/o"])
            expected += written
        }
        let line = ["healthtrail", "run", "--pipeline", "p.yaml", "--jobs", "2"] + given + ["--log-level", "notice", "--quiet", "--", "--strict"]
        #expect(RunOptionDeclaration.forwardedArguments(line, alsoWithValue: ["--log-level"]) == expected + ["--log-level", "notice"])
    }

    @Test func everyRunOptionReachesEachPersonsPartial() throws {
        let forwardable = try Self.longOptions(of: "partial").subtracting(Self.setByTheCohort)
        #expect(forwardable == Set(Self.values.keys), "options partial takes without a test value here: \(forwardable.subtracting(Self.values.keys))")
        #expect(forwardable.isSubset(of: try Self.longOptions(of: "run")))

        let (root, pipeline) = try CohortRunTests.study(persons: 2, days: 3, broken: false)
        // --max-hr and --max-hr-from-birth-date exclude each other: two runs.
        for group in [Self.values.keys.filter { $0 != "--max-hr-from-birth-date" }, ["--max-hr-from-birth-date"]] {
            var given: [String] = []
            for option in group.sorted() {
                given.append(option)
                if case .some(.some(let value)) = Self.values[option] { given.append(value) }
            }
            // One trace file per process (-ff), so that two children's execve lines never interleave.
            let traces = root + "/traces-\(given.count)"
            try FileManager.default.createDirectory(atPath: traces, withIntermediateDirectories: true)
            let run = try Support.runProgram(
                "/usr/bin/strace",
                [
                    "-ff", "-v", "-s", "4096", "-e", "trace=execve", "-o", traces + "/t",
                    Support.binary, "run", "--pipeline", pipeline, "--force",
                ] + given)
            #expect(run.status == 0, "\(run.stderr)")
            // execve("/…/healthtrail", ["/…/healthtrail", "partial", …], …) = 0, one per person.
            let partials = try FileManager.default.contentsOfDirectory(atPath: traces).flatMap { file in
                try String(contentsOfFile: traces + "/" + file, encoding: .utf8).split(separator: "\n")
                    .filter { $0.contains("execve(") && $0.contains("\"partial\"") && $0.hasSuffix("= 0") }
            }
            #expect(partials.count == 2)
            if group.contains("--format") {
                // Each person's outputs honour it: their tables as Parquet files too.
                let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
                #expect(files.filter { $0.hasSuffix("/parquet/heart_rate.parquet") }.count == 2, "\(files.filter { $0.contains("parquet") })")
            }
            for line in partials {
                let argv = line.split(separator: "[", maxSplits: 1)[1].split(separator: "]", maxSplits: 1)[0]
                    .split(separator: ", ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
                for option in group {
                    let at = try #require(argv.firstIndex(of: option), "\(option) not passed on: \(argv)")
                    if case .some(.some(let value)) = Self.values[option] { #expect(argv[at + 1] == value, "\(option)") }
                }
            }
        }
    }
}
