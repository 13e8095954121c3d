import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit
@testable import HealthTrailSynth

/// The C compiler the counter is built with: cc, gcc or clang on PATH (nil: none).
private let cCompiler: String? = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for name in ["cc", "gcc", "clang"] {
        for dir in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
            return "\(dir)/\(name)"
        }
    }
    return nil
}()

#if os(Linux)
private let canCountAllocations = cCompiler != nil
private let allocationGuardSkipReason: Comment = "no C compiler (cc, gcc or clang) on PATH: the allocation counter cannot be built"
#else
private let canCountAllocations = false
private let allocationGuardSkipReason: Comment = "the allocation counter interposes glibc's malloc: Linux only"
#endif

/// The hot path (decoding records, writing CSV rows, reading route points) must not allocate per
/// record, item or route point: the allocation guard.
///
/// The CLI runs under an LD_PRELOAD counter of malloc, calloc, realloc, posix_memalign and
/// aligned_alloc (malloc_counter.c, compiled here) on two archives of the project's generator, 3
/// and 9 days of the same seed. What a run allocates once (start-up, Swift metadata, buffers, one
/// file per output) is the same in both, so the difference of the two counts divided by the
/// difference of their items is what each extra item costs. Items are the manifest's records (heart
/// rate included), route points and beat-to-beat HRV entries: every row the CLI decodes and writes.
///
/// libxml2's own allocations are counted apart (the counter attributes each call to the library
/// it comes from) and left out: libxml2 allocates about 3 times per `<Record>` of these exports
/// (two mallocs and a realloc inside `xmlParseChunk`), and the benchmark's floor, with empty
/// callbacks, makes as many — the cost of the chosen parser, which HealthTrail's code cannot remove. Everything
/// else counts: Swift's runtime, Foundation, zlib and HealthTrail's own code.
///
/// It runs the release build of the CLI (`make test` builds it first): the claim is about the
/// binary users run, and a debug build allocates about 23 times per item (unspecialised generics,
/// closure contexts, no stack promotion), which would drown the signal. A release binary missing or
/// older than Sources/ fails the test with the command that builds it, rather than measuring old
/// code. Linux only (the counter uses glibc's `__libc_malloc` entry points), and only where a C
/// compiler exists; the suite is skipped with that reason otherwise.
@Suite(.enabled(if: canCountAllocations, allocationGuardSkipReason))
struct AllocationGuardTests {
    /// Allocations per extra item above which the guard fails.
    ///
    /// Measured (release build) on this test's archives: 0.036 per item (809 more allocations for
    /// 22,213 more items: days, workouts, sorted runs), three runs within ±5 allocations. It was
    /// 0.479 until cumulative de-duplication stopped returning a new array of gaps per sample.
    /// The margin of 0.064 per item (≈ 1,400 allocations) is far above the noise. One allocation
    /// more per `<Record>` adds 0.62 per item, per route point 0.33, per heart-rate sample alone
    /// 0.15: each crosses the limit (an extra `String` of the record type in `startRecord()`
    /// measured 1.10). One per HRV beat alone (0.05) would not.
    static let allocationsPerItemLimit = 0.1

    /// One run's allocations: all of them, and those libxml2 made itself.
    struct Count {
        var total: Int
        var libxml2: Int
        var own: Int { total - libxml2 }
    }

    /// Runs `healthtrail run --no-svg` on `archive` under the counter; returns its count and the
    /// number of items (records, route points, HRV beats) its manifest says it decoded.
    func countedRun(_ archive: String, binary: String, counter: String, in dir: String) throws -> (count: Count, items: Int) {
        let out = dir + "/out-" + URL(fileURLWithPath: archive).deletingPathExtension().lastPathComponent
        let countFile = out + ".count"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["run", archive, "--out", out, "--no-svg", "--quiet"]
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = counter
        environment["MALLOC_COUNTER_OUT"] = countFile
        environment["MALLOC_COUNTER_SEPARATE"] = "libxml2"
        process.environment = environment
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "healthtrail run \(archive) failed")

        // One line per process: the CLI starts none for a plain run.
        let lines = try String(contentsOfFile: countFile, encoding: .utf8).split(separator: "\n")
        try #require(lines.count == 1, "\(countFile): \(lines.count) lines")
        var fields: [String: Int] = [:]
        for field in lines[0].split(separator: " ") {
            let parts = field.split(separator: "=")
            if parts.count == 2, let value = Int(parts[1]) { fields[String(parts[0])] = value }
        }
        let count = Count(total: try #require(fields["total"]), libxml2: try #require(fields["separate"]))

        let data = try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let counts = try #require(manifest["counts"] as? [String: Any])
        let records = try #require(counts["records_by_type"] as? [String: Int]).values.reduce(0, +)
        let points = try #require(counts["route_points"] as? Int)
        let beats = try #require(counts["hrv_beats"] as? Int)
        return (count, records + points + beats)
    }

    @Test func extraRecordsCostNoAllocationEach() throws {
        let binary = Support.binary
        let dir = Support.temporaryDirectory()
        let counter = dir + "/malloc_counter.so"
        let source = Support.packageRoot.appendingPathComponent("Tests/HealthTrailEndToEndTests/malloc_counter.c").path
        let cc = Process()
        cc.executableURL = URL(fileURLWithPath: try #require(cCompiler))
        cc.arguments = ["-shared", "-fPIC", "-O2", "-o", counter, source]
        try cc.run()
        cc.waitUntilExit()
        try #require(cc.terminationStatus == 0, "cc could not build \(source)")

        var runs: [(count: Count, items: Int)] = []
        for days in [3, 9] {
            let archive = dir + "/export-\(days)d.zip"
            _ = try ExportSynthesizer.write(to: archive, options: SynthOptions(days: days, seed: 9))
            runs.append(try countedRun(archive, binary: binary, counter: counter, in: dir))
        }
        let (small, large) = (runs[0], runs[1])

        // The counter saw libxml2's calls (telling them apart works) and the archives differ enough.
        // libxml2 allocates ≈ 0.6 times per item since the device values are emptied before it
        // reads them (its slow attribute path allocated per value: ≈ 3 per record before).
        #expect(
            large.count.libxml2 > small.count.libxml2 && small.count.libxml2 > small.items / 4,
            "libxml2's own: \(small.count.libxml2) → \(large.count.libxml2) for \(small.items) → \(large.items) items")
        #expect(large.items > 2 * small.items)
        let perItem = Double(large.count.own - small.count.own) / Double(large.items - small.items)
        #expect(
            perItem < Self.allocationsPerItemLimit,
            """
            \(String(format: "%.3f", perItem)) allocations per extra item (limit \(Self.allocationsPerItemLimit)): \
            own \(small.count.own) → \(large.count.own) for \(small.items) → \(large.items) items \
            (libxml2's own: \(small.count.libxml2) → \(large.count.libxml2))
            """)
        // A longer export has more days and workouts, each with a few allocations of its own: a
        // counter that stopped seeing Swift's calls (a changed allocator entry point) fails here
        // instead of passing on zero.
        #expect(large.count.own > small.count.own)
    }
}
