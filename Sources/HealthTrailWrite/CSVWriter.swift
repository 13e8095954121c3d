import Foundation
import HealthTrailArchive
import HealthTrailCommit
import HealthTrailDecode

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A buffered RFC 4180 CSV file: UTF-8, a header row, `\n` line ends, fields quoted only when
/// they hold a comma, quote or line break.
///
/// Rows are assembled field by field straight from the bytes libxml2 hands over, so writing a
/// record costs a few `memcpy`s and no `String`.
public final class CSVWriter {
    public let path: String
    /// Rows ended so far (the header not counted).
    public var rows: Int { rowCount }
    /// Private storage: `endRow` runs once per row, and a public stored property would be
    /// checked for exclusive access at run time on every `+= 1`.
    private var rowCount = 0
    private let fd: Int32
    private var buffer: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private var used = 0
    private var closed = false
    /// With write-behind: the second buffer, which `WriteBehindQueue.shared` writes out while
    /// `buffer` fills; `inFlight` until that write is done (`written` is signalled then).
    private var spare: UnsafeMutablePointer<UInt8>?
    private var inFlight = false
    private let written = DispatchSemaphore(value: 0)
    /// Buffers handed to `WriteBehindQueue` so far (tests check the queue is really used).
    private(set) var buffersHandedOver = 0

    /// Creates the file owner-only (0600) and writes the header row (none for an empty header:
    /// a part file whose rows will be appended to another).
    /// - Parameter writeBehind: hand full buffers to `WriteBehindQueue.shared` instead of
    ///   writing them on the calling thread (for files written on the critical path; costs a
    ///   second buffer).
    public init(path: String, header: [String], bufferSize: Int = 256 * 1024, writeBehind: Bool = false) throws {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw InputError(file: path, "cannot create output file: \(String(cString: strerror(errno)))") }
        capacity = bufferSize
        buffer = .allocate(capacity: bufferSize)
        spare = writeBehind ? .allocate(capacity: bufferSize) : nil
        for (i, name) in header.enumerated() {
            if i > 0 { comma() }
            ByteSpan.withUTF8(name) { field($0) }
        }
        if !header.isEmpty { endRow() }
        rowCount = 0
    }

    deinit {
        waitForWriteBehind()
        buffer.deallocate()
        spare?.deallocate()
        if !closed { Glibc.close(fd) }
    }

    // MARK: Fields

    /// Appends a text field, quoting it if needed.
    @inline(__always)
    public func field(_ s: ByteSpan) {
        var needsQuotes = false
        for i in 0..<s.count {
            let c = s[i]
            if c == 0x2C || c == 0x22 || c == 0x0A || c == 0x0D { needsQuotes = true; break }
        }
        if !needsQuotes {
            raw(s.start, s.count)
            return
        }
        byte(0x22)
        for i in 0..<s.count {
            if s[i] == 0x22 { byte(0x22) }
            byte(s[i])
        }
        byte(0x22)
    }

    public func field(_ s: String) {
        ByteSpan.withUTF8(s) { field($0) }
    }

    /// Appends bytes known not to need quoting (numbers, identifiers).
    @inline(__always)
    package func raw(_ p: UnsafePointer<UInt8>, _ n: Int) {
        if used + n > capacity { flushBuffer() }
        if n > capacity {
            waitForWriteBehind()   // the bytes before these must land first
            writeAll(UnsafeRawPointer(p), n)
            return
        }
        (buffer + used).update(from: p, count: n)
        used += n
    }

    @inline(__always) public func raw(_ s: ByteSpan) { raw(s.start, s.count) }

    @inline(__always)
    public func byte(_ b: UInt8) {
        if used == capacity { flushBuffer() }
        buffer[used] = b
        used += 1
    }

    @inline(__always) public func comma() { byte(0x2C) }

    /// The UTC day last written and its `yyyy-MM-ddT` text: consecutive rows are mostly on the
    /// same day, so the calendar arithmetic runs once per day, not once per timestamp.
    private var cachedDay: Int64 = .min
    private var cachedDayText: (UInt64, UInt16, UInt8) = (0, 0, 0)

    /// `2024-01-02T15:31:22Z`.
    @inline(__always)
    public func utc(_ seconds: Int64) {
        if used + 20 > capacity { flushBuffer() }
        let out = buffer + used
        let day = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        if day != cachedDay {
            Timestamp.writeUTC(seconds, to: out)
            cachedDay = day
            withUnsafeMutableBytes(of: &cachedDayText) { $0.baseAddress!.copyMemory(from: out, byteCount: 11) }
        } else {
            withUnsafeBytes(of: &cachedDayText) { UnsafeMutableRawPointer(out).copyMemory(from: $0.baseAddress!, byteCount: 11) }
            let rest = Int(seconds - day * 86_400)
            Timestamp.put2(rest / 3600, out + 11); out[13] = 0x3A
            Timestamp.put2(rest / 60 % 60, out + 14); out[16] = 0x3A
            Timestamp.put2(rest % 60, out + 17); out[19] = 0x5A
        }
        used += 20
    }

    /// `+01:00`.
    @inline(__always)
    public func offset(_ minutes: Int32) {
        if used + 6 > capacity { flushBuffer() }
        Timestamp.writeOffset(minutes, to: buffer + used)
        used += 6
    }

    /// A local calendar date, `2024-01-02`.
    @inline(__always)
    public func date(localSeconds: Int64) {
        if used + 10 > capacity { flushBuffer() }
        Timestamp.writeDate(localSeconds: localSeconds, to: buffer + used)
        used += 10
    }

    public func int(_ v: Int64) {
        var v = v
        if used + 21 > capacity { flushBuffer() }
        if v < 0 { byte(0x2D); v = -v }
        var tmp:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &tmp) { t in
            var i = 20
            repeat { i -= 1; t[i] = UInt8(0x30 + v % 10); v /= 10 } while v > 0
            raw(t.baseAddress!.assumingMemoryBound(to: UInt8.self) + i, 20 - i)
        }
    }

    /// A decimal with up to `digits` fraction digits, trailing zeros removed (`12.5`, `3`).
    /// Like a non-finite value, one too large for fixed point (|v| · 10^digits ≥ 9.2e18, never
    /// in real data; a hostile export can write `value="1e300"`) leaves the field empty.
    public func decimal(_ v: Double, digits: Int = 3) {
        guard v.isFinite else { return }
        let digits = min(max(digits, 0), 18)
        let scale = NumberText.powerOfTen(digits)   // exact: the same as multiplying 1 by 10 `digits` times
        let scaled = (abs(v) * scale).rounded()
        guard scaled < 9.2e18 else { return }
        var units = UInt64(scaled)
        let negative = v < 0 && units != 0
        var fraction = digits
        while fraction > 0 && units % 10 == 0 { units /= 10; fraction -= 1 }
        // Digits right to left into a scratch buffer, dividing by the constant 10 only (a
        // multiply): this runs for every coordinate of every route point.
        var scratch: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &scratch) { t in
            // Unchecked: at most 21 bytes are written right to left from 32 (19 digits, as
            // units < 9.2e18 and fraction ≤ 18, a point and a sign): i stays in 11..<32, so
            // `&-` cannot wrap and every store is inside the scratch buffer.
            let out = t.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var i = 32
            if fraction > 0 {
                for _ in 0..<fraction { i &-= 1; out[i] = UInt8(truncatingIfNeeded: 0x30 &+ units % 10); units /= 10 }
                i &-= 1; out[i] = 0x2E
            }
            repeat { i &-= 1; out[i] = UInt8(truncatingIfNeeded: 0x30 &+ units % 10); units /= 10 } while units > 0
            if negative { i &-= 1; out[i] = 0x2D }
            raw(out + i, 32 &- i)
        }
    }

    /// Ends the row. A write failure (disk full) is remembered and thrown by `close()`.
    @inline(__always)
    public func endRow() {
        byte(0x0A)
        rowCount += 1
    }

    // MARK: Output

    private var failure: InputError?

    private func flushBuffer() {
        guard used > 0 else { return }
        guard let free = spare else {
            writeAll(UnsafeRawPointer(buffer), used)
            used = 0
            return
        }
        waitForWriteBehind()   // the spare's last write is done: it can be filled again
        let full = UnsafeRawPointer(buffer), count = used
        spare = buffer
        buffer = free
        used = 0
        inFlight = true
        buffersHandedOver += 1
        WriteBehindQueue.shared.submit { [self] in
            writeAll(full, count)
            written.signal()
        }
    }

    /// Waits for the buffer in flight (if any) to be written. After this, `failure` may be read.
    private func waitForWriteBehind() {
        guard inFlight else { return }
        written.wait()
        inFlight = false
    }

    private func writeAll(_ p: UnsafeRawPointer, _ n: Int) {
        guard failure == nil else { return }
        let failed = writeFully(fd, p, n)
        if failed != 0 { failure = InputError(file: path, "cannot write: \(String(cString: strerror(failed)))") }
    }

    /// Appends the rows of a finished part file (written without a header) and deletes it.
    public func append(rowsOf part: CSVWriter) throws {
        try part.close()
        let file = try ReadOnlyFile(path: part.path)
        try streamWholeFile(file, entryName: nil) { chunk in
            raw(chunk.baseAddress!.assumingMemoryBound(to: UInt8.self), chunk.count)
        }
        let appended = part.rows   // read before the update: no access nested in it
        rowCount += appended
        unlink(part.path)
    }

    /// Writes out the buffer; errors surface in `close()`.
    public func flush() { flushBuffer(); waitForWriteBehind() }

    /// Flushes the buffer and waits until the file's data is on disk. Safe to call from another
    /// thread once writing has finished (ExportOutputs syncs all files concurrently).
    public func sync() {
        flushBuffer()
        waitForWriteBehind()
        if fsync(fd) != 0 && errno != EINVAL && failure == nil {
            failure = InputError(file: path, "cannot write: \(String(cString: strerror(errno)))")
        }
    }

    /// Flushes, syncs and closes; the file is complete only if this returns.
    /// - Parameter syncing: false for scratch files read back and deleted by the same run (spills),
    ///   which need no fsync.
    public func close(syncing: Bool = true) throws {
        guard !closed else { return }
        if syncing { sync() } else { flushBuffer(); waitForWriteBehind() }
        closed = true
        Glibc.close(fd)
        if let failure { throw failure }
    }
}
