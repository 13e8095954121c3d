import HealthTrailBase

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads an RFC 4180 CSV file record by record, each field a `ByteSpan` with its quotes
/// removed: how the SQLite and Parquet writers read back the CSV files a run has just staged.
///
/// A record ends at a line feed outside quotes, so a quoted field may hold commas, quotes
/// (doubled) and line breaks. Quoted fields are unescaped in place, which only ever shortens
/// them. The buffer grows to hold the longest record; nothing else is kept. The reading state
/// lives in one function's locals: a class's stored properties would cost an exclusivity check
/// per field.
package enum CSVRecordReader {
    /// One record: its fields, valid during the call that received it; nonescapable, so the
    /// compiler refuses to keep it, or a field of it, past that call.
    ///
    /// Invariant: `base` points into the reader's buffer, which is neither freed, moved nor
    /// written while the record is used; `bounds` holds `count` (start, length) pairs, each
    /// inside the record's initialised bytes.
    @unsafe
    package struct Record: ~Escapable {
        private let base: UnsafeRawPointer
        private let bounds: UnsafeBufferPointer<Int>
        /// The record's number in the file, the header being record 1.
        package let number: Int
        /// The number of fields.
        package let count: Int

        @_lifetime(borrow base)
        fileprivate init(base: UnsafeRawPointer, bounds: UnsafeBufferPointer<Int>, number: Int) {
            unsafe self.base = base
            unsafe self.bounds = bounds
            unsafe self.number = number
            unsafe count = bounds.count / 2
        }

        /// Field `i` (0-based), unquoted.
        @inline(__always) @_lifetime(copy self)
        package func field(_ i: Int) -> ByteSpan {
            unsafe precondition(i >= 0 && i < count, "field index out of range")
            // SAFETY: `bounds` lies inside the record's initialised bytes (the type's invariant),
            // and the span is used only while the record is.
            return unsafe _overrideLifetime(
                ByteSpan(start: (base + bounds[2 * i]).assumingMemoryBound(to: UInt8.self), count: bounds[2 * i + 1]), copying: self)
        }
    }

    /// Calls `body` with each record of the file at `path`, in order. A file that ends inside
    /// quotes throws; the last record may lack its line feed.
    package static func forEachRecord(path: String, bufferSize: Int = 1 << 20, _ body: (Record) throws -> Void) throws {
        let file = try ReadOnlyFile(path: path)
        // Invariant: `buffer[position..<filled]` are the file's unread bytes, initialised.
        var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bufferSize, 64), alignment: 8)
        defer { unsafe buffer.deallocate() }
        var fieldBounds = UnsafeMutableBufferPointer<Int>.allocate(capacity: 64)
        defer { unsafe fieldBounds.deallocate() }
        var position = 0, filled = 0, number = 0
        var offset: UInt64 = 0

        while true {
            // SAFETY: every access below stays inside `buffer[position..<filled]`, initialised.
            let base = buffer.baseAddress!
            var end: Int?
            if position < filled, let lf = unsafe memchr(base + position, 0x0A, filled - position) {
                let candidate = unsafe base.distance(to: lf)
                // A quote before the line feed may put it inside a field: scan the quotes.
                if unsafe memchr(base + position, 0x22, candidate - position) == nil {
                    end = candidate
                } else {
                    end = unsafe quotedRecordEnd(buffer, from: position, to: filled)
                }
            }
            if end == nil && offset >= file.size {
                guard position < filled else { return }
                guard unsafe quotedRecordEnd(buffer, from: position, to: filled) == nil, unsafe !endsInsideQuotes(buffer, position, filled) else {
                    throw InputError(file: path, line: number + 1, "quoted field never closed")
                }
                end = filled
            }
            guard let end else {
                try unsafe refill(&buffer, file: file, offset: &offset, position: &position, filled: &filled, path: path)
                continue
            }
            let pairs = unsafe split(buffer, from: position, to: end, into: &fieldBounds)
            number += 1
            // SAFETY: the record's bytes `position..<end` and its `pairs` bounds stay as they are
            // until `body` returns: nothing refills, grows or splits meanwhile.
            try unsafe body(
                Record(base: UnsafeRawPointer(base + position), bounds: UnsafeBufferPointer(rebasing: fieldBounds[0..<pairs]), number: number))
            position = min(end + 1, filled)
        }
    }

    /// The line feed ending the record at `from`, minding quotes; nil when none before `to`.
    private static func quotedRecordEnd(_ buffer: UnsafeMutableRawBufferPointer, from: Int, to: Int) -> Int? {
        var quoted = false
        var i = from
        while i < to {
            let c = unsafe buffer[i]
            if c == 0x22 { quoted.toggle() } else if c == 0x0A && !quoted { return i }
            i += 1
        }
        return nil
    }

    private static func endsInsideQuotes(_ buffer: UnsafeMutableRawBufferPointer, _ from: Int, _ to: Int) -> Bool {
        var quoted = false
        for i in from..<to where unsafe buffer[i] == 0x22 { quoted.toggle() }
        return quoted
    }

    /// Splits `buffer[from..<to]` into fields, unquoting quoted ones in place; writes (start,
    /// length) pairs relative to `from` into `bounds`, growing it; returns how many Ints it
    /// wrote. A `\r` before the line feed is dropped, for files written elsewhere.
    private static func split(
        _ buffer: UnsafeMutableRawBufferPointer, from: Int, to: Int, into bounds: inout UnsafeMutableBufferPointer<Int>
    ) -> Int {
        // SAFETY: `from..<to` lies inside the buffer's initialised bytes; in-place writes go to
        // indices at or below the one just read, inside the same record.
        let bytes = unsafe UnsafeMutableRawBufferPointer(rebasing: buffer[from..<to])
        var end = bytes.count
        if unsafe end > 0 && bytes[end - 1] == 0x0D { end -= 1 }
        var n = 0
        func add(_ start: Int, _ count: Int) {
            if n + 2 > bounds.count {
                let larger = UnsafeMutableBufferPointer<Int>.allocate(capacity: bounds.count * 2 + 2)
                // SAFETY: copies the `n` initialised entries into the new, larger buffer.
                _ = unsafe larger.initialize(from: bounds[0..<n])
                unsafe bounds.deallocate()
                unsafe bounds = larger
            }
            unsafe bounds[n] = start
            unsafe bounds[n + 1] = count
            n += 2
        }
        var i = 0
        while true {
            if unsafe i < end && bytes[i] == 0x22 {
                // Quoted: the content moves down over the opening quote, `""` becoming `"`.
                var read = i + 1, write = i
                while read < end {
                    let c = unsafe bytes[read]
                    if c == 0x22 {
                        if unsafe read + 1 < end && bytes[read + 1] == 0x22 { unsafe bytes[write] = 0x22; write += 1; read += 2; continue }
                        read += 1
                        break
                    }
                    unsafe bytes[write] = c; write += 1; read += 1
                }
                add(i, write - i)
                // Anything between the closing quote and the comma is not RFC 4180; it is skipped.
                while unsafe read < end && bytes[read] != 0x2C { read += 1 }
                if read >= end { return n }
                i = read + 1
            } else {
                var j = i
                while unsafe j < end && bytes[j] != 0x2C { j += 1 }
                add(i, j - i)
                if j >= end { return n }
                i = j + 1
            }
        }
    }

    /// Moves the unread bytes to the front, doubling the buffer when a record fills it, and
    /// reads as many more as fit.
    private static func refill(
        _ buffer: inout UnsafeMutableRawBufferPointer, file: ReadOnlyFile, offset: inout UInt64, position: inout Int,
        filled: inout Int, path: String
    ) throws {
        let kept = filled - position
        if kept == buffer.count {
            let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.count * 2, alignment: 8)
            // SAFETY: copies the `kept` initialised bytes into the new, larger buffer; no record
            // of the old buffer is in use (records live during `body` only).
            unsafe larger.copyMemory(from: UnsafeRawBufferPointer(buffer))
            unsafe buffer.deallocate()
            unsafe buffer = larger
        } else if kept > 0 {
            // SAFETY: both ranges lie inside `buffer`; `memmove` allows them to overlap.
            unsafe memmove(buffer.baseAddress!, buffer.baseAddress! + position, kept)
        }
        // SAFETY: the range lies inside `buffer`, owned by this reader.
        let got = try unsafe file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[kept..<buffer.count]), at: offset)
        offset += UInt64(got)
        position = 0
        filled = kept + got
        if got == 0 && offset < file.size { throw InputError(file: path, "file shrank while read") }
    }
}
