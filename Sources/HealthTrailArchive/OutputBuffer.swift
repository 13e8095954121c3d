import Foundation
import HealthTrailBase

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An owner-only file written through a fixed-size buffer that text is formatted straight into:
/// the bytes go out in large `write`s, by the calling thread or, with write-behind, by
/// `WriteBehindQueue.shared` while a second buffer fills.
///
/// The writers of CSV, GeoJSON and spill files append through it; it is the only place their
/// bytes are addressed by pointer. Its hot methods are inlinable, and the state they update (the
/// buffer and how much of it is used) lives in memory of its own rather than in stored
/// properties, which a call from another module would check for exclusive access on every use.
/// SAFETY: one thread appends at a time (the owner's), and `cursor.used ≤ capacity` holds
/// between calls: every append either fits or drains the buffer first.
@safe
@usableFromInline package final class OutputBuffer {
    @usableFromInline @unsafe struct Cursor {
        /// The buffer being filled.
        @usableFromInline var bytes: UnsafeMutablePointer<UInt8>
        /// How many of its bytes are filled.
        @usableFromInline var used: Int

        @usableFromInline init(bytes: UnsafeMutablePointer<UInt8>, used: Int) {
            unsafe self.bytes = bytes
            unsafe self.used = used
        }
    }

    package let path: String
    /// Bytes the buffer holds before it is written out.
    @usableFromInline package let capacity: Int
    @usableFromInline let cursor: UnsafeMutablePointer<Cursor>
    private let fd: Int32
    private var closed = false
    /// With write-behind: the second buffer, which the queue writes out while `cursor.bytes`
    /// fills; `inFlight` until that write is done (`written` is signalled then).
    private var spare: UnsafeMutablePointer<UInt8>?
    private var inFlight = false
    private let written = DispatchSemaphore(value: 0)
    /// The first write failure (disk full): thrown by `close()`.
    private var failure: InputError?
    /// Buffers handed to `WriteBehindQueue` so far (tests check the queue is really used).
    package private(set) var buffersHandedOver = 0
    /// The budget of the staging folder the file lies in (`StagingBudget`), if any, and the
    /// bytes counted against it so far (updated by whichever thread writes a buffer out).
    private let budget: StagingBudget?
    private var counted = 0

    /// Creates (or truncates) the file, owner-only (0600).
    /// - Parameter writeBehind: hand full buffers to `WriteBehindQueue.shared` instead of
    ///   writing them on the calling thread (costs a second buffer).
    package init(path: String, bufferSize: Int = 256 * 1024, writeBehind: Bool = false) throws {
        precondition(bufferSize >= 64, "OutputBuffer: a buffer shorter than the longest formatted value")
        self.path = path
        fd = unsafe open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw InputError(file: path, unsafe "cannot create output file: \(String(cString: strerror(errno)))") }
        capacity = bufferSize
        budget = StagingBudget.covering(path)
        // SAFETY: this object owns `cursor`, its buffer of `capacity` bytes and, with write-behind,
        // `spare` (as large), and frees them in deinit, once no write is in flight; nothing throws after.
        unsafe cursor = .allocate(capacity: 1)
        unsafe cursor.initialize(to: Cursor(bytes: .allocate(capacity: bufferSize), used: 0))
        unsafe spare = writeBehind ? .allocate(capacity: bufferSize) : nil
    }

    deinit {
        // SAFETY: the write in flight (the only other user of a buffer) is waited for first;
        // `Cursor` holds plain values, so freeing needs no deinitialisation.
        waitForWriteBehind()
        unsafe cursor.pointee.bytes.deallocate()
        unsafe cursor.deallocate()
        unsafe spare?.deallocate()
        if !closed { Glibc.close(fd) }
    }

    // MARK: Appending

    /// Appends one byte.
    @inlinable @inline(__always)
    package func append(_ byte: UInt8) {
        if unsafe cursor.pointee.used == capacity { drain() }
        // SAFETY: used < capacity after the drain.
        unsafe cursor.pointee.bytes[cursor.pointee.used] = byte
        unsafe cursor.pointee.used &+= 1
    }

    /// Appends the bytes of `span` (written straight to the file when larger than the buffer).
    @inlinable @inline(__always)
    package func append(_ span: ByteSpan) {
        if unsafe cursor.pointee.used + span.count > capacity { drain() }
        if span.count > capacity { return appendPastTheBuffer(span) }
        // SAFETY: used + count ≤ capacity after the drain; `span` is valid during the call.
        unsafe (cursor.pointee.bytes + cursor.pointee.used).update(from: span.start, count: span.count)
        unsafe cursor.pointee.used &+= span.count
    }

    /// Takes the next `count` bytes of the buffer for a value formatted in place (a date, a
    /// number): the caller fills all of the slot before the next append.
    @inlinable @inline(__always)
    package func reserve(_ count: Int) -> OutputSlot {
        precondition(count >= 0 && count <= 64, "OutputBuffer.reserve: a slot is for one formatted value")
        if unsafe cursor.pointee.used + count > capacity { drain() }
        // SAFETY: used + count ≤ capacity after the drain (capacity ≥ 64), so the slot lies
        // inside the buffer; it stays valid until the next append, which the caller does not
        // make before filling it.
        let slot = unsafe OutputSlot(start: cursor.pointee.bytes + cursor.pointee.used, count: count)
        unsafe cursor.pointee.used &+= count
        return unsafe slot
    }

    /// Appends `value` in decimal, with a `-` when negative.
    package func appendInteger(_ value: Int64) {
        var magnitude = value.magnitude
        if value < 0 { append(0x2D) }
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)
        // SAFETY: the scratch's 24 bytes, lent for the closure; `append` copies the digits out
        // before it returns, so no pointer into the scratch outlives it.
        unsafe withUnsafeMutableBytes(of: &scratch) { t in
            // SAFETY: at most 20 digits are written right to left from 24, inside the scratch.
            var i = 24
            repeat { i -= 1; unsafe t[i] = UInt8(0x30 + magnitude % 10); magnitude /= 10 } while magnitude > 0
            unsafe append(ByteSpan(start: t.baseAddress!.assumingMemoryBound(to: UInt8.self) + i, count: 24 - i))
        }
    }

    /// Appends `units / 10^fractionDigits` in fixed point: the integer digits (at least one), and
    /// when `fractionDigits` > 0 a point and exactly that many digits; a `-` first if `negative`.
    /// - Precondition: `units` < 9.2e18 and `fractionDigits` ≤ 18.
    package func appendFixedPoint(units: UInt64, fractionDigits: Int, negative: Bool) {
        precondition(units < 9_200_000_000_000_000_000 && (0...18).contains(fractionDigits), "appendFixedPoint: out of range")
        var units = units
        // Digits right to left into a scratch buffer, dividing by the constant 10 only (a
        // multiply): this runs for every coordinate of every route point.
        var scratch: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        // SAFETY: the scratch's 32 bytes, lent for the closure; `append` copies the digits out
        // before it returns, so no pointer into the scratch outlives it.
        unsafe withUnsafeMutableBytes(of: &scratch) { t in
            // SAFETY (and why unchecked): at most 21 bytes are written right to left from 32 (19
            // digits, as units < 9.2e18 and fractionDigits ≤ 18, a point and a sign): i stays in
            // 11..<32, so `&-` cannot wrap and every store is inside the scratch buffer.
            let out = unsafe t.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var i = 32
            if fractionDigits > 0 {
                for _ in 0..<fractionDigits { i &-= 1; unsafe out[i] = UInt8(truncatingIfNeeded: 0x30 &+ units % 10); units /= 10 }
                i &-= 1; unsafe out[i] = 0x2E
            }
            repeat { i &-= 1; unsafe out[i] = UInt8(truncatingIfNeeded: 0x30 &+ units % 10); units /= 10 } while units > 0
            if negative { i &-= 1; unsafe out[i] = 0x2D }
            unsafe append(ByteSpan(start: out + i, count: 32 &- i))
        }
    }

    /// Appends the whole of `file` (a part written by another thread) in file order.
    package func append(contentsOf file: ReadOnlyFile) throws {
        try unsafe streamWholeFile(file, entryName: nil) { chunk in
            // SAFETY: `streamWholeFile` hands over only non-empty chunks (so a base address),
            // valid during the closure, and `append` copies or writes them before returning.
            unsafe append(ByteSpan(start: chunk.baseAddress!.assumingMemoryBound(to: UInt8.self), count: chunk.count))
        }
    }

    // MARK: Writing out

    /// Writes out the filled part of the buffer: on this thread, or handed to the write-behind
    /// queue while the spare buffer takes its place.
    @usableFromInline func drain() {
        // SAFETY: `cursor.bytes[0..<used]` is the filled part (used ≤ capacity). With write-behind
        // the full buffer goes to the queue and is not touched here until `waitForWriteBehind`;
        // the queue's closure keeps `self`, and so both buffers, alive until its write is done.
        let used = unsafe cursor.pointee.used
        guard used > 0 else { return }
        guard let free = unsafe spare else {
            unsafe writeAll(UnsafeRawPointer(cursor.pointee.bytes), used)
            unsafe cursor.pointee.used = 0
            return
        }
        waitForWriteBehind()   // the spare's last write is done: it can be filled again
        let full = unsafe UnsafeRawPointer(cursor.pointee.bytes)
        unsafe spare = cursor.pointee.bytes
        unsafe cursor.pointee = Cursor(bytes: free, used: 0)
        inFlight = true
        buffersHandedOver += 1
        WriteBehindQueue.shared.submit { [self] in
            unsafe writeAll(full, used)
            written.signal()
        }
    }

    /// A span larger than the whole buffer: written at once, after the bytes before it.
    @usableFromInline func appendPastTheBuffer(_ span: ByteSpan) {
        // SAFETY: the caller's span, valid during the call; the buffered bytes before it were
        // drained first (the span did not fit), so the file gets them in order.
        waitForWriteBehind()
        unsafe writeAll(UnsafeRawPointer(span.start), span.count)
    }

    /// Waits for the buffer in flight (if any) to be written. After this, `failure` may be read.
    private func waitForWriteBehind() {
        guard inFlight else { return }
        written.wait()
        inFlight = false
    }

    // SAFETY: `p` holds `n` readable bytes for the call: a filled buffer or the caller's span.
    private func writeAll(_ p: UnsafeRawPointer, _ n: Int) {
        guard failure == nil else { return }
        if let budget {
            if let refusal = budget.charge(n, path: path) {
                failure = refusal
                return
            }
            counted += n
        }
        let failed = unsafe writeFully(fd, p, n)
        if failed != 0 { failure = InputError(file: path, unsafe "cannot write: \(String(cString: strerror(failed)))") }
    }

    /// Writes out the buffer; errors surface in `close()`.
    package func flush() { drain(); waitForWriteBehind() }

    /// Flushes the buffer and waits until the file's data is on disk. Safe to call from another
    /// thread once writing has finished (outputs are synced concurrently).
    package func sync() {
        drain()
        waitForWriteBehind()
        if fsync(fd) != 0 && errno != EINVAL && failure == nil {
            failure = InputError(file: path, unsafe "cannot write: \(String(cString: strerror(errno)))")
        }
    }

    /// Removes a scratch file that has been read back (closing it first if it is open, unsynced)
    /// and gives its bytes back to the staging budget. Write failures are dropped with it.
    package func discard() {
        // The bytes still in the buffer are dropped, not written: the file goes.
        waitForWriteBehind()
        unsafe cursor.pointee.used = 0
        if !closed {
            closed = true
            Glibc.close(fd)
        }
        unsafe unlink(path)
        budget?.release(counted)
        counted = 0
    }

    /// Flushes, syncs and closes; the file is complete only if this returns.
    /// - Parameter syncing: false for scratch files read back and deleted by the same run
    ///   (spills), which need no fsync.
    package func close(syncing: Bool = true) throws {
        guard !closed else { return }
        if syncing { sync() } else { flush() }
        closed = true
        Glibc.close(fd)
        if let failure { throw failure }
    }
}

/// A few bytes of an `OutputBuffer` reserved for one value formatted in place. Indices are
/// checked against the slot; inlined with a constant size, the checks fold away.
@unsafe
@usableFromInline package struct OutputSlot {
    // SAFETY: `count` bytes of an `OutputBuffer`'s buffer (or of the array `bytes(count:)`
    // fills), valid until that buffer's next append, by which time the slot has been filled.
    @usableFromInline let start: UnsafeMutablePointer<UInt8>
    /// The slot's size in bytes.
    @usableFromInline package let count: Int

    @inlinable init(start: UnsafeMutablePointer<UInt8>, count: Int) {
        unsafe self.start = start
        unsafe self.count = count
    }

    /// The byte at `index`.
    @inlinable package subscript(index: Int) -> UInt8 {
        get {
            unsafe precondition(index >= 0 && index < count, "OutputSlot index out of range")
            return unsafe start[index]
        }
        nonmutating set {
            unsafe precondition(index >= 0 && index < count, "OutputSlot index out of range")
            unsafe start[index] = newValue
        }
    }

    /// Writes the two low decimal digits of `value` (≥ 0) at `index`.
    @inlinable @inline(__always)
    package func putTwoDigits(_ value: Int, at index: Int) {
        unsafe self[index] = UInt8(truncatingIfNeeded: 0x30 + value / 10 % 10)
        unsafe self[index + 1] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
    }

    /// Writes the four low decimal digits of `value` (≥ 0) at `index`.
    @inlinable @inline(__always)
    package func putFourDigits(_ value: Int, at index: Int) {
        unsafe putTwoDigits(value / 100, at: index)
        unsafe putTwoDigits(value % 100, at: index + 2)
    }

    /// The `Value` whose bytes start at `offset` (any alignment).
    @inlinable package func load<Value: BitwiseCopyable>(fromByteOffset offset: Int, as type: Value.Type) -> Value {
        unsafe precondition(offset >= 0 && offset + MemoryLayout<Value>.size <= count, "OutputSlot load out of range")
        // SAFETY: inside the slot (checked above); `loadUnaligned` has no alignment requirement.
        return unsafe UnsafeRawPointer(start).loadUnaligned(fromByteOffset: offset, as: Value.self)
    }

    /// Writes the bytes of `value` at `offset` (any alignment).
    @inlinable package func store<Value: BitwiseCopyable>(_ value: Value, toByteOffset offset: Int) {
        unsafe precondition(offset >= 0 && offset + MemoryLayout<Value>.size <= count, "OutputSlot store out of range")
        // SAFETY: inside the slot (checked above); `storeBytes` needs no alignment for a
        // `BitwiseCopyable` value.
        unsafe UnsafeMutableRawPointer(start).storeBytes(of: value, toByteOffset: offset, as: Value.self)
    }

    /// The `count` bytes a `fill` formats, as an array (for a value wanted as a `String`).
    package static func bytes(count: Int, _ fill: (OutputSlot) -> Void) -> [UInt8] {
        guard count > 0 else { return [] }   // empty storage may have no address to point a slot at
        return unsafe [UInt8](unsafeUninitializedCapacity: count) { storage, initialised in
            // SAFETY: the slot covers exactly the new storage, zeroed first so that every byte is
            // initialised whatever `fill` writes.
            unsafe storage.initialize(repeating: 0)
            unsafe fill(OutputSlot(start: storage.baseAddress!, count: count))
            initialised = count
        }
    }
}
