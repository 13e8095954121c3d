import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailDecode
import HealthTrailWrite

#if canImport(Glibc)
import Glibc
#endif

/// Route files decoded while export.xml is still being parsed, on the core that parse leaves idle.
///
/// Routes cannot be written before export.xml is read: their points need the heart rate and the
/// workout that owns them. Decoding them can start at once, and it is most of their cost (about
/// 200 MB of GPX to inflate and parse in a two-year export). The parse of export.xml keeps one
/// core busy and its inflate thread a fifth of the other, so background threads at the lowest
/// nice level (19: they yield to the parse whenever both want one core, and share no lock with
/// it; their progress goes through an atomic) take the files in turn. Once export.xml is read,
/// the thread that calls `wait()` decodes the files left, at its own priority: on a machine
/// busy with other work the background threads get little CPU, and the run must then slow
/// down by its fair share, not stall. A background thread part-way through a file read in
/// chunks hands it back to the waiting thread at its next chunk.
///
/// Each point goes to the thread's spill file in the staging folder as a `RoutePointRecord`:
/// its numbers, and its `route_points.csv` columns copied from the file's text.
/// `RouteLinker` replays every file's points in order once the join is built.
///
/// A file that fails keeps its error, thrown when its turn comes (as if it were decoded then);
/// files after the first failure are not decoded, since the run ends there anyway. Which error a
/// run reports therefore does not depend on how the threads raced.
///
/// `@unchecked Sendable`: its variables are read and written with `lock` held, except what is
/// read once `wait()` has seen every decoding thread leave `finished`, which orders their writes
/// first. `progress` is called from the decoding threads: a `BackgroundProgress` takes calls
/// from any thread (the progress line counts them atomically).
package final class PredecodedRoutes: @unchecked Sendable {
    /// One route file's outcome.
    package struct File {
        /// Which spill file holds its points, from which byte, how many bytes.
        package var spill = 0
        package var offset: UInt64 = 0
        package var bytes: UInt64 = 0
        package var points = 0
        /// UTC seconds of the first valid point (links a route no workout names).
        package var firstUTC: Int64?
        /// Its skipped points; absorbed into the run's log in file order.
        package var faults: FaultLog
        /// Why it could not be decoded.
        package var error: Error?
    }

    package let entries: [ArchiveEntry]
    private let source: ExportSource
    private let displayName: String
    /// What each file's fault log copies from the run's.
    private let faultFile: String, strict: Bool
    private let spillPaths: [String]
    private var files: [File]
    private let lock = NSLock()
    private var next = 0
    /// Files a background thread gave back part-way (see the type's description), with the
    /// bytes of each it had already counted into the progress line.
    private var handedBack: [(index: Int, counted: Int)] = []
    /// Set when `wait()` is called: background threads hand back files read in chunks.
    private var waiterArrived = false
    /// Background threads part-way through a file: the waiting thread stays until they are
    /// done, since each may still hand its file back.
    private var backgroundBusy = 0
    /// Signalled when a background thread ends a file or hands one back.
    private let backgroundTurnEnded = DispatchSemaphore(value: 0)
    private let progress: any BackgroundProgress
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
    ///   - spillPaths: one scratch file per decoding thread, in the staging folder: the last is
    ///     for the thread that calls `wait()`, the others each get a background thread.
    ///   - faults: the run's log, whose file name and `--strict` setting each file's log copies.
    package init(entries: [ArchiveEntry], source: ExportSource, spillPaths: [String], faults: FaultLog, progress: any BackgroundProgress) {
        self.entries = entries
        self.source = source
        self.displayName = source.displayName
        (faultFile, strict) = (faults.file, faults.strict)
        self.spillPaths = spillPaths
        files = entries.map { _ in File(faults: FaultLog(file: faults.file, strict: faults.strict)) }
        readers = spillPaths.map { _ in nil }
        self.progress = progress
        precondition(!spillPaths.isEmpty, "PredecodedRoutes needs a spill file for the waiting thread")
        guard !entries.isEmpty else { return }
        for k in spillPaths.indices.dropLast() {
            finished.enter()
            let thread = Thread { [self] in
                defer { finished.leave() }
                Self.yieldToEveryOtherThread()
                decodeFiles(spill: k, onWaitingThread: false)
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    deinit { remove() }

    /// Decodes the files no background thread has taken, then waits until every file is
    /// decoded; throws if a spill file could not be written. Call it once.
    package func wait() throws {
        if !entries.isEmpty {
            lock.withLock { waiterArrived = true }
            decodeFiles(spill: spillPaths.count - 1, onWaitingThread: true)
        }
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
    package func remove() {
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
    package func firstUTC(of index: Int) throws -> Int64? {
        let (file, failure) = lock.withLock { (files[index], firstFailure) }
        guard index <= failure else { return nil }
        if file.firstUTC == nil, let error = file.error { throw error }
        return file.firstUTC
    }

    /// The faults of file `index` (call after `wait()`).
    package func faults(of index: Int) -> FaultLog { files[index].faults }

    /// Hands file `index`'s points to `body` in file order, each with its CSV columns (a span
    /// that cannot leave the call); returns how many. Throws the file's error after its valid points,
    /// so a failing file reports its error. Safe from two threads at once (after `wait()`).
    @discardableResult
    package func replay(_ index: Int, _ body: (RoutePoint, ByteSpan) throws -> Void) throws -> Int {
        let (file, failure) = lock.withLock { (files[index], firstFailure) }
        guard index <= failure else { return 0 }   // as if not decoded (see `firstUTC(of:)`)
        if file.bytes > 0 {
            guard let reader = lock.withLock({ readers[file.spill] }) else {
                throw InputError(file: spillPaths[file.spill], "route spill file read after removal")
            }
            let stream = RoutePointRecord.Reader(file: reader, offset: file.offset, bytes: file.bytes)
            try stream.forEach(body)
        }
        if let error = file.error { throw error }
        return file.points
    }

    // MARK: Decoding threads

    /// The lowest priority, nice 19, for the calling thread (Linux, where the nice level is a
    /// thread's own): it gives way to the parse of export.xml whenever both want one core.
    /// Not `SCHED_IDLE`, which runs a thread only on a core no other process wants: on a busy
    /// host that is never. Raising one's nice level needs no privilege; where it fails the
    /// thread runs at normal priority, which is slower for the parse but gives the same outputs.
    package static func yieldToEveryOtherThread() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        #endif
    }

    /// The next file for a thread to decode, with the bytes of it already counted into the
    /// progress line (by the thread that handed it back); nil when it is done. Only the waiting
    /// thread takes the files handed back, and it stays while a background thread may still
    /// hand one back.
    private func nextFile(onWaitingThread: Bool) -> (index: Int, counted: Int)? {
        while true {
            enum Turn { case file(Int, counted: Int), wait, done }
            let turn: Turn = lock.withLock {
                guard !cancelled, spillFailure == nil else { return .done }
                if onWaitingThread {
                    while let back = handedBack.popLast() {
                        if back.index < firstFailure { return .file(back.index, counted: back.counted) }
                    }
                }
                if next < min(entries.count, firstFailure) {
                    next += 1
                    if !onWaitingThread { backgroundBusy += 1 }
                    return .file(next - 1, counted: 0)
                }
                return onWaitingThread && backgroundBusy > 0 ? .wait : .done
            }
            switch turn {
            case .file(let index, let counted): return (index, counted)
            case .done: return nil
            case .wait: backgroundTurnEnded.wait()
            }
        }
    }

    /// Takes files in turn until none is left, writing their points to spill file `k`.
    private func decodeFiles(spill k: Int, onWaitingThread: Bool) {
        let path = spillPaths[k]
        let writer: OutputBuffer
        do {
            writer = try OutputBuffer(path: path, bufferSize: 1 << 18)
        } catch {
            lock.withLock { if spillFailure == nil { spillFailure = error } }
            return
        }
        // Bytes written so far; updated once per point by the decoder's closure, so boxed rather
        // than captured (a captured variable is checked for exclusive access at run time).
        let written = UncheckedBox<UInt64>(0)
        let wholeFiles = WholeEntryScratch()   // this thread's, freed when it is done
        while true {
            guard let (index, alreadyCounted) = nextFile(onWaitingThread: onWaitingThread) else { break }
            // Bytes of this file counted into the progress line, by this thread or the one that
            // handed it back: a file decoded again from the start is counted once.
            var counted = 0
            func advanceProgress(_ bytes: Int) {
                let new = max(0, counted + bytes - alreadyCounted) - max(0, counted - alreadyCounted)
                counted += bytes
                if new > 0 { progress.advanceInBackground(new) }
            }
            // A background thread's turn ends however this iteration does.
            defer {
                if !onWaitingThread {
                    lock.withLock { backgroundBusy -= 1 }
                    backgroundTurnEnded.signal()
                }
            }
            var file = File(spill: k, offset: written.value, faults: FaultLog(file: faultFile, strict: strict))
            let decoder = GPXDecoder(faults: file.faults, fileName: displayName, entryName: entries[index].path) { point, raw in
                let n = RoutePointRecord.encode(point, raw: raw, to: writer)
                written.value += UInt64(n)
            }
            do {
                // Small files (nearly all) are parsed whole, larger ones as they inflate.
                let whole = try source.readWhole(entries[index], scratch: wholeFiles) { document in
                    if lock.withLock({ cancelled }) { throw CancellationError() }
                    advanceProgress(document.count)
                    try decoder.parseWhole(document)
                }
                if !whole {
                    try source.read(entries[index]) { chunk in
                        let (stop, handBack) = lock.withLock { (cancelled, waiterArrived && !onWaitingThread) }
                        if stop { throw CancellationError() }
                        if handBack { throw HandedBack() }
                        advanceProgress(chunk.count)
                        try decoder.feed(chunk)
                    }
                    try decoder.finish()
                }
            } catch is CancellationError {
                break
            } catch is HandedBack {
                // The waiting thread decodes it again from the start; the points already
                // spilled stay unreferenced in this thread's file.
                let total = max(counted, alreadyCounted)
                lock.withLock { handedBack.append((index, total)) }
                continue
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

/// Thrown inside a background thread's decode of a file it gives back to the waiting thread.
private struct HandedBack: Error {}
