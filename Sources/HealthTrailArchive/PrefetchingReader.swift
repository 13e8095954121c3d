import Foundation
import HealthTrailBase
import Synchronization

/// Reads an entry on a second thread while the caller parses, through a bounded queue.
///
/// Inflating (and checking the CRC) costs about a third of reading an export; parsing the rest.
/// With two cores the two can overlap: a reader thread fills a few fixed buffers ahead of the
/// parser and blocks when they are all full, so memory stays at `bufferCount` chunks whatever
/// the entry's size. Errors travel both ways: a read error reaches the caller at the chunk
/// where it happened, and a parse error stops the reader before this function returns.
package enum PrefetchingReader {
    /// - Parameters:
    ///   - elision: rewrites each chunk on the reader thread, in the copy into the queue's buffer
    ///     (export.xml's `device` values: HealthTrailXML's `DeviceValueElision`).
    ///   - body: called on the caller's thread with each chunk and the number of the entry's
    ///     bytes it stands for (more than its count when the elision shortened it).
    package static func read(
        _ entry: ArchiveEntry, of source: ExportSource, bufferCount: Int = 4,
        elision: sending ChunkRewriter? = nil,
        _ body: (ByteSpan, _ entryBytes: Int) throws -> Void
    ) throws {
        let capacity = elision?.rewrittenCapacity(forInput: ZipArchive.chunkSize) ?? ZipArchive.chunkSize
        let queue = ChunkQueue(bufferCount: bufferCount, bufferSize: capacity)
        // The rewriter goes to the reader thread, the only one that uses it from here on: the
        // mutex hands it over, and the thread takes it out once.
        let handOver = Mutex(elision)
        let reader = Thread {
            let elision = handOver.withLock { $0.take() }
            do {
                try source.read(entry) { chunk in
                    guard let buffer = queue.takeFree() else { throw StopReading() }   // the parser gave up
                    // SAFETY: the source's chunk is valid during this closure and is copied out
                    // before it returns; `buffer`, taken from the free list, is this thread's alone.
                    unsafe chunk.withUnsafeBytes { chunk in
                        if let elision {
                            unsafe buffer.fill(from: chunk, rewrittenBy: elision)
                        } else {
                            unsafe buffer.fill(from: chunk)
                        }
                    }
                    queue.pushFull(buffer)
                }
                if let elision, let buffer = queue.takeFree() {
                    buffer.fillWithHeldBytes(of: elision)
                    if buffer.count > 0 { queue.pushFull(buffer) } else { queue.giveBack(buffer) }
                }
                queue.finish(error: nil)
            } catch is StopReading {
                queue.finish(error: nil)
            } catch {
                queue.finish(error: error)
            }
        }
        reader.stackSize = 1 << 20
        reader.start()
        defer { queue.cancelAndWaitForReader() }
        while let buffer = try queue.popFull() {
            defer { queue.giveBack(buffer) }
            // SAFETY: a full buffer is the parser's alone until given back, after `body` returns
            // (the queue's lock orders the reader's writes before this); its first `count` bytes
            // are filled. `body` must not keep the span.
            try unsafe body(ByteSpan(UnsafeRawBufferPointer(start: buffer.bytes, count: buffer.count)), buffer.entryBytes)
        }
    }
}

/// A rewrite of an entry's bytes as they are read ahead, chunk by chunk, on the reader thread.
///
/// It may hold bytes back across a chunk boundary (a value it has not seen the end of) and
/// returns them from `finish`.
package protocol ChunkRewriter: AnyObject {
    /// The most bytes `rewrite` writes for `count` bytes of input.
    func rewrittenCapacity(forInput count: Int) -> Int
    /// The most bytes `finish` writes.
    var heldCapacity: Int { get }
    /// Writes the rewritten `input` (and bytes held from earlier chunks) to `output`, which has
    /// room for `rewrittenCapacity(forInput: input.count)` bytes; returns the count written.
    func rewrite(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer) -> Int
    /// Writes the bytes still held at the end of the entry; returns the count written.
    func finish(into output: UnsafeMutableRawPointer) -> Int
}

/// A reusable chunk buffer.
///
/// Invariant: `bytes` is an allocation of `capacity` bytes that this object owns (freed in
/// `reserve` when it grows, and in deinit), and `count` ≤ `capacity` (a `ChunkRewriter` writes
/// no more than it declares). One thread uses it at a time: the reader while it holds it from
/// the free list, the parser from the full one.
@safe
package final class ChunkBuffer {
    package private(set) var bytes: UnsafeMutableRawPointer
    package private(set) var capacity: Int
    package private(set) var count = 0

    package init(capacity: Int) {
        self.capacity = capacity
        unsafe bytes = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit { unsafe bytes.deallocate() }

    /// The entry's bytes this chunk stands for (its count, unless it was rewritten).
    package private(set) var entryBytes = 0

    package func fill(from chunk: UnsafeRawBufferPointer) {
        // SAFETY: `reserve` makes room for all of `chunk`, which is valid during the call; an
        // empty chunk may have no base address and copies nothing.
        reserve(chunk.count)
        if let base = chunk.baseAddress { unsafe bytes.copyMemory(from: base, byteCount: chunk.count) }
        count = chunk.count
        entryBytes = chunk.count
    }

    /// Copies `chunk` through `elision`.
    package func fill(from chunk: UnsafeRawBufferPointer, rewrittenBy elision: ChunkRewriter) {
        // SAFETY: `rewrite` writes at most `rewrittenCapacity(forInput:)` bytes, the room reserved.
        reserve(elision.rewrittenCapacity(forInput: chunk.count))
        count = unsafe elision.rewrite(chunk, into: bytes)
        entryBytes = chunk.count
    }

    /// The bytes `elision` still holds at the end of the entry.
    package func fillWithHeldBytes(of elision: ChunkRewriter) {
        // SAFETY: `finish` writes at most `heldCapacity` bytes, the room reserved.
        reserve(elision.heldCapacity)
        count = unsafe elision.finish(into: bytes)
        entryBytes = 0
    }

    private func reserve(_ size: Int) {
        // SAFETY: only the holder of the buffer calls this, and no span over the old bytes is in
        // use then (the parser gave the buffer back); the contents need not survive.
        guard size > capacity else { return }
        unsafe bytes.deallocate()
        capacity = size
        unsafe bytes = .allocate(byteCount: capacity, alignment: 16)
    }
}

/// Free and full buffers between the reader thread and the parser, guarded by one condition.
///
/// `@unchecked Sendable`: every stored property is read and written with `condition` locked,
/// and a buffer is used by one thread at a time (the one that took it from a list).
package final class ChunkQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var free: [ChunkBuffer]
    private var full: [ChunkBuffer] = []
    private var finished = false
    private var readerDone = false
    private var cancelled = false
    private var failure: Error?

    package init(bufferCount: Int, bufferSize: Int) {
        free = (0..<max(2, bufferCount)).map { _ in ChunkBuffer(capacity: bufferSize) }
    }

    /// Reader side: a free buffer, waiting for one; nil once the parser has cancelled.
    package func takeFree() -> ChunkBuffer? {
        condition.lock(); defer { condition.unlock() }
        while free.isEmpty && !cancelled { condition.wait() }
        return cancelled ? nil : free.removeLast()
    }

    package func pushFull(_ buffer: ChunkBuffer) {
        condition.lock(); defer { condition.unlock() }
        full.append(buffer)
        condition.broadcast()
    }

    /// Reader side: no more chunks (with the read error, if any).
    package func finish(error: Error?) {
        condition.lock(); defer { condition.unlock() }
        failure = error
        finished = true
        readerDone = true
        condition.broadcast()
    }

    /// Parser side: the next chunk in order; nil at the end; throws the reader's error.
    package func popFull() throws -> ChunkBuffer? {
        condition.lock(); defer { condition.unlock() }
        while full.isEmpty && !finished { condition.wait() }
        if !full.isEmpty { return full.removeFirst() }
        if let failure { throw failure }
        return nil
    }

    package func giveBack(_ buffer: ChunkBuffer) {
        condition.lock(); defer { condition.unlock() }
        free.append(buffer)
        condition.broadcast()
    }

    /// Parser side, on the way out: stops the reader if it still runs and waits until it has
    /// left `source.read`, so nothing touches the source after the caller returns.
    package func cancelAndWaitForReader() {
        condition.lock(); defer { condition.unlock() }
        cancelled = true
        condition.broadcast()
        while !readerDone { condition.wait() }
    }
}
