import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailRun

/// A run writes at most a small multiple of the export's inflated size into its staging folder
/// (`StagingBudget`): past it the run fails with one line and replaces nothing.
@Suite struct StagingBudgetTests {
    static let sample = Support.packageRoot.appendingPathComponent("data/sample-export.zip").path

    /// With the budget lowered to 256 KiB (no share of the export's size), the bundled sample
    /// passes it: the run fails naming the input and the limit, and the previous run's outputs
    /// stay byte for byte, with no staging folder left behind.
    @Test func aRunPastItsBudgetFailsAndReplacesNothing() throws {
        let out = Support.temporaryDirectory() + "/out"
        _ = try ExportRun.run(RunOptions(inputPath: Self.sample, outputDirectory: out))
        let before = try Support.snapshot(out).filter { !$0.key.hasPrefix("/.") }
        var options = RunOptions(inputPath: Self.sample, outputDirectory: out)
        options.force = true
        options.stagingFactor = 0
        options.stagingAllowance = 256 << 10
        let error = #expect(throws: InputError.self) { try ExportRun.run(options) }
        #expect(error?.file == Self.sample)
        #expect(
            error?.message.hasPrefix("the run would write more than 256 KiB to its staging folder (0 × the export's inflated size + 256 KiB), at ")
                == true)
        #expect(error.map { "\($0)".contains("\n") } == false)
        #expect(try Support.snapshot(out).filter { !$0.key.hasPrefix("/.") } == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix(".staging") }.isEmpty)
    }

    /// The budget counts what is written and gives back what a removed scratch file held.
    @Test func theBudgetCountsWritesAndRemovals() throws {
        let dir = Support.temporaryDirectory()
        let budget = StagingBudget(folder: dir, inflatedBytes: 1_000, input: "export.zip", factor: 4, allowance: 1_000)
        #expect(budget.limit == 5_000)
        budget.activate()
        defer { budget.deactivate() }
        let scratch = try OutputBuffer(path: dir + "/a.spill", bufferSize: 1_024)
        for _ in 0..<3_000 { scratch.append(7) }
        scratch.flush()
        #expect(budget.peakBytes == 3_000)
        scratch.discard()
        #expect(!FileManager.default.fileExists(atPath: dir + "/a.spill"))
        // 3,000 bytes given back: 4,000 more fit, a further 1,001 do not.
        let output = try OutputBuffer(path: dir + "/b.csv", bufferSize: 1_024)
        for _ in 0..<4_000 { output.append(7) }
        output.flush()
        #expect(budget.failure == nil)
        for _ in 0..<1_001 { output.append(7) }
        #expect(throws: InputError.self) { try output.close() }
        #expect(budget.failure?.message.hasSuffix("at b.csv: stopped, nothing was replaced") == true)
        #expect(budget.peakBytes == 4_000)
        // A file outside the folder does not count.
        let elsewhere = try OutputBuffer(path: Support.temporaryDirectory() + "/c.csv", bufferSize: 1_024)
        for _ in 0..<10_000 { elsewhere.append(7) }
        try elsewhere.close()
    }

    /// Real exports stay far inside the default budget (4 × their inflated size + 32 MiB): each
    /// runs within a quarter of it, once its inflated size and 8 MiB.
    @Test(.enabled(if: Support.hasRealFixtures, "../shared/fixtures/real is absent"))
    func realExportsStayFarInsideTheBudget() throws {
        let inputs = [
            Self.sample, Support.fixture("ericwolter/Export.zip"), Support.fixture("k0rventen/test-export.zip"),
        ]
        for input in inputs {
            var options = RunOptions(inputPath: input, outputDirectory: Support.temporaryDirectory() + "/out")
            options.stagingFactor = 1
            options.stagingAllowance = 8 << 20
            options.formats = [.csv, .sqlite, .parquet]
            do { _ = try ExportRun.run(options) } catch { Issue.record("\(input): \(error)") }
        }
    }
}
