/// Checks and reads decimal numbers as Apple writes them (`72`, `-0.5`, `1.2e-05`) without allocating.
package enum NumberText {
    /// True when the bytes are one decimal number: sign, digits, optional fraction and exponent.
    @inline(__always)
    package static func isNumber(_ s: ByteSpan) -> Bool {
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
    package static func double(_ s: ByteSpan) -> Double? {
        guard isNumber(s) else { return nil }
        // Swift's parser rounds as strtod does; `isNumber` has ruled out what they read differently.
        return Double(s.string)
    }
}

/// HealthTrail's one rule for numbers read from an export: a number is a value when it is finite
/// and smaller in magnitude than 2^63 (about 9.2 × 10^18) once in its canonical unit. Every column
/// holds such a value: a CSV decimal (fixed point, an `Int64` of units), an SQLite or Parquet
/// double, a whole-number column (`Int64`), the `Float` the daily sums keep per sample. Text that
/// is no number is a `non_numeric_value` fault, a number outside the range (`1e309`, which reads
/// as infinity, or `1e308` degF) an `out_of_range` fault; docs/bad-input.md lists what each
/// element then loses.
extension NumberText {
    /// 2^63: the first magnitude outside the range.
    package static let rangeLimit: Double = 0x1p63

    /// True when `v` is finite and |v| < 2^63; false for NaN and ±infinity.
    @inline(__always)
    package static func isInRange(_ v: Double) -> Bool { abs(v) < rangeLimit }

    /// What the text of a number field holds, by the rule above (before any unit conversion).
    package enum Reading: Equatable {
        case value(Double)
        case notANumber
        case outOfRange

        /// The fault kind counted for a field that is no value; nil for a value.
        package var faultKind: String? {
            switch self {
            case .value: return nil
            case .notANumber: return "non_numeric_value"
            case .outOfRange: return "out_of_range"
            }
        }
    }

    /// Reads a field as a value: `notANumber` unless `isNumber` accepts the text, `outOfRange`
    /// unless `isInRange` accepts its value.
    @inline(__always)
    package static func reading(_ s: ByteSpan) -> Reading {
        guard let v = fastDouble(s) else { return .notANumber }
        return isInRange(v) ? .value(v) : .outOfRange
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension NumberText {
    /// 10^k for k in 0...22, every one exact in a `Double` (so equal to `pow(10, k)` and to
    /// repeated multiplication by 10). A switch over literals: a static array cost a lazy
    /// initialisation check and a bounds check per number.
    @inline(__always)
    package static func powerOfTen(_ k: Int) -> Double {
        switch k {
        case 0: return 1e0
        case 1: return 1e1
        case 2: return 1e2
        case 3: return 1e3
        case 4: return 1e4
        case 5: return 1e5
        case 6: return 1e6
        case 7: return 1e7
        case 8: return 1e8
        case 9: return 1e9
        case 10: return 1e10
        case 11: return 1e11
        case 12: return 1e12
        case 13: return 1e13
        case 14: return 1e14
        case 15: return 1e15
        case 16: return 1e16
        case 17: return 1e17
        case 18: return 1e18
        case 19: return 1e19
        case 20: return 1e20
        case 21: return 1e21
        case 22: return 1e22
        default: return pow(10, Double(k))
        }
    }

    /// The value of a number the way `isNumber` accepts it, or nil, rounded as strtod rounds it.
    /// A plain decimal (`72`, `-0.5`, `1234.5678`) whose digits, read as one integer, are below
    /// 2^53 is one correctly rounded division of two exact doubles, without calling strtod: all
    /// Health exports write. The rest (an exponent, more digits) go through `double(_:)`, and
    /// text that reads as infinity (`1e309`) gives infinity, which `isInRange` refuses.
    @inline(__always)
    package static func fastDouble(_ s: ByteSpan) -> Double? {
        let n = s.count
        // SAFETY: `p` is the span's start, and every read below is at an index checked to be
        // below `n`, the span's count, first.
        let p = unsafe s.baseAddress
        var i = 0
        var negative = false
        if n > 0, unsafe p[0] == 0x2D || p[0] == 0x2B { negative = unsafe p[0] == 0x2D; i = 1 }
        var mantissa: UInt64 = 0
        // The digits are counted from where they start and end, and every index stays in
        // 0...n, so the wrapping `&+` never wraps: the loop over the digits, the most of an
        // export's numbers, checks no overflow per byte.
        let integerStart = i
        while i < n {
            let digit = unsafe p[i] &- 0x30
            if digit >= 10 { break }
            mantissa = mantissa &* 10 &+ UInt64(digit)
            i &+= 1
        }
        var digits = i &- integerStart, fraction = 0
        if i < n, unsafe p[i] == 0x2E {
            i &+= 1
            let fractionStart = i
            while i < n {
                let digit = unsafe p[i] &- 0x30
                if digit >= 10 { break }
                mantissa = mantissa &* 10 &+ UInt64(digit)
                i &+= 1
            }
            fraction = i &- fractionStart
            digits &+= fraction
        }
        guard digits > 0 else { return nil }
        // At most 19 digits cannot wrap the mantissa; below 2^53 it is exact in a Double, and so
        // is 10^fraction up to 10^22, so the quotient is the correctly rounded value.
        if i != n || digits > 19 || mantissa >= 1 << 53 || fraction > 22 { return double(s) }
        let v = Double(mantissa) / powerOfTen(fraction)
        return negative ? -v : v
    }
}
