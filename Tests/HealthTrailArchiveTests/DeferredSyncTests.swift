import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailCommit
@testable import HealthTrailSynth

/// Whole output files (SVG maps) are written at once and fsynced on the thread of
/// `WriteBehindQueue.fileSyncs`. That must not change what lands in the output folder, nor let
/// a file be committed before its fsync.
@Suite struct DeferredSyncTests {
    @Test func filesWrittenBeforeCommitLandWhole() throws {
        let out = Support.temporaryDirectory()
        let staging = try OutputStaging(outputDirectory: out)
        var expected: [String: [UInt8]] = [:]
        var random = SynthRandom(seed: 5)
        // More files than there are slots for open descriptors (64): writers must wait, not fail.
        for i in 0..<300 {
            let bytes = (0..<(1 + Int(random.next() % 20_000))).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let name = "svg/workouts/w\(i).svg"
            try staging.writeFile(bytes, to: staging.path(name))
            expected[name] = bytes
        }
        try staging.commit(replacing: [])
        for (name, bytes) in expected {
            let path = out + "/" + name
            #expect(FileManager.default.contents(atPath: path).map(Array.init) == bytes, "\(name)")
            let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            #expect(mode == 0o600, "\(name): \(String(mode, radix: 8))")
        }
        // Every descriptor was closed: opening 1,000 files still works far below the usual limit.
        let probe = (0..<1000).map { _ in open("/dev/null", O_RDONLY) }
        #expect(probe.allSatisfy { $0 >= 0 })
        probe.forEach { close($0) }
    }

    @Test func aFileThatCannotBeWrittenFailsAtOnce() throws {
        let out = Support.temporaryDirectory()
        let staging = try OutputStaging(outputDirectory: out)
        // /dev/full refuses every write: the error names the file and comes from writeFile itself.
        #expect(throws: InputError.self) { try staging.writeFile([1, 2, 3], to: "/dev/full") }
        try staging.commit(replacing: [])   // nothing pending: the failed write left no fsync behind
    }
}
