import HealthTrailArchive
import HealthTrailBase

/// A reusable byte buffer that text is formatted straight into and that flushes itself to a
/// sink in ~1 MB chunks, so a 700 MB export is produced with flat memory and no per-record
/// String, interpolation or DateFormatter (each would cost more than the whole record).
///
/// The bytes live in an array whose capacity is reserved once: appends never reallocate while
/// callers call `flushIfFull()` before each element, since `slack` is far larger than any single
/// element (the largest, an HRV record, is ~4 KB). Every write is bounds-checked.
package final class SynthBuffer {
    package static let chunk = 1 << 20
    package static let slack = 1 << 18

    /// The bytes buffered since the last flush (a sidecar file, a formatted date).
    package private(set) var buffered: [UInt8] = []
    /// Bytes handed to the sink so far, plus those still buffered (see `total`).
    private var flushed: UInt64 = 0
    /// Where full chunks go; set only while an entry is being produced.
    package var sink: ((ByteSpan) throws -> Void)?

    package init() {
        buffered.reserveCapacity(SynthBuffer.chunk + SynthBuffer.slack)
    }

    /// The number of bytes buffered since the last flush.
    package var count: Int { buffered.count }

    /// Every byte written since the last `resetTotal()`.
    package var total: UInt64 { flushed + UInt64(count) }

    package func resetTotal() { flushed = 0; clear() }

    /// Drops the buffered bytes (after one formatted for a caller, not for the sink).
    package func clear() { buffered.removeAll(keepingCapacity: true) }

    @inline(__always)
    package func flushIfFull() throws {
        if count >= SynthBuffer.chunk { try flush() }
    }

    package func flush() throws {
        guard count > 0 else { return }
        if let sink { try ByteSpan.withBytes(ofEach: buffered) { try sink($0) } }
        flushed += UInt64(count)
        clear()
    }

    // MARK: - Raw bytes

    @inline(__always)
    package func byte(_ b: UInt8) {
        buffered.append(b)
    }

    @inline(__always)
    package func lit(_ s: StaticString) {
        ByteSpan(s).append(to: &buffered)
    }

    @inline(__always)
    package func bytes(_ a: [UInt8]) {
        buffered.append(contentsOf: a)
    }

    /// Large payloads (the DTD) may exceed the slack, so they go through in pieces.
    package func bigLit(_ s: StaticString) throws {
        var left = ByteSpan(s)
        while left.count > 0 {
            try flushIfFull()
            left.prefix(SynthBuffer.slack / 2).append(to: &buffered)
            left = left.dropFirst(SynthBuffer.slack / 2)
        }
    }

    /// Appends `width` placeholder bytes and returns where they start, for a number written
    /// from its last digit back.
    @inline(__always)
    private func placeholder(_ width: Int) -> Int {
        let start = buffered.count
        buffered.append(contentsOf: repeatElement(0x30, count: width))
        return start
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
        var i = placeholder(digits) + digits - 1
        while true {
            buffered[i] = 48 &+ UInt8(v % 10)
            v /= 10
            if v == 0 { break }
            i -= 1
        }
    }

    /// Exactly `width` digits, zero-padded (for dates, times, fractions).
    @inline(__always)
    package func padded(_ value: Int, _ width: Int) {
        var v = value
        let start = placeholder(width)
        var i = start + width - 1
        while i >= start {
            buffered[i] = 48 &+ UInt8(v % 10)
            v /= 10
            i -= 1
        }
    }

    @inline(__always)
    package func two(_ v: Int) {
        buffered.append(48 &+ UInt8(v / 10))
        buffered.append(48 &+ UInt8(v % 10))
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
        let start = placeholder(digits)
        var i = start + digits - 1
        while i >= start {
            let d = UInt8(v & 15)
            buffered[i] = d < 10 ? 48 &+ d : a &+ d
            v >>= 4
            i -= 1
        }
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
