#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A reusable byte buffer that text is formatted straight into and that flushes itself to a
/// sink in ~1 MB chunks, so a 700 MB export is produced with flat memory and no per-record
/// String, interpolation or DateFormatter (each would cost more than the whole record).
///
/// Appends do not check capacity one by one: callers call `flushIfFull()` before each element,
/// and `slack` is far larger than any single element (the largest, an HRV record, is ~4 KB).
package final class SynthBuffer {
    package static let chunk = 1 << 20
    package static let slack = 1 << 18

    package private(set) var base: UnsafeMutablePointer<UInt8>
    package var count = 0
    /// Bytes handed to the sink so far, plus those still buffered (see `total`).
    private var flushed: UInt64 = 0
    /// Where full chunks go; set only while an entry is being produced.
    package var sink: ((UnsafeRawBufferPointer) throws -> Void)?

    package init() {
        base = .allocate(capacity: SynthBuffer.chunk + SynthBuffer.slack)
    }

    deinit { base.deallocate() }

    /// A copy of the bytes buffered since the last flush (a sidecar file, a formatted date).
    package var buffered: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// Every byte written since the last `resetTotal()`.
    package var total: UInt64 { flushed + UInt64(count) }

    package func resetTotal() { flushed = 0; count = 0 }

    @inline(__always)
    package func flushIfFull() throws {
        if count >= SynthBuffer.chunk { try flush() }
    }

    package func flush() throws {
        guard count > 0 else { return }
        try sink?(UnsafeRawBufferPointer(start: base, count: count))
        flushed += UInt64(count)
        count = 0
    }

    // MARK: - Raw bytes

    @inline(__always)
    package func byte(_ b: UInt8) {
        base[count] = b
        count += 1
    }

    @inline(__always)
    package func lit(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        memcpy(base + count, s.utf8Start, n)
        count += n
    }

    @inline(__always)
    package func bytes(_ a: [UInt8]) {
        _ = a.withUnsafeBufferPointer { p in
            memcpy(base + count, p.baseAddress!, p.count)
        }
        count += a.count
    }

    /// Large payloads (the DTD) may exceed the slack, so they go through in pieces.
    package func bigLit(_ s: StaticString) throws {
        var p = s.utf8Start
        var left = s.utf8CodeUnitCount
        while left > 0 {
            try flushIfFull()
            let n = min(left, SynthBuffer.slack / 2)
            memcpy(base + count, p, n)
            count += n
            p += n
            left -= n
        }
    }

    // MARK: - Numbers

    /// A non-negative or negative integer in decimal.
    @inline(__always)
    package func int(_ value: Int) {
        var v = value
        if v < 0 { byte(UInt8(ascii: "-")); v = -v }
        if v < 10 { byte(48 &+ UInt8(v)); return }
        var digits = 1
        var probe = v
        while probe >= 10 { probe /= 10; digits += 1 }
        var i = count + digits - 1
        while true {
            base[i] = 48 &+ UInt8(v % 10)
            v /= 10
            if v == 0 { break }
            i -= 1
        }
        count += digits
    }

    /// Exactly `width` digits, zero-padded (for dates, times, fractions).
    @inline(__always)
    package func padded(_ value: Int, _ width: Int) {
        var v = value
        var i = count + width - 1
        while i >= count {
            base[i] = 48 &+ UInt8(v % 10)
            v /= 10
            i -= 1
        }
        count += width
    }

    @inline(__always)
    package func two(_ v: Int) {
        base[count] = 48 &+ UInt8(v / 10)
        base[count + 1] = 48 &+ UInt8(v % 10)
        count += 2
    }

    package static let powers: [Int] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000]

    /// A decimal with `places` digits after the point, rounded half away from zero. With `trim`
    /// trailing zeros (and a bare point) are dropped, as HealthKit prints values ("72", "0.41").
    @inline(__always)
    /// The number `fixed(value, places)` writes, read back exactly as a reader parses it.
    package static func asWritten(_ value: Double, _ places: Int) -> Double {
        let scale = powers[places]
        return Double(Int((value * Double(scale)).rounded())) / Double(scale)
    }

    package func fixed(_ value: Double, _ places: Int, trim: Bool = true) {
        let scale = SynthBuffer.powers[places]
        var scaled = Int((value * Double(scale)).rounded())
        if scaled < 0 { byte(UInt8(ascii: "-")); scaled = -scaled }
        int(scaled / scale)
        guard places > 0 else { return }
        var frac = scaled % scale
        var width = places
        if trim {
            if frac == 0 { return }
            while frac % 10 == 0 { frac /= 10; width -= 1 }
        }
        byte(UInt8(ascii: "."))
        padded(frac, width)
    }

    /// Lower-case hexadecimal, exactly `digits` digits.
    @inline(__always)
    package func hex(_ value: UInt64, _ digits: Int, upper: Bool = false) {
        let a: UInt8 = upper ? 55 : 87
        var v = value
        var i = count + digits - 1
        while i >= count {
            let d = UInt8(v & 15)
            base[i] = d < 10 ? 48 &+ d : a &+ d
            v >>= 4
            i -= 1
        }
        count += digits
    }

    // MARK: - Dates

    /// `yyyy-MM-dd` of a day number.
    @inline(__always)
    package func day(_ dayNumber: Int) {
        let c = SynthCalendar.civil(dayNumber)
        padded(c.year, 4)
        byte(UInt8(ascii: "-"))
        two(c.month)
        byte(UInt8(ascii: "-"))
        two(c.day)
    }

    /// `yyyy-MM-dd HH:mm:ss +hhmm`: the instant `utc` shown at `offset` seconds, the form every
    /// date in export.xml takes.
    @inline(__always)
    package func healthDate(_ utc: Int, offset: Int) {
        let local = utc + offset
        let d = SynthCalendar.floorDiv(local, 86_400)
        let s = local - d * 86_400
        day(d)
        byte(UInt8(ascii: " "))
        two(s / 3600)
        byte(UInt8(ascii: ":"))
        two((s / 60) % 60)
        byte(UInt8(ascii: ":"))
        two(s % 60)
        byte(UInt8(ascii: " "))
        let o = offset < 0 ? -offset : offset
        byte(offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        two(o / 3600)
        two((o / 60) % 60)
    }

    /// `yyyy-MM-ddTHH:mm:ssZ` (GPX times are UTC).
    @inline(__always)
    package func isoUTC(_ utc: Int) {
        let d = SynthCalendar.floorDiv(utc, 86_400)
        let s = utc - d * 86_400
        day(d)
        byte(UInt8(ascii: "T"))
        two(s / 3600)
        byte(UInt8(ascii: ":"))
        two((s / 60) % 60)
        byte(UInt8(ascii: ":"))
        two(s % 60)
        byte(UInt8(ascii: "Z"))
    }
}
