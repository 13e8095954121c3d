// Binary records in scratch (spill) files: the values of a `BitwiseCopyable` type in this
// machine's layout, or variable-length records whose header gives their length, written by one
// run and read back by the same run, then deleted. No other program reads them, so there is no
// byte order or version to keep.
//
// The layers above write and read records as values; the pointers that copy them to and from
// a file's bytes stay in this file.

import HealthTrailBase

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ByteSpan {
    /// Calls `body` with a view of `record`'s `MemoryLayout<Record>.size` bytes, valid inside
    /// `body` only: what a spill writer appends for one record.
    @inlinable @inline(__always)
    package static func withBytes<Record: BitwiseCopyable, Result>(of record: Record, _ body: (ByteSpan) throws -> Result) rethrows -> Result {
        // SAFETY: `withUnsafeBytes(of:)` gives the value's own bytes for the duration of the
        // closure; the span does not escape `body`.
        try unsafe Swift.withUnsafeBytes(of: record) { raw in
            try unsafe body(ByteSpan(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: raw.count))
        }
    }

    /// Calls `body` with a view of the bytes of all of `records` (`count` × stride), valid inside
    /// `body` only: a sorted run written in one piece.
    @inlinable @inline(__always)
    package static func withBytes<Record: BitwiseCopyable, Result>(ofEach records: [Record], _ body: (ByteSpan) throws -> Result) rethrows -> Result {
        // SAFETY: the array's storage, for the duration of the closure; an empty array has no
        // base address and gets the empty span.
        try unsafe records.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0 else { return try body(.empty) }
            return try unsafe body(ByteSpan(start: base.assumingMemoryBound(to: UInt8.self), count: raw.count))
        }
    }
}

/// Writes a spill file of fixed-size records: each a `BitwiseCopyable` value's bytes, back to
/// back, buffered; read back with `ReadOnlyFile.forEachRecord` or `readRecords` once closed.
package final class SpillRecordWriter {
    /// The spill file.
    package let path: String
    /// The file's bytes; `let`, so the inlinable appends below reach it without an access check.
    @usableFromInline let out: OutputBuffer

    /// Creates (or truncates) the file, owner-only (0600).
    /// - Parameter writeBehind: hand full buffers to `WriteBehindQueue.shared` instead of
    ///   writing them on the calling thread (for spills written on the critical path; costs a
    ///   second buffer).
    package init(path: String, bufferSize: Int, writeBehind: Bool = false) throws {
        self.path = path
        out = try OutputBuffer(path: path, bufferSize: bufferSize, writeBehind: writeBehind)
    }

    /// Appends `record`'s `MemoryLayout<Record>.size` bytes (`forEachRecord` reads them back).
    @inlinable @inline(__always)
    package func append<Record: BitwiseCopyable>(_ record: Record) {
        ByteSpan.withBytes(of: record) { out.append($0) }
    }

    /// Appends the bytes of all of `records`, stride apart (`readRecords` reads them back).
    @inlinable
    package func append<Record: BitwiseCopyable>(contentsOf records: [Record]) {
        ByteSpan.withBytes(ofEach: records) { out.append($0) }
    }

    /// Writes what is buffered and closes the file, unsynced: the run that wrote it reads it
    /// back and deletes it. Throws the first write failure (disk full).
    package func close() throws { try out.close(syncing: false) }

    /// Removes the file (closing it first if it is open) and gives its bytes back to the
    /// staging budget (`OutputBuffer.discard`).
    package func discard() { out.discard() }
}

extension ReadOnlyFile {
    /// Reads `count` records written with `ByteSpan.withBytes(ofEach:)` (stride apart), the
    /// first at byte `offset`. A file too short for them throws: a spill file is never cut.
    @inlinable
    package func readRecords<Record: BitwiseCopyable>(_ type: Record.Type, count: Int, atByte offset: UInt64) throws -> [Record] {
        try unsafe [Record](unsafeUninitializedCapacity: count) { storage, initialised in
            // SAFETY: the read fills at most the `count` × stride bytes of the new storage, and
            // the elements count as initialised only once all of them were read; any bit
            // pattern is a valid `Record` (BitwiseCopyable, and it was written from one).
            let raw = UnsafeMutableRawBufferPointer(storage)
            guard try unsafe read(into: raw, at: offset) == raw.count else {
                throw InputError(file: path, "cannot read spill file back: file is short")
            }
            initialised = count
        }
    }

    /// Streams every record of a file written with `ByteSpan.withBytes(of:)` (`size` bytes
    /// each, back to back), in file order. A record split between two reads is put together.
    @inlinable
    package func forEachRecord<Record: BitwiseCopyable>(_ type: Record.Type, _ body: (Record) throws -> Void) throws {
        let size = MemoryLayout<Record>.size
        var carry: [UInt8] = []
        try unsafe streamWholeFile(self, entryName: nil) { chunk in
            // SAFETY: every load reads `size` bytes that lie inside `chunk` (or `carry`, which
            // holds exactly `size`); `loadUnaligned` has no alignment requirement.
            var bytes = unsafe chunk
            if !carry.isEmpty {
                let need = size - carry.count
                unsafe carry += bytes.prefix(need)
                unsafe bytes = UnsafeRawBufferPointer(rebasing: bytes.dropFirst(need))
                if carry.count == size {
                    try unsafe carry.withUnsafeBytes { try unsafe body($0.loadUnaligned(as: Record.self)) }
                    carry.removeAll()
                }
            }
            var offset = 0
            // SAFETY: as above: each load's `size` bytes end inside `bytes` (the loop's condition).
            while offset + size <= bytes.count {
                try unsafe body(bytes.loadUnaligned(fromByteOffset: offset, as: Record.self))
                offset += size
            }
            unsafe carry += bytes[offset...]
        }
    }
}

extension ByteSpan {
    /// The `Value` whose bytes start at `offset` (any alignment): a field of a spill record.
    @inlinable @inline(__always)
    package func load<Value: BitwiseCopyable>(fromByteOffset offset: Int, as type: Value.Type) -> Value {
        precondition(offset >= 0 && offset + MemoryLayout<Value>.size <= count, "ByteSpan load out of range")
        // SAFETY: the bytes lie inside the span (checked above); `loadUnaligned` has no alignment
        // requirement, and any bit pattern is a valid `Value` (BitwiseCopyable).
        return unsafe UnsafeRawPointer(start).loadUnaligned(fromByteOffset: offset, as: Value.self)
    }
}

/// Reads variable-length records back from a stretch of a spill file, in blocks, each record
/// whole: a record that straddles two blocks is moved to the front before the next read.
///
/// A record starts with a fixed-size header that says how long the whole record is.
@safe
package final class SpillRecordReader {
    /// The spill file.
    package let file: ReadOnlyFile
    private var offset: UInt64
    private let end: UInt64
    private let headerLength: Int
    private let maxRecordLength: Int
    /// Invariant: unread bytes are `buffer[position..<filled]`, and `buffer.count` ≥
    /// `maxRecordLength`, so the unread bytes plus one read always hold a whole record.
    private let buffer: UnsafeMutableRawBufferPointer
    private var position = 0, filled = 0

    /// Reads `bytes` bytes of `file` from `offset`, as records of at least `headerLength` and at
    /// most `maxRecordLength` bytes.
    package init(file: ReadOnlyFile, offset: UInt64, bytes: UInt64, headerLength: Int, maxRecordLength: Int) {
        precondition(headerLength > 0 && headerLength <= maxRecordLength)
        self.file = file
        self.offset = offset
        end = offset + bytes
        self.headerLength = headerLength
        self.maxRecordLength = maxRecordLength
        unsafe buffer = .allocate(byteCount: Int(min(bytes, 1 << 20)) + maxRecordLength, alignment: 8)
    }

    deinit { unsafe buffer.deallocate() }

    /// The next whole record (valid until the next call), nil after the last. `length` reads a
    /// record's total length from its header (the span holds `headerLength` bytes).
    @_lifetime(borrow self)
    package func next(length: (ByteSpan) -> Int) throws -> ByteSpan? {
        if filled - position < maxRecordLength && offset < end { try refill() }
        guard filled - position >= headerLength else {
            if position < filled || offset < end { throw truncated() }
            return nil
        }
        // SAFETY: `position + headerLength ≤ filled` (checked above), and the record's bytes
        // are checked against `filled` before the span over them is made.
        let start = unsafe (buffer.baseAddress! + position).assumingMemoryBound(to: UInt8.self)
        let count = unsafe length(ByteSpan(start: start, count: headerLength))
        guard count >= headerLength, count <= maxRecordLength, filled - position >= count else { throw truncated() }
        position += count
        return unsafe _overrideLifetime(ByteSpan(start: start, count: count), borrowing: self)
    }

    /// Moves the unread bytes to the front and reads as many more as fit.
    private func refill() throws {
        let kept = filled - position
        let want = unsafe Int(min(UInt64(buffer.count - kept), end - offset))
        // SAFETY: both ranges lie inside `buffer`; `memmove` allows them to overlap.
        if kept > 0 { unsafe memmove(buffer.baseAddress!, buffer.baseAddress! + position, kept) }
        let got = try unsafe file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[kept..<kept + want]), at: offset)
        guard got == want else { throw truncated() }
        offset += UInt64(got)
        position = 0
        filled = kept + got
    }

    private func truncated() -> InputError {
        InputError(file: file.path, "spill file is short: written and read back differ")
    }
}
