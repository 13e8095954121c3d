/// Checks and reads decimal numbers as Apple writes them (`72`, `-0.5`, `1.2e-05`) without allocating.
public enum NumberText {
    /// True when the bytes are one decimal number: sign, digits, optional fraction and exponent.
    @inline(__always)
    public static func isNumber(_ s: ByteSpan) -> Bool {
        var i = 0
        let n = s.count
        if i < n, s[i] == 0x2D || s[i] == 0x2B { i += 1 }
        var digits = 0
        while i < n, s[i] &- 0x30 < 10 { i += 1; digits += 1 }
        if i < n, s[i] == 0x2E {
            i += 1
            while i < n, s[i] &- 0x30 < 10 { i += 1; digits += 1 }
        }
        guard digits > 0 else { return false }
        if i < n, s[i] == 0x65 || s[i] == 0x45 {
            i += 1
            if i < n, s[i] == 0x2D || s[i] == 0x2B { i += 1 }
            var e = 0
            while i < n, s[i] &- 0x30 < 10 { i += 1; e += 1 }
            guard e > 0 else { return false }
        }
        return i == n
    }

    /// The value of a number the way `isNumber` accepts it, or nil.
    public static func double(_ s: ByteSpan) -> Double? {
        guard isNumber(s) else { return nil }
        // strtod needs a terminated string; numbers are short, so copy to the stack.
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: s.count + 1) { buf in
            for i in 0..<s.count { buf[i] = CChar(bitPattern: s[i]) }
            buf[s.count] = 0
            return strtod(buf.baseAddress!, nil)
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension NumberText {
    private static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

    /// The value of a plain decimal (`72`, `-0.5`, `1234.5678`) without calling strtod; numbers
    /// with an exponent or more than 18 digits fall back to `double(_:)`. Exact for values with
    /// up to 15 significant digits, which is all Health exports write.
    @inline(__always)
    public static func fastDouble(_ s: ByteSpan) -> Double? {
        var i = 0
        let n = s.count
        var negative = false
        if i < n, s[i] == 0x2D || s[i] == 0x2B { negative = s[i] == 0x2D; i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0, fraction = 0
        while i < n, s[i] &- 0x30 < 10 { mantissa = mantissa &* 10 &+ UInt64(s[i] &- 0x30); i += 1; digits += 1 }
        if i < n, s[i] == 0x2E {
            i += 1
            while i < n, s[i] &- 0x30 < 10 { mantissa = mantissa &* 10 &+ UInt64(s[i] &- 0x30); i += 1; digits += 1; fraction += 1 }
        }
        guard digits > 0 else { return nil }
        if i != n || digits > 18 || fraction > 22 { return double(s) }
        let v = Double(mantissa) / powersOfTen[fraction]
        return negative ? -v : v
    }
}
