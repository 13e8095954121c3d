import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Route files decoded while export.xml is still being parsed, on the core that parse leaves idle.
///
/// Routes cannot be written before export.xml is read: their points need the heart rate and the
/// workout that owns them. Decoding them can start at once, and it is most of their cost (about
/// 200 MB of GPX to inflate and parse in a two-year export). The parse of export.xml keeps one
/// core busy and its inflate thread a fifth of the other, so two threads at the lowest scheduling
/// priority (`SCHED_IDLE`: they run only on a core nothing else wants, and share no lock with the
/// parse; their progress goes through an atomic) take the files in turn. Each point goes to the
/// thread's spill file in the staging folder as a `RoutePointRecord`: its numbers, and its
/// `route_points.csv` columns copied from the file's text.
/// `RouteLinker` replays every file's points in order once the join is built.
///
/// A file that fails keeps its error, thrown when its turn comes (as if it were decoded then);
/// files after the first failure are not decoded, since the run ends there anyway. Which error a
/// run reports therefore does not depend on how the threads raced.
final class PredecodedRoutes: @unchecked Sendable {
    /// One route file's outcome.
    struct File {
        /// Which spill file holds its points, from which byte, how many bytes.
        var spill = 0
        var offset: UInt64 = 0
        var bytes: UInt64 = 0
        var points = 0
        /// UTC seconds of the first valid point (links a route no workout names).
        var firstUTC: Int64?
        /// Its skipped points; absorbed into the run's log in file order.
        var faults: FaultLog
        /// Why it could not be decoded.
        var error: Error?
    }

    let entries: [ArchiveEntry]
    private let source: ExportSource
    private let displayName: String
    /// What each file's fault log copies from the run's.
    private let faultFile: String, strict: Bool
    private let spillPaths: [String]
    private var files: [File]
    private let lock = NSLock()
    private var next = 0
    /// Index of the first file that failed: later ones are skipped.
    private var firstFailure = Int.max
    private var cancelled = false
    /// Set once `remove()` has deleted the spill files.
    private var removed = false
    /// A spill file that could not be written (disk full): fails the whole run.
    private var spillFailure: Error?
    private let finished = DispatchGroup()
    private var readers: [ReadOnlyFile?]

    /// Starts decoding `entries` (the export's route files) at once.
    /// - Parameters:
    ///   - spillPaths: one scratch file per decoding thread (two), in the staging folder.
    ///   - faults: the run's log, whose file name and `--strict` setting each file's log copies.
    init(entries: [ArchiveEntry], source: ExportSource, spillPaths: [String], faults: FaultLog, progress: ProgressLine) {
        self.entries = entries
        self.source = source
        self.displayName = source.displayName
        (faultFile, strict) = (faults.file, faults.strict)
        self.spillPaths = spillPaths
        files = entries.map { _ in File(faults: FaultLog(file: faults.file, strict: faults.strict)) }
        readers = spillPaths.map { _ in nil }
        guard !entries.isEmpty else { return }
        for k in spillPaths.indices {
            finished.enter()
            let thread = Thread { [self] in
                defer { finished.leave() }
                Self.yieldToEveryOtherThread()
                decodeFiles(spill: k, progress: progress)
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    deinit { remove() }

    /// Waits until every file is decoded; throws if a spill file could not be written.
    func wait() throws {
        finished.wait()
        if let spillFailure { throw spillFailure }
    }

    /// Deletes the spill files; nothing can be replayed after. Decoding threads still running
    /// (a run that failed before `wait()`) are stopped and waited for first: they write into
    /// those files and into `readers`.
    ///
    /// Only the first call deletes anything: `deinit` calls it again, possibly much later, on
    /// the last decoding thread to let go of this object, when the same paths may already
    /// belong to another run's files.
    func remove() {
        lock.withLock { cancelled = true }
        finished.wait()
        let first = lock.withLock {
            readers = readers.map { _ in nil }
            defer { removed = true }
            return !removed
        }
        if first { for path in spillPaths { unlink(path) } }
    }

    /// The first valid point's time of file `index`; throws the file's error if it has no point.
    /// A file after the first that failed counts as not decoded (nil), whether or not a thread
    /// got to it before that failure: which error a run reports must not depend on the race.
    func firstUTC(of index: Int) throws -> Int64? {
        let (file, failure) = lock.withLock { (files[index], firstFailure) }
        guard index <= failure else { return nil }
        if file.firstUTC == nil, let error = file.error { throw error }
        return file.firstUTC
    }

    /// The faults of file `index` (call after `wait()`).
    func faults(of index: Int) -> FaultLog { files[index].faults }

    /// Hands file `index`'s points to `body` in file order, each with its CSV columns (valid
    /// only during the call); returns how many. Throws the file's error after its valid points,
    /// so a failing file reports its error. Safe from two threads at once (after `wait()`).
    @discardableResult
    func replay(_ index: Int, _ body: (RoutePoint, ByteSpan) throws -> Void) throws -> Int {
        let (file, failure) = lock.withLock { (files[index], firstFailure) }
        guard index <= failure else { return 0 }   // as if not decoded (see `firstUTC(of:)`)
        if file.bytes > 0 {
            guard let reader = lock.withLock({ readers[file.spill] }) else {
                throw InputError(file: spillPaths[file.spill], "route spill file read after removal")
            }
            let stream = RoutePointRecord.Reader(file: reader, offset: file.offset, bytes: file.bytes)
            while let (point, columns) = try stream.next() { try body(point, columns) }
        }
        if let error = file.error { throw error }
        return file.points
    }

    // MARK: Decoding threads

    /// `SCHED_IDLE` for the calling thread (Linux): it runs only on a core no other thread wants.
    /// Lowering one's own priority needs no privilege; where it fails the thread runs at normal
    /// priority, which is slower for the parse but gives the same outputs.
    static func yieldToEveryOtherThread() {
        #if os(Linux)
        var parameters = sched_param()
        parameters.sched_priority = 0
        let schedIdle: Int32 = 5   // SCHED_IDLE, which Glibc's Swift overlay does not export
        _ = sched_setscheduler(0, schedIdle, &parameters)
        #endif
    }

    private func decodeFiles(spill k: Int, progress: ProgressLine) {
        let path = spillPaths[k]
        let writer: CSVWriter
        do {
            writer = try CSVWriter(path: path, header: [], bufferSize: 1 << 18)
        } catch {
            lock.withLock { if spillFailure == nil { spillFailure = error } }
            return
        }
        // Bytes written so far; updated once per point by the decoder's closure, so boxed rather
        // than captured (a captured variable is checked for exclusive access at run time).
        let written = UncheckedBox<UInt64>(0)
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: RoutePointRecord.maxLength)
        defer { scratch.deallocate() }
        let wholeFiles = WholeEntryScratch()   // this thread's, freed when it is done
        while true {
            let index: Int? = lock.withLock {
                guard !cancelled, spillFailure == nil, next < min(entries.count, firstFailure) else { return nil }
                next += 1
                return next - 1
            }
            guard let index else { break }
            var file = File(spill: k, offset: written.value, faults: FaultLog(file: faultFile, strict: strict))
            let decoder = GPXDecoder(faults: file.faults, fileName: displayName, entryName: entries[index].path) { point, raw in
                let n = RoutePointRecord.encode(point, raw: raw, into: scratch)
                writer.raw(scratch, n)
                written.value += UInt64(n)
            }
            do {
                // Small files (nearly all) are parsed whole, larger ones as they inflate.
                let whole = try source.readWhole(entries[index], scratch: wholeFiles) { document in
                    if lock.withLock({ cancelled }) { throw CancellationError() }
                    progress.advanceInBackground(document.count)
                    try decoder.parseWhole(document)
                }
                if !whole {
                    try source.read(entries[index]) { chunk in
                        if lock.withLock({ cancelled }) { throw CancellationError() }
                        progress.advanceInBackground(chunk.count)
                        try decoder.feed(chunk)
                    }
                    try decoder.finish()
                }
            } catch is CancellationError {
                break
            } catch {
                file.error = error
            }
            file.bytes = written.value - file.offset
            file.points = decoder.points
            file.firstUTC = decoder.firstUTC
            lock.withLock {
                if file.error != nil { firstFailure = min(firstFailure, index) }
                files[index] = file
            }
        }
        do {
            try writer.close(syncing: false)
            let reader = try ReadOnlyFile(path: path)
            lock.withLock { readers[k] = reader }
        } catch {
            lock.withLock { if spillFailure == nil { spillFailure = error } }
        }
    }
}
