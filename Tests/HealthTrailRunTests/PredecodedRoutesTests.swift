import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailRun
@testable import HealthTrailSynth

/// Route files are decoded while export.xml is parsed, into spill files, and replayed once the
/// join is built. The replay must hand over exactly what decoding the file then would have:
/// the same points, the same CSV columns byte for byte, the same faults, the same first error.
@Suite struct PredecodedRoutesTests {
    /// What decoding `entry` directly gives: points with their rendered columns, and faults.
    static func decodeDirectly(_ entry: ArchiveEntry, of source: ExportSource) throws
        -> (points: [(RoutePoint, String)], faults: Int, first: Int64?)
    {
        let log = FaultLog(file: source.displayName, strict: false)
        var points: [(RoutePoint, String)] = []
        let decoder = GPXDecoder(faults: log, fileName: source.displayName, entryName: entry.path) { point, raw in
            var columns: [UInt8] = []
            raw.render { $0.append(to: &columns) }
            points.append((point, String(decoding: columns, as: UTF8.self)))
        }
        try source.read(entry) { try decoder.feed($0) }
        try decoder.finish()
        return (points, log.total, decoder.firstUTC)
    }

    static func routeEntries(_ source: ExportSource) -> [ArchiveEntry] {
        source.entries.filter { $0.path.hasSuffix(".gpx") }.sorted { $0.path < $1.path }
    }

    /// Zipped, small files are parsed whole; unzipped, every file streams in chunks, and the
    /// background threads hand the ones they are part-way through to the waiting thread,
    /// which calls `wait()` at once here: either way each file's points are replayed whole.
    @Test(arguments: [false, true])
    func replayHandsOverWhatDecodingGives(unzipped: Bool) throws {
        let dir = Support.temporaryDirectory()
        // Enough files for both threads to take several, and one big enough to cross the
        // reader's 1 MiB blocks (records must be read whole across a block boundary).
        var entries: [(String, String)] = []
        for k in 0..<9 {
            let count = k == 4 ? 12_000 : 40 + k * 13
            entries.append(
                (
                    "apple_health_export/workout-routes/route_\(k).gpx",
                    Support.gpx(start: 1_700_000_000 + Int64(k) * 86_400, count: count, badPoint: k == 2 ? 7 : nil)
                ))
        }
        let source: ExportSource
        if unzipped {
            for (name, text) in entries + [("apple_health_export/export.xml", Support.exportXML(""))] {
                try FileManager.default.createDirectory(
                    atPath: dir + "/" + (name as NSString).deletingLastPathComponent,
                    withIntermediateDirectories: true)
                try text.write(toFile: dir + "/" + name, atomically: false, encoding: .utf8)
            }
            source = try openExportSource(path: dir + "/apple_health_export")
        } else {
            try Support.makeZip(dir + "/routes.zip", entries)
            source = try openExportSource(path: dir + "/routes.zip")
        }
        let files = Self.routeEntries(source)
        #expect(files.count == 9)
        let spills = [dir + "/a.spill", dir + "/b.spill", dir + "/c.spill"]
        let routes = PredecodedRoutes(
            entries: files, source: source, spillPaths: spills,
            faults: FaultLog(file: source.displayName, strict: false),
            progress: ProgressLine(totalBytes: 1, enabled: false))
        try routes.wait()
        var total = 0
        for (index, entry) in files.enumerated() {
            let expected = try Self.decodeDirectly(entry, of: source)
            var replayed: [(RoutePoint, String)] = []
            let count = try routes.replay(index) { point, columns in replayed.append((point, columns.string)) }
            #expect(count == expected.points.count && replayed.count == count, "\(entry.path)")
            for (a, b) in zip(replayed, expected.points) {
                #expect(a.0 == b.0 && a.1 == b.1, "\(entry.path): \(a) vs \(b)")
            }
            #expect(routes.faults(of: index).total == expected.faults, "\(entry.path)")
            #expect(try routes.firstUTC(of: index) == expected.first)
            total += count
        }
        #expect(total > 12_000)
        #expect(routes.faults(of: 2).total == 1 && routes.faults(of: 2).countsByKind["non_numeric_value"] == 1)
        // Absent fields stay absent: the first point of each file has no elevation and empty columns.
        var first: (RoutePoint, String)?
        try routes.replay(0) { point, columns in if first == nil { first = (point, columns.string) } }
        #expect(first?.0.elevation == nil && first?.0.speed == nil && first?.1 == "48.8500,2.350000,,,,,")
        routes.remove()
        #expect(spills.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
    }

    /// A progress line that holds the first thread to report until another thread reports: the
    /// background thread stays part-way through its file until the waiting thread has arrived.
    final class GatedProgress: BackgroundProgress, @unchecked Sendable {
        private let lock = NSLock()
        private var counted = 0, gated = false, released = false
        let midFile = DispatchSemaphore(value: 0)
        private let release = DispatchSemaphore(value: 0)
        private var gatedThread: pthread_t?

        var total: Int { lock.withLock { counted } }

        func advanceInBackground(_ bytes: Int) {
            let (gate, open): (Bool, Bool) = lock.withLock {
                counted += bytes
                if !gated {
                    gated = true
                    gatedThread = pthread_self()
                    return (true, false)
                }
                if !released, let gatedThread, pthread_equal(gatedThread, pthread_self()) == 0 {
                    released = true
                    return (false, true)
                }
                return (false, false)
            }
            if gate { midFile.signal(); release.wait() }
            if open { release.signal() }
        }
    }

    /// A background thread that hands its file back part-way has counted some of it into the
    /// progress line; the waiting thread decodes the file again from the start and counts only
    /// the rest, so the line ends at the bytes the files hold.
    @Test func aFileHandedBackIsCountedOnce() throws {
        let dir = Support.temporaryDirectory() + "/apple_health_export"
        try FileManager.default.createDirectory(atPath: dir + "/workout-routes", withIntermediateDirectories: true)
        // Unzipped, every file streams in chunks: the big one spans several.
        let big = Support.gpx(start: 1_700_000_000, count: 12_000), small = Support.gpx(start: 1_700_100_000, count: 40)
        try big.write(toFile: dir + "/workout-routes/route_0.gpx", atomically: false, encoding: .utf8)
        try small.write(toFile: dir + "/workout-routes/route_1.gpx", atomically: false, encoding: .utf8)
        try Support.exportXML("").write(toFile: dir + "/export.xml", atomically: false, encoding: .utf8)
        #expect(big.utf8.count > 2 * ZipArchive.chunkSize)
        let source = try openExportSource(path: dir)
        let files = Self.routeEntries(source)
        let progress = GatedProgress()
        // One background thread: it takes route_0 and is held at its first chunk until the
        // waiting thread, which takes route_1, reports; its next chunk then hands route_0 back.
        let routes = PredecodedRoutes(
            entries: files, source: source, spillPaths: [dir + "/../a.spill", dir + "/../b.spill"],
            faults: FaultLog(file: source.displayName, strict: false), progress: progress)
        progress.midFile.wait()
        try routes.wait()
        #expect(progress.total == big.utf8.count + small.utf8.count)
        #expect(try routes.replay(0) { _, _ in } == 12_000)
        #expect(try routes.replay(1) { _, _ in } == 40)
        routes.remove()
    }

    @Test func aFailingFileKeepsItsErrorForItsTurn() throws {
        let dir = Support.temporaryDirectory()
        var entries: [(String, String)] = []
        for k in 0..<6 {
            var text = Support.gpx(start: 1_700_000_000 + Int64(k) * 86_400, count: 30)
            if k == 2 { text = String(text.prefix(400)) + "<trkpt lat=\"1\" lon=\"2\"></gpx>" }   // mismatched tag
            entries.append(("apple_health_export/workout-routes/route_\(k).gpx", text))
        }
        try Support.makeZip(dir + "/routes.zip", entries)
        let source = try openExportSource(path: dir + "/routes.zip")
        let files = Self.routeEntries(source)
        let routes = PredecodedRoutes(
            entries: files, source: source, spillPaths: [dir + "/a.spill", dir + "/b.spill"],
            faults: FaultLog(file: source.displayName, strict: false),
            progress: ProgressLine(totalBytes: 1, enabled: false))
        try routes.wait()
        #expect(try routes.replay(0) { _, _ in } == 30)
        #expect(try routes.replay(1) { _, _ in } == 30)
        var before = 0
        let error = #expect(throws: InputError.self) { try routes.replay(2) { _, _ in before += 1 } }
        #expect(
            error?.description.contains("route_2.gpx") == true && error?.description.contains("line") == true,
            "\(String(describing: error))")
        #expect(before > 0, "the valid points before the error are still handed over")
    }

    @Test func aRunWhoseRoutesFailLeavesTheOutputsAsTheyWere() throws {
        let dir = Support.temporaryDirectory()
        _ = try ExportSynthesizer.write(to: dir + "/good.zip", options: SynthOptions(days: 6, seed: 5))
        var options = RunOptions(inputPath: dir + "/good.zip", outputDirectory: dir + "/out")
        _ = try ExportRun.run(options)
        let before = try Support.snapshot(dir + "/out")

        // The same export with one route file cut short.
        let good = try openExportSource(path: dir + "/good.zip")
        let routeFile = try #require(Self.routeEntries(good).first)
        var entries: [(String, String)] = []
        for entry in good.entries where !entry.path.hasSuffix("/") {
            var bytes: [UInt8] = []
            try good.read(entry) { $0.append(to: &bytes) }
            if entry.path == routeFile.path { bytes = Array(bytes.prefix(bytes.count / 2)) }
            entries.append((entry.path, String(decoding: bytes, as: UTF8.self)))
        }
        try Support.makeZip(dir + "/cut.zip", entries)
        options.inputPath = dir + "/cut.zip"
        let error = #expect(throws: InputError.self) { try ExportRun.run(options) }
        #expect(error?.description.contains(routeFile.path) == true, "\(String(describing: error))")
        #expect(try Support.snapshot(dir + "/out") == before)
        let left = try #require(FileManager.default.subpaths(atPath: dir + "/out"))
        #expect(left.filter { $0.hasSuffix(".spill") || $0.contains(".staging-") }.isEmpty, "\(left)")
    }

    @Test func aBrokenExportStopsTheRouteDecodingAndLeavesNothing() throws {
        let dir = Support.temporaryDirectory()
        var entries: [(String, String)] = [
            (
                "apple_health_export/export.xml",
                Support.prolog + "<Record type=\"HKQuantityTypeIdentifierStepCount\" <oops/>\n"
            )
        ]
        for k in 0..<40 {
            entries.append(
                (
                    "apple_health_export/workout-routes/route_\(k).gpx",
                    Support.gpx(start: 1_700_000_000 + Int64(k) * 86_400, count: 3_000)
                ))
        }
        try Support.makeZip(dir + "/broken.zip", entries)
        let options = RunOptions(inputPath: dir + "/broken.zip", outputDirectory: dir + "/out")
        let error = #expect(throws: InputError.self) { try ExportRun.run(options) }
        #expect(error?.description.contains("export.xml") == true, "\(String(describing: error))")
        let left = try #require(FileManager.default.subpaths(atPath: dir + "/out"))
        #expect(left.filter { $0.hasSuffix(".spill") || $0.contains(".staging-") }.isEmpty, "\(left)")
    }
    @Test func removingWhileDecodingStopsTheThreadsFirst() throws {
        let dir = Support.temporaryDirectory()
        var entries: [(String, String)] = []
        for k in 0..<30 {
            entries.append(
                (
                    "apple_health_export/workout-routes/route_\(k).gpx",
                    Support.gpx(start: 1_700_000_000 + Int64(k) * 86_400, count: 4_000)
                ))
        }
        try Support.makeZip(dir + "/routes.zip", entries)
        let source = try openExportSource(path: dir + "/routes.zip")
        let spills = [dir + "/a.spill", dir + "/b.spill"]
        // A run that fails at once removes the spill files while both threads are decoding: they
        // must be stopped and waited for (not left writing into unlinked files and `readers`).
        for _ in 0..<5 {
            let routes = PredecodedRoutes(
                entries: Self.routeEntries(source), source: source, spillPaths: spills,
                faults: FaultLog(file: source.displayName, strict: false),
                progress: ProgressLine(totalBytes: 1, enabled: false))
            routes.remove()
            // A thread still running would have created or still be writing its spill file.
            usleep(100_000)
            #expect(spills.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
        }
    }

    /// The last reference to a finished run's routes can go late (a decoding thread lets go of
    /// it last): its `deinit` must not delete the files another run now keeps at those paths.
    @Test func aLateReleaseLeavesTheNextRunsSpillFiles() throws {
        let dir = Support.temporaryDirectory()
        try Support.makeZip(
            dir + "/routes.zip",
            (0..<4).map {
                ("apple_health_export/workout-routes/route_\($0).gpx", Support.gpx(start: 1_700_000_000 + Int64($0) * 86_400, count: 30))
            })
        let source = try openExportSource(path: dir + "/routes.zip")
        let spills = [dir + "/a.spill", dir + "/b.spill"]
        let make = {
            PredecodedRoutes(
                entries: Self.routeEntries(source), source: source, spillPaths: spills,
                faults: FaultLog(file: source.displayName, strict: false),
                progress: ProgressLine(totalBytes: 1, enabled: false))
        }
        var earlier: PredecodedRoutes? = make()
        try earlier?.wait()
        earlier?.remove()
        let later = make()
        try later.wait()
        earlier = nil
        #expect(spills.allSatisfy { FileManager.default.fileExists(atPath: $0) })
        #expect(try later.replay(0) { _, _ in } == 30)
        later.remove()
        #expect(spills.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
    }

    @Test func filesAfterTheFirstFailureCountAsNotDecoded() throws {
        let dir = Support.temporaryDirectory()
        // Files 1 and 5 are both broken and hold no point. Whichever thread got to file 5 before
        // file 1 failed, file 5 must look undecoded: the run reports file 1's error, always.
        var entries: [(String, String)] = []
        for k in 0..<8 {
            let text = k == 1 || k == 5 ? "<gpx><trk><trkseg></gpx>" : Support.gpx(start: 1_700_000_000 + Int64(k) * 86_400, count: 20)
            entries.append(("apple_health_export/workout-routes/route_\(k).gpx", text))
        }
        try Support.makeZip(dir + "/routes.zip", entries)
        let source = try openExportSource(path: dir + "/routes.zip")
        for _ in 0..<10 {
            let routes = PredecodedRoutes(
                entries: Self.routeEntries(source), source: source,
                spillPaths: [dir + "/a.spill", dir + "/b.spill"],
                faults: FaultLog(file: source.displayName, strict: false),
                progress: ProgressLine(totalBytes: 1, enabled: false))
            try routes.wait()
            #expect(try routes.firstUTC(of: 0) != nil)
            let error = #expect(throws: InputError.self) { try routes.firstUTC(of: 1) }
            #expect(error?.description.contains("route_1.gpx") == true, "\(String(describing: error))")
            #expect(try routes.firstUTC(of: 5) == nil)
            #expect(try routes.firstUTC(of: 6) == nil)
            #expect(try routes.replay(5) { _, _ in } == 0)
            routes.remove()
        }
    }
}
