// Fixed-size binary records in scratch (spill) files: the values of a `BitwiseCopyable` type in
// this machine's layout, written by one run and read back by the same run, then deleted. No
// other program reads them, so there is no byte order or version to keep.
//
// The layers above write and read records as values; the pointers that copy them to and from
// a file's bytes stay in this file.

extension ByteSpan {
    /// Calls `body` with a view of `record`'s `MemoryLayout<Record>.size` bytes, valid inside
    /// `body` only: what a spill writer appends for one record.
    @inlinable @inline(__always)
    public static func withBytes<Record: BitwiseCopyable, Result>(of record: Record, _ body: (ByteSpan) throws -> Result) rethrows -> Result {
        // SAFETY: `withUnsafeBytes(of:)` gives the value's own bytes for the duration of the
        // closure; the span does not escape `body`.
        try withUnsafeBytes(of: record) { raw in
            try body(ByteSpan(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: raw.count))
        }
    }

    /// Calls `body` with a view of the bytes of all of `records` (`count` × stride), valid inside
    /// `body` only: a sorted run written in one piece.
    @inlinable @inline(__always)
    public static func withBytes<Record: BitwiseCopyable, Result>(ofEach records: [Record], _ body: (ByteSpan) throws -> Result) rethrows -> Result {
        // SAFETY: the array's storage, for the duration of the closure; an empty array has no
        // base address and gets the empty span.
        try records.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0 else { return try body(.empty) }
            return try body(ByteSpan(start: base.assumingMemoryBound(to: UInt8.self), count: raw.count))
        }
    }
}

extension ReadOnlyFile {
    /// Reads `count` records written with `ByteSpan.withBytes(ofEach:)` (stride apart), the
    /// first at byte `offset`. A file too short for them throws: a spill file is never cut.
    @inlinable
    public func readRecords<Record: BitwiseCopyable>(_ type: Record.Type, count: Int, atByte offset: UInt64) throws -> [Record] {
        try [Record](unsafeUninitializedCapacity: count) { storage, initialised in
            // SAFETY: the read fills at most the `count` × stride bytes of the new storage, and
            // the elements count as initialised only once all of them were read; any bit
            // pattern is a valid `Record` (BitwiseCopyable, and it was written from one).
            let raw = UnsafeMutableRawBufferPointer(storage)
            guard try read(into: raw, at: offset) == raw.count else {
                throw InputError(file: path, "cannot read spill file back: file is short")
            }
            initialised = count
        }
    }

    /// Streams every record of a file written with `ByteSpan.withBytes(of:)` (`size` bytes
    /// each, back to back), in file order. A record split between two reads is put together.
    @inlinable
    public func forEachRecord<Record: BitwiseCopyable>(_ type: Record.Type, _ body: (Record) throws -> Void) throws {
        let size = MemoryLayout<Record>.size
        var carry: [UInt8] = []
        try streamWholeFile(self, entryName: nil) { chunk in
            // SAFETY: every load reads `size` bytes that lie inside `chunk` (or `carry`, which
            // holds exactly `size`); `loadUnaligned` has no alignment requirement.
            var bytes = chunk
            if !carry.isEmpty {
                let need = size - carry.count
                carry += bytes.prefix(need)
                bytes = UnsafeRawBufferPointer(rebasing: bytes.dropFirst(need))
                if carry.count == size {
                    try carry.withUnsafeBytes { try body($0.loadUnaligned(as: Record.self)) }
                    carry.removeAll()
                }
            }
            var offset = 0
            while offset + size <= bytes.count {
                try body(bytes.loadUnaligned(fromByteOffset: offset, as: Record.self))
                offset += size
            }
            carry += bytes[offset...]
        }
    }
}
