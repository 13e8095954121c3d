import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit
@testable import HealthTrailRun
@testable import HealthTrailSynth

/// The budget belongs to the data subject, not to an output folder: `healthtrail release` with a
/// fresh `--out` continues it, and every way of resetting it quietly (another limit, another
/// subject's ledger swapped in, the ledger deleted, an earlier ledger left behind) is refused
/// with one line and nothing written.
@Suite struct LedgerAnchorTests {
    static let spec = ReleaseRunnerTests.spec(budget: "2.0")

    static func release(_ dir: String, data: String, spec: String = "spec.yaml", extra: [String] = []) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try Support.runCLI(["release", "--spec", dir + "/" + spec, "--data", dir + "/" + data, "--budget-dir", dir + "/budget"] + extra)
    }

    /// The subject `self`'s ledger in the budget folder.
    static func ledger(_ dir: String) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/budget/ledgers").filter { $0.hasSuffix(".jsonl") }
        return dir + "/budget/ledgers/" + (names.sorted().first ?? "none")
    }

    @Test func aFreshOutputFolderContinuesTheSameBudgetAndResetsAreRefused() throws {
        let dir = Support.temporaryDirectory()
        try Self.spec.write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
        _ = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 20, seed: 8))
        _ = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/first"))

        let first = try Self.release(dir, data: "first")
        #expect(first.status == 0, "\(first.stderr)")
        let ledger = try Self.ledger(dir)
        #expect(first.stdout.hasSuffix("healthtrail: budget ledger: \(ledger)\n"), "\(first.stdout)")
        #expect(!first.stdout.contains("nothing spent"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/first/privacy-ledger.jsonl"))   // not beside the outputs

        // The same outputs in a new folder (a new --out, a restored backup): the same budget,
        // answered from it, the same files, nothing spent.
        try FileManager.default.copyItem(atPath: dir + "/first", toPath: dir + "/second")
        try FileManager.default.removeItem(atPath: dir + "/second/dp")
        let ledgerBytes = FileManager.default.contents(atPath: ledger)
        let second = try Self.release(dir, data: "second")
        #expect(second.status == 0 && second.stdout.components(separatedBy: "(already published: nothing spent)").count == 3, "\(second.stdout)")
        #expect(try Support.snapshot(dir + "/second/dp") == (try Support.snapshot(dir + "/first/dp")))
        #expect(FileManager.default.contents(atPath: ledger) == ledgerBytes)

        func refused(_ result: (status: Int32, stdout: String, stderr: String), _ words: String) {
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(words), "\(result.stderr)")
        }
        // Another limit in the spec: the ledger's is fixed in its first line.
        try Self.spec.replacingOccurrences(of: "epsilon: 2.0", with: "epsilon: 5.0")
            .write(toFile: dir + "/raised.yaml", atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: dir + "/second/dp")
        refused(try Self.release(dir, data: "second", spec: "raised.yaml"), "a ledger's limit never changes")
        #expect(!FileManager.default.fileExists(atPath: dir + "/second/dp/weekly_steps.csv"))

        // Another subject's ledger copied over this one's (its head too).
        #expect(try Self.release(dir, data: "second", extra: ["--subject", "someone"]).status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/budget/ledgers").filter { $0.hasSuffix(".jsonl") }
        let other = dir + "/budget/ledgers/" + (names.first { dir + "/budget/ledgers/" + $0 != ledger } ?? "")
        let saved = try [ledger, ledger + ".head"].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        for suffix in ["", ".head"] {
            try FileManager.default.removeItem(atPath: ledger + suffix)
            try FileManager.default.copyItem(atPath: other + suffix, toPath: ledger + suffix)
        }
        refused(try Self.release(dir, data: "second"), "belongs to another data subject")
        try saved[0].write(to: URL(fileURLWithPath: ledger))
        try saved[1].write(to: URL(fileURLWithPath: ledger + ".head"))

        // The ledger deleted: its head remembers it.
        try FileManager.default.removeItem(atPath: ledger)
        refused(try Self.release(dir, data: "second"), "lines deleted from the end")
        try saved[0].write(to: URL(fileURLWithPath: ledger))
        #expect(try Self.release(dir, data: "second").status == 0)

        // Another budget folder (cron with another $HOME, a lost key) for the same dp/: the files
        // there were published under a ledger this one is not, so nothing is drawn again.
        let elsewhere = try Support.runCLI([
            "release", "--spec", dir + "/spec.yaml", "--data", dir + "/second", "--budget-dir", dir + "/another-budget",
        ])
        refused(elsewhere, "published under another budget ledger")
        #expect(try Support.snapshot(dir + "/second/dp") == (try Support.snapshot(dir + "/first/dp")))

        // Defaults written out are the same release: nothing new is drawn.
        try Self.spec.replacingOccurrences(of: "privacy_unit: day\n", with: "privacy_unit: day\n    cadence: once\n")
            .write(toFile: dir + "/explicit.yaml", atomically: true, encoding: .utf8)
        let explicit = try Self.release(dir, data: "second", spec: "explicit.yaml")
        #expect(explicit.status == 0 && explicit.stdout.components(separatedBy: "nothing spent").count == 3, "\(explicit.stdout)")

        // The budget folder's key lost: a new one would be a new, empty ledger beside the old.
        let key = try Data(contentsOf: URL(fileURLWithPath: dir + "/budget/ledger.key"))
        try FileManager.default.removeItem(atPath: dir + "/budget/ledger.key")
        refused(try Self.release(dir, data: "second"), "restore the key")
        #expect(!FileManager.default.fileExists(atPath: dir + "/budget/ledger.key"))
        try key.write(to: URL(fileURLWithPath: dir + "/budget/ledger.key"))
        chmod(dir + "/budget/ledger.key", 0o600)

        // A ledger an earlier HealthTrail kept beside the outputs is not left behind silently.
        try Data("{}\n".utf8).write(to: URL(fileURLWithPath: dir + "/second/privacy-ledger.jsonl"))
        refused(try Self.release(dir, data: "second"), "a budget ledger of an earlier HealthTrail")
    }

    @Test func aPeriodIsPublishedFromTheSecondDayAfterItEnds() throws {
        let dir = Support.temporaryDirectory()
        try Self.spec.replacingOccurrences(of: "privacy_unit: day\n", with: "privacy_unit: day\n    cadence: week\n")
            .write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
        #expect(try String(contentsOfFile: dir + "/spec.yaml", encoding: .utf8).contains("cadence: week"))
        _ = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 20, seed: 8))
        _ = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out"))

        // 2023-W01 is 2 to 8 January: not due on the 9th, due on the 10th.
        let early = try Self.release(dir, data: "out", extra: ["--as-of", "2023-01-09"])
        #expect(early.status == 0, "\(early.stderr)")
        #expect(early.stdout.contains("healthtrail: weekly_steps: nothing due yet: its first period can be published from 2023-01-10"))
        #expect(early.stdout.contains("healthtrail: runs_per_week: nothing due yet: its first period can be published from 2023-02-28"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/dp/weekly_steps.csv"))

        let week1 = try Self.release(dir, data: "out", extra: ["--as-of", "2023-01-10"])
        #expect(
            week1.stdout.contains("weekly_steps: 1 partitions, ε = 0.5 → \(dir)/out/dp/weekly_steps.csv; next period due 2023-01-17"),
            "\(week1.stdout)")
        let firstRows = try Support.readCSV(dir + "/out/dp/weekly_steps.csv").rows
        #expect(firstRows.map { $0[0] } == ["2023-W01"])

        let week3 = try Self.release(dir, data: "out", extra: ["--as-of", "2023-01-24"])
        #expect(
            week3.stdout.contains(
                "weekly_steps: 3 partitions, ε = 0.5 → \(dir)/out/dp/weekly_steps.csv (2 of 3 periods new); next period due 2023-01-31"),
            "\(week3.stdout)")
        let rows = try Support.readCSV(dir + "/out/dp/weekly_steps.csv").rows
        #expect(rows.map { $0[0] } == ["2023-W01", "2023-W02", "2023-W03"] && rows[0] == firstRows[0])

        let bad = try Self.release(dir, data: "out", extra: ["--as-of", "2023-1-24"])
        #expect(bad.status == 1 && bad.stderr.contains("must be yyyy-MM-dd"))
        // A date to come would publish periods whose data has not come in, for good.
        let future = try Self.release(dir, data: "out", extra: ["--as-of", "2099-01-01"])
        #expect(future.status == 1 && future.stderr.contains("cannot be later than today"), "\(future.stderr)")
    }
}
