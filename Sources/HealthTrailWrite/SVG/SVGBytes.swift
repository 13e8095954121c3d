import HealthTrailArchive
import HealthTrailBase

/// The bytes of one SVG document, assembled without a `String` per number: a density map holds
/// tens of thousands of rectangles and a long route tens of thousands of coordinates.
///
/// Numbers have a fixed format so the same drawing is the same bytes: `number(_:digits:)` rounds
/// half away from zero to `digits` decimals and drops trailing zeros (`12.5`, `3`, never `-0`).
/// Text is escaped for XML 1.0 (`&`, `<`, `>`, `"`, `'`), and characters XML 1.0 forbids
/// (C0 controls other than tab, line feed and carriage return) become spaces.
package struct SVGBytes {
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 16_384) {
        bytes.reserveCapacity(capacity)
    }

    /// Opens the document: XML declaration and the root `svg` with its size and view box.
    package mutating func open(width: Int, height: Int) {
        literal("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        literal("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"")
        int(width); literal("\" height=\""); int(height)
        literal("\" viewBox=\"0 0 "); int(width); byte(0x20); int(height)
        literal("\" font-family=\"Helvetica, Arial, sans-serif\">\n")
    }

    package mutating func close() {
        literal("</svg>\n")
    }

    @inline(__always)
    package mutating func literal(_ s: StaticString) {
        ByteSpan(s).append(to: &bytes)
    }

    @inline(__always)
    package mutating func byte(_ b: UInt8) {
        bytes.append(b)
    }

    /// A string known to need no escaping (colours, fixed names).
    package mutating func plain(_ s: String) {
        bytes.append(contentsOf: s.utf8)
    }

    /// Text or an attribute value, XML-escaped.
    package mutating func text(_ s: String) {
        for c in s.utf8 {
            switch c {
            case 0x26: literal("&amp;")
            case 0x3C: literal("&lt;")
            case 0x3E: literal("&gt;")
            case 0x22: literal("&quot;")
            case 0x27: literal("&apos;")
            case 0x09, 0x0A, 0x0D: bytes.append(c)
            case 0..<0x20, 0x7F: bytes.append(0x20)
            default: bytes.append(c)
            }
        }
    }

    package mutating func int(_ v: Int) {
        var v = v
        if v < 0 { bytes.append(0x2D); v = -v }
        // The digits come last first: appended, then put in order by swapping in place (reversing
        // the slice `bytes[first...]` would copy it: an allocation per number).
        let first = bytes.count
        repeat { bytes.append(UInt8(0x30 + v % 10)); v /= 10 } while v > 0
        var low = first, high = bytes.count - 1
        while low < high {
            bytes.swapAt(low, high)
            low += 1
            high -= 1
        }
    }

    /// `v` with at most `digits` decimals (0…6), trailing zeros removed. Non-finite values and
    /// magnitudes past 1e12 (never a sensible coordinate) are written as 0.
    package mutating func number(_ v: Double, digits: Int = 1) {
        guard v.isFinite, abs(v) < 1e12 else { bytes.append(0x30); return }
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        var units = Int64((abs(v) * Double(scale)).rounded())
        if v < 0 && units != 0 { bytes.append(0x2D) }
        let whole = units / scale
        int(Int(whole))
        units -= whole * scale
        guard units > 0 else { return }
        bytes.append(0x2E)
        var divisor = scale / 10
        while units > 0 && divisor > 0 {
            bytes.append(UInt8(0x30 + units / divisor))
            units %= divisor
            divisor /= 10
        }
    }

    /// `name="value"` with a leading space, the value a number.
    package mutating func attribute(_ name: StaticString, _ v: Double, digits: Int = 1) {
        byte(0x20); literal(name); literal("=\""); number(v, digits: digits); byte(0x22)
    }

    /// `name="value"` with a leading space, the value escaped text.
    package mutating func attribute(_ name: StaticString, _ value: String) {
        byte(0x20); literal(name); literal("=\""); text(value); byte(0x22)
    }

    /// `<text x y …>content</text>` with optional extra attributes (a literal, already valid).
    /// The height of one legend row, points.
    package static let legendRowHeight: Double = 18

    /// One legend row: a colour swatch and its label, row `index` below `top`.
    package mutating func legendRow(index: Int, top: Double, colour: String, label: String) {
        let y = top + Double(index) * Self.legendRowHeight
        literal("<g class=\"legend-entry\">\n<rect x=\"16\""); attribute("y", y + 3)
        literal(" width=\"22\" height=\"8\" rx=\"2\" fill=\""); text(colour); literal("\"/>\n")
        textElement(label, x: 46, y: y + 12, size: 12)
        literal("</g>\n")
    }

    package mutating func textElement(
        _ content: String, x: Double, y: Double, size: Double,
        anchor: StaticString? = nil, fill: StaticString = "#222222",
        weight: StaticString? = nil, cls: StaticString? = nil
    ) {
        literal("<text")
        if let cls { literal(" class=\""); literal(cls); byte(0x22) }
        attribute("x", x); attribute("y", y)
        literal(" font-size=\""); number(size); byte(0x22)
        if let anchor { literal(" text-anchor=\""); literal(anchor); byte(0x22) }
        if let weight { literal(" font-weight=\""); literal(weight); byte(0x22) }
        literal(" fill=\""); literal(fill); literal("\">")
        text(content)
        literal("</text>\n")
    }
}

/// Shared text formats of the maps.
package enum SVGFormat {
    /// `#rrggbb` of `0xRRGGBB`.
    package static func hex(_ rgb: UInt32) -> String {
        let digits: [Character] = Array("0123456789abcdef")
        var s = "#"
        for shift in stride(from: 20, through: 0, by: -4) { s.append(digits[Int((rgb >> UInt32(shift)) & 0xF)]) }
        return s
    }

    /// Seconds as `m:ss` (minutes unbounded: `73:05`), rounded to the second.
    package static func minutesSeconds(_ seconds: Double) -> String {
        let s = seconds.isFinite ? max(0, Int(seconds.rounded())) : 0
        return "\(s / 60):" + pad2(s % 60)
    }

    /// Seconds as `h:mm:ss`, rounded to the second.
    package static func hoursMinutesSeconds(_ seconds: Double) -> String {
        let s = seconds.isFinite ? max(0, Int(seconds.rounded())) : 0
        return "\(s / 3600):" + pad2(s / 60 % 60) + ":" + pad2(s % 60)
    }

    package static func pad2(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

    /// A fixed-decimals rendering (`10.02`), the same bytes as `SVGBytes.number` would write but
    /// keeping trailing zeros: `decimals(10, 2)` is `10.00`.
    package static func decimals(_ v: Double, _ digits: Int) -> String {
        guard v.isFinite, abs(v) < 1e12 else { return "0" }
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        let units = Int64((abs(v) * Double(scale)).rounded())
        let sign = v < 0 && units != 0 ? "-" : ""
        guard digits > 0 else { return sign + "\(units)" }
        var frac = "\(units % scale)"
        while frac.count < digits { frac = "0" + frac }
        return sign + "\(units / scale)." + frac
    }

    /// A value for a label: whole numbers from 100 up, otherwise up to 2 decimals, trailing
    /// zeros removed (`8432`, `61.5`, `0.25`).
    package static func label(_ v: Double) -> String {
        var b = SVGBytes(capacity: 16)
        b.number(v, digits: abs(v) >= 100 ? 0 : 2)
        return String(decoding: b.bytes, as: UTF8.self)
    }

    /// `2024-01-02` of UTC seconds shifted by an offset in minutes.
    package static func localDate(_ utcSeconds: Int64, offsetMinutes: Int32) -> String {
        let local = utcSeconds + Int64(offsetMinutes) * 60
        return Timestamp(utcSeconds: local).localDateString
    }

    /// `running` → `Running`, `traditional_strength_training` → `Traditional strength training`.
    package static func activityTitle(_ activity: String) -> String {
        let words = String(activity.map { $0 == "_" ? " " : $0 })
        guard let first = words.first else { return "Workout" }
        return first.uppercased() + words.dropFirst()
    }
}
