import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit
@testable import HealthTrailRun
@testable import HealthTrailSynth

/// DP releases log their own events: `release.published` for each release of a spec that was
/// spent (or replayed); a spec the ledger refuses ends the command with one `release.refused`
/// line; a cohort logs `cohort.finished` however its releases end. No value from the data in
/// any of them.
@Suite struct ReleaseEventTests {
    /// One laplace release of weekly step sums (ρ 0.125 a run) under a budget of ρ 0.2.
    static let spec = "budget:\n  rho: 0.2\nreleases:\n" + CohortFixture.weeklyStepsRelease + "\n"

    /// The JSON log lines of `stderr` whose event is `event`.
    static func events(_ event: String, in stderr: String) throws -> [[String: Any]] {
        try stderr.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
        }.filter { $0["event"] as? String == event }
    }

    @Test func releasesLogPublishedAndRefused() throws {
        let dir = Support.temporaryDirectory()
        try Self.spec.write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
        for seed in [1, 2] as [UInt64] {
            _ = try ExportSynthesizer.write(to: dir + "/p\(seed).zip", options: SynthOptions(days: 20, seed: seed))
            var options = RunOptions(inputPath: dir + "/p\(seed).zip", outputDirectory: dir + "/run\(seed)")
            options.maps = nil
            _ = try ExportRun.run(options)
        }
        func release(_ seed: Int) throws -> (status: Int32, stdout: String, stderr: String) {
            try Support.runCLI([
                "release", "--spec", dir + "/spec.yaml", "--data", dir + "/run\(seed)", "--out", dir + "/dp\(seed)",
                "--ledger", dir + "/ledger.jsonl", "--budget-dir", dir + "/ledger.jsonl" + ".budget", "--quiet", "--log-format", "json",
                "--log-level", "info",
            ])
        }
        let first = try release(1)
        #expect(first.status == 0, "\(first.stderr)")
        let published = try Self.events("release.published", in: first.stderr)
        #expect(published.count == 1)
        #expect(published.first?["release"] as? String == "weekly_steps")
        #expect(published.first?["charged"] as? Bool == true)
        #expect(published.first?["partitions"] as? Int == 4)
        #expect(published.first?["file"] as? String == dir + "/dp1/weekly_steps.csv")
        // The same data again: a replay, logged as such.
        let replay = try release(1)
        #expect(replay.status == 0)
        #expect(try Self.events("release.published", in: replay.stderr).first?["charged"] as? Bool == false)
        // Other data for the same weeks: answered from the ledger, the same file, nothing spent.
        let other = try release(2)
        let otherEvents = try Self.events("release.published", in: other.stderr)
        #expect(other.status == 0 && otherEvents.first?["charged"] as? Bool == false)
        #expect(
            FileManager.default.contents(atPath: dir + "/dp2/weekly_steps.csv") == FileManager.default.contents(atPath: dir + "/dp1/weekly_steps.csv")
        )
        // New terms (noise on 20-step units) are a new release: another ρ 0.125 would pass the
        // budget of 0.2. Refused, nothing published.
        try Self.spec.replacingOccurrences(of: "resolution: 10", with: "resolution: 20").write(
            toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
        try? FileManager.default.removeItem(atPath: dir + "/dp2")
        let refused = try release(2)
        #expect(refused.status == 1)
        // One line, as every failure: the refusal, naming the release and the ledger.
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        let events = try Self.events("release.refused", in: refused.stderr)
        #expect(events.count == 1)
        #expect(events.first?["reason"] as? String == "over_budget")
        #expect(events.first?["level"] as? String == "error")
        let message = events.first?["message"] as? String ?? ""
        #expect(message.hasPrefix("ledger \(dir)/ledger.jsonl: ") && message.contains("release weekly_steps refused"), "\(message)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/dp2/weekly_steps.csv"))
        // As text: the line a person reads.
        let text = try Support.runCLI([
            "release", "--spec", dir + "/spec.yaml", "--data", dir + "/run2", "--out", dir + "/dp2",
            "--ledger", dir + "/ledger.jsonl", "--budget-dir", dir + "/ledger.jsonl" + ".budget", "--quiet",
        ])
        #expect(
            text.status == 1 && text.stderr.hasPrefix("healthtrail: error: ledger ") && text.stderr.hasSuffix("(reason=over_budget)\n"),
            "\(text.stderr)")

        // No value of the released data in the logs: the released CSV's figures, the run's sums.
        let released = try Support.readCSV(dir + "/dp1/weekly_steps.csv")
        let values = Set(released.rows.flatMap { $0 }.filter { $0.contains(".") && $0.count >= 4 })
            .union(try Support.readCSV(dir + "/run1/daily.csv").rows.flatMap { $0 }.filter { $0.contains(".") && $0.count >= 4 })
        #expect(!values.isEmpty)
        for log in [first.stderr, replay.stderr, refused.stderr] {
            let leaked = values.filter { log.contains($0) }
            #expect(leaked.isEmpty, "\(leaked.sorted().prefix(5))")
        }
    }

    @Test func aCohortLogsItsReleasesAndItsEnd() throws {
        let (root, pipeline) = try CohortRunTests.study(persons: 2, days: 5, broken: false)
        let run = try Support.runCLI([
            "run", "--pipeline", pipeline, "--jobs", "2", "--log-format", "json", "--quiet",
            "--log-level", "info",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let cohort = try PipelineFile.load(path: pipeline)
        let ids = cohort.releases?.releases.map(\.id) ?? []
        #expect(!ids.isEmpty)
        let published = try Self.events("release.published", in: run.stderr)
        #expect(published.compactMap { $0["release"] as? String }.sorted() == ids.sorted())
        let finished = try Self.events("cohort.finished", in: run.stderr)
        #expect(finished.count == 1)
        #expect(finished.first?["failed"] as? Int == 0)
        // How many persons, and the time taken, stay in cohort.json: the line is the same for any cohort.
        #expect(finished.first?["persons"] == nil && finished.first?["merged"] == nil && finished.first?["seconds"] == nil)
        #expect(finished.first?["releases"] as? Int == ids.count)
        #expect(finished.first?["releases_refused"] == nil)
        // The end comes after the releases.
        let lines = run.stderr.split(separator: "\n")
        let lastRelease = try #require(lines.lastIndex { $0.contains("\"release.published\"") })
        let end = try #require(lines.firstIndex { $0.contains("\"cohort.finished\"") })
        #expect(lastRelease < end)

        // The shipped cohort's budget (ρ 1) holds one cohort's releases (ρ 1): a new ρ for one
        // of them is another release, refused, and the cohort's end still logged.
        _ = try ExportSynthesizer.write(to: root + "/study/archives/p9.zip", options: SynthOptions(days: 5, seed: 9))
        try CohortRunTests.lowerRestingHRRho(pipeline)
        let again = try Support.runCLI([
            "run", "--pipeline", pipeline, "--jobs", "2", "--log-format", "json", "--quiet",
            "--log-level", "info",
        ])
        #expect(again.status == 1, "\(again.stderr)")
        #expect(try Self.events("release.refused", in: again.stderr).count == 1)
        let end2 = try Self.events("cohort.finished", in: again.stderr)
        #expect(end2.count == 1 && end2.first?["releases_refused"] as? Bool == true)
    }
}
