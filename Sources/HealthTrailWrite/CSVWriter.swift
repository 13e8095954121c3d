import Foundation
import HealthTrailArchive
import HealthTrailBase

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A buffered RFC 4180 CSV file: UTF-8, a header row, `\n` line ends, fields quoted only when
/// they hold a comma, quote or line break.
///
/// Rows are assembled field by field straight from the bytes libxml2 hands over, so writing a
/// record costs a few `memcpy`s and no `String`. The bytes go through an `OutputBuffer`, which
/// also carries the binary spill files and the GeoJSON written with this type's number and
/// date formatting.
@usableFromInline package final class CSVWriter {
    package let path: String
    /// Rows ended so far (the header not counted).
    package var rows: Int { rowCount }
    /// Private storage: `endRow` runs once per row, and a public stored property would be
    /// checked for exclusive access at run time on every `+= 1`.
    private var rowCount = 0
    /// The file's bytes; `let`, so the inlinable appends below reach it without an access check.
    @usableFromInline let out: OutputBuffer
    /// Buffers handed to `WriteBehindQueue` so far (tests check the queue is really used).
    var buffersHandedOver: Int { out.buffersHandedOver }

    /// Creates the file owner-only (0600) and writes the header row (none for an empty header:
    /// a part file whose rows will be appended to another).
    /// - Parameter writeBehind: hand full buffers to `WriteBehindQueue.shared` instead of
    ///   writing them on the calling thread (for files written on the critical path; costs a
    ///   second buffer).
    package init(path: String, header: [String], bufferSize: Int = 256 * 1024, writeBehind: Bool = false) throws {
        self.path = path
        out = try OutputBuffer(path: path, bufferSize: bufferSize, writeBehind: writeBehind)
        for (i, name) in header.enumerated() {
            if i > 0 { comma() }
            ByteSpan.withUTF8(name) { field($0) }
        }
        if !header.isEmpty { endRow() }
        rowCount = 0
    }

    /// Removes the file (a scratch file read back) and gives its bytes back to the staging
    /// budget (`OutputBuffer.discard`).
    package func discard() { out.discard() }

    // MARK: Fields

    /// Appends a text field, quoting it if needed.
    @inline(__always)
    package func field(_ s: ByteSpan) {
        var needsQuotes = false
        for i in 0..<s.count {
            let c = s[i]
            if c == 0x2C || c == 0x22 || c == 0x0A || c == 0x0D { needsQuotes = true; break }
        }
        if !needsQuotes {
            out.append(s)
            return
        }
        out.append(0x22)
        for i in 0..<s.count {
            if s[i] == 0x22 { out.append(0x22) }
            out.append(s[i])
        }
        out.append(0x22)
    }

    package func field(_ s: String) {
        ByteSpan.withUTF8(s) { field($0) }
    }

    /// The bytes `field(_:)` appends for `s`, for a value written on many rows (a route's
    /// workout id, a zone's name), which `raw(_:)` then appends with no scan for quotes.
    package static func fieldBytes(_ s: String) -> [UInt8] {
        let bytes = Array(s.utf8)
        guard bytes.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else { return bytes }
        var quoted: [UInt8] = [0x22]
        for b in bytes {
            if b == 0x22 { quoted.append(0x22) }
            quoted.append(b)
        }
        quoted.append(0x22)
        return quoted
    }

    /// Appends bytes known not to need quoting (numbers, identifiers), or a spill record's.
    @inlinable @inline(__always) package func raw(_ s: ByteSpan) { out.append(s) }

    @inlinable @inline(__always) package func byte(_ b: UInt8) { out.append(b) }

    /// Inlinable like `raw` and `byte`: a row has a comma per field, from other modules.
    @inlinable @inline(__always) package func comma() { out.append(0x2C) }

    /// The UTC day last written and its `yyyy-MM-ddT` text: consecutive rows are mostly on the
    /// same day, so the calendar arithmetic runs once per day, not once per timestamp.
    private var cachedDay: Int64 = .min
    private var cachedDayText: (UInt64, UInt16, UInt8) = (0, 0, 0)

    /// `2024-01-02T15:31:22Z`.
    @inline(__always)
    package func utc(_ seconds: Int64) {
        // SAFETY: the slot is filled here, before the next append to `out`, which owns its bytes.
        let slot = unsafe out.reserve(20)
        let day = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        if day != cachedDay {
            unsafe Timestamp.writeUTC(seconds, to: slot)
            cachedDay = day
            cachedDayText = unsafe (
                slot.load(fromByteOffset: 0, as: UInt64.self), slot.load(fromByteOffset: 8, as: UInt16.self),
                slot.load(fromByteOffset: 10, as: UInt8.self)
            )
        } else {
            unsafe slot.store(cachedDayText.0, toByteOffset: 0)
            unsafe slot.store(cachedDayText.1, toByteOffset: 8)
            unsafe slot.store(cachedDayText.2, toByteOffset: 10)
            let rest = Int(seconds - day * 86_400)
            unsafe slot.putTwoDigits(rest / 3600, at: 11); unsafe slot[13] = 0x3A
            unsafe slot.putTwoDigits(rest / 60 % 60, at: 14); unsafe slot[16] = 0x3A
            unsafe slot.putTwoDigits(rest % 60, at: 17); unsafe slot[19] = 0x5A
        }
    }

    /// `+01:00`.
    @inline(__always)
    package func offset(_ minutes: Int32) {
        // SAFETY: the slot is filled before the next append to `out`.
        unsafe Timestamp.writeOffset(minutes, to: out.reserve(6))
    }

    /// A local calendar date, `2024-01-02`.
    @inline(__always)
    package func date(localSeconds: Int64) {
        // SAFETY: the slot is filled before the next append to `out`.
        unsafe Timestamp.writeDate(localSeconds: localSeconds, to: out.reserve(10))
    }

    package func int(_ v: Int64) { out.appendInteger(v) }

    /// A decimal with up to `digits` fraction digits, trailing zeros removed (`12.5`, `3`).
    /// Like a non-finite value, one too large for fixed point (|v| · 10^digits ≥ 9.2e18, never
    /// in real data; a hostile export can write `value="1e300"`) leaves the field empty.
    package func decimal(_ v: Double, digits: Int = 3) {
        guard v.isFinite else { return }
        let digits = min(max(digits, 0), 18)
        let scale = NumberText.powerOfTen(digits)   // exact: the same as multiplying 1 by 10 `digits` times
        let scaled = (abs(v) * scale).rounded()
        guard scaled < 9.2e18 else { return }
        var units = UInt64(scaled)
        let negative = v < 0 && units != 0
        var fraction = digits
        while fraction > 0 && units % 10 == 0 { units /= 10; fraction -= 1 }
        out.appendFixedPoint(units: units, fractionDigits: fraction, negative: negative)
    }

    /// Ends the row. A write failure (disk full) is remembered and thrown by `close()`.
    @inline(__always)
    package func endRow() {
        out.append(0x0A)
        rowCount += 1
    }

    // MARK: Output

    /// Appends the rows of a finished part file (written without a header) and deletes it.
    package func append(rowsOf part: CSVWriter) throws {
        try part.close()
        try out.append(contentsOf: ReadOnlyFile(path: part.path))
        let appended = part.rows   // read before the update: no access nested in it
        rowCount += appended
        unsafe unlink(part.path)
    }

    /// Writes out the buffer; errors surface in `close()`.
    package func flush() { out.flush() }

    /// Flushes the buffer and waits until the file's data is on disk. Safe to call from another
    /// thread once writing has finished (ExportOutputs syncs all files concurrently).
    package func sync() { out.sync() }

    /// Flushes, syncs and closes; the file is complete only if this returns.
    /// - Parameter syncing: false for scratch files read back and deleted by the same run (spills),
    ///   which need no fsync.
    package func close(syncing: Bool = true) throws { try out.close(syncing: syncing) }
}
