import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailSynth

/// The external sort under the cumulative series: sorted runs on disk, merged back.
@Suite struct SortedRunFileTests {
    func randomValues(_ n: Int, seed: UInt64) -> [Int64] {
        var rng = SynthRandom(seed: seed)
        return (0..<n).map { _ in Int64.random(in: -1_000_000...1_000_000, using: &rng) }
    }

    @Test(arguments: [1, 7, 1000, 5000])
    func runsOnDiskComeBackSortedAndComplete(runLength: Int) throws {
        let dir = Support.temporaryDirectory()
        let path = dir + "/values.spill"
        let values = randomValues(3001, seed: UInt64(runLength))
        let file = SortedRunFile<Int64>(path: path, runLength: runLength, by: <)
        for v in values { file.append(v) }
        #expect(file.count == values.count)
        #expect(file.spilledRuns == values.count / runLength)
        if runLength < values.count { #expect(FileManager.default.fileExists(atPath: path)) }
        var out: [Int64] = []
        try file.drain { out.append($0) }
        #expect(out == values.sorted())
        #expect(!FileManager.default.fileExists(atPath: path), "the spill file is removed once read")
        #expect(file.isEmpty)
    }

    @Test func withoutAFileEveryRunStaysInMemory() throws {
        let values = randomValues(500, seed: 9)
        let file = SortedRunFile<Int64>(path: nil, runLength: 16, by: <)
        for v in values { file.append(v) }
        #expect(file.spilledRuns == 0)
        var out: [Int64] = []
        try file.drain { out.append($0) }
        #expect(out == values.sorted())
    }

    @Test func aSpillThatCannotBeWrittenFailsTheReadNotSilently() throws {
        let file = SortedRunFile<Int64>(path: "/nonexistent-dir/values.spill", runLength: 4, by: <)
        for v in randomValues(10, seed: 1) { file.append(v) }
        #expect(throws: InputError.self) { try file.drain { _ in } }
    }
}
