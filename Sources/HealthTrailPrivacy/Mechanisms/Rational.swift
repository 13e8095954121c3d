import Foundation

// Exact rational numbers for the parameters of the noise mechanisms (scales, ε, ρ, σ²).
//
// The samplers never see a floating-point number: a parameter written by a person as a decimal
// ("0.5", "1.25") is parsed digit by digit into an exact fraction (1/2, 5/4), so the mechanism
// that runs is exactly the one whose privacy was claimed.

/// An exact fraction `numerator / denominator` of 64-bit integers, always in lowest terms with a
/// positive denominator.
///
/// Used for every parameter of ``NoiseMechanism`` so that privacy parameters given as decimals
/// (`ε = 0.5`) are represented exactly (`1/2`) rather than rounded to the nearest `Double`.
package struct Rational: Sendable, Hashable, CustomStringConvertible {
    /// The numerator, in lowest terms; carries the sign.
    package let numerator: Int64
    /// The denominator, in lowest terms; always ≥ 1.
    package let denominator: Int64

    /// `numerator / denominator`, reduced to lowest terms with a positive denominator.
    ///
    /// - Precondition: `denominator != 0`, and neither component is `Int64.min`.
    package init(_ numerator: Int64, _ denominator: Int64 = 1) {
        precondition(denominator != 0, "Rational: zero denominator")
        precondition(numerator != .min && denominator != .min, "Rational: Int64.min is not supported")
        let g = Int64(Rational.gcd(numerator.magnitude, denominator.magnitude))
        let sign: Int64 = denominator < 0 ? -1 : 1
        self.numerator = sign * numerator / g
        self.denominator = sign * denominator / g
    }

    /// Parses `"3"`, `"-2"`, `"0.5"`, `".25"`, `"1e-3"` style decimals, or `"3/2"` (each side an integer or decimal) exactly.
    ///
    /// Returns `nil` for anything else, a zero denominator, or a value whose exact fraction does
    /// not fit in `Int64` components.
    package init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            guard let value = Rational.parseDecimal(Substring(trimmed)) else { return nil }
            self = value
        case 2:
            guard let top = Rational.parseDecimal(parts[0]), let bottom = Rational.parseDecimal(parts[1]),
                bottom.numerator != 0, let value = top.dividedReportingOverflow(by: bottom)
            else { return nil }
            self = value
        default:
            return nil
        }
    }

    /// `"n/d"`, or `"n"` when the denominator is 1.
    package var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }

    /// The nearest `Double`, for reporting only (never used to draw noise).
    package var doubleValue: Double { Double(numerator) / Double(denominator) }

    /// `self × other` exactly, or `nil` if the reduced result does not fit in `Int64` components.
    package func multipliedReportingOverflow(by other: Rational) -> Rational? {
        // Cross-cancel first so that the product is already in lowest terms.
        let g1 = Int64(Rational.gcd(numerator.magnitude, other.denominator.magnitude))
        let g2 = Int64(Rational.gcd(other.numerator.magnitude, denominator.magnitude))
        let (n, o1) = (numerator / g1).multipliedReportingOverflow(by: other.numerator / g2)
        let (d, o2) = (denominator / g2).multipliedReportingOverflow(by: other.denominator / g1)
        guard !o1, !o2, n != .min, d != .min else { return nil }
        return Rational(n, d)
    }

    /// `self ÷ other` exactly, or `nil` on overflow. - Precondition: `other` is not zero.
    package func dividedReportingOverflow(by other: Rational) -> Rational? {
        precondition(other.numerator != 0, "Rational: division by zero")
        return multipliedReportingOverflow(by: Rational(other.denominator, other.numerator))
    }

    package static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a == 0 ? 1 : a
    }

    /// Exact decimal parsing: optional sign, digits, optional fraction, optional exponent.
    private static func parseDecimal(_ text: Substring) -> Rational? {
        var chars = Substring(text.trimmingCharacters(in: .whitespaces))
        var negative = false
        if let first = chars.first, first == "-" || first == "+" {
            negative = first == "-"
            chars = chars.dropFirst()
        }
        var exponent = 0
        if let e = chars.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let value = Int(chars[chars.index(after: e)...]), abs(value) <= 18 else { return nil }
            exponent = value
            chars = chars[..<e]
        }
        let pieces = chars.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count <= 2 else { return nil }
        let whole = pieces[0], fraction = pieces.count == 2 ? pieces[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty),
            (whole + fraction).allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        var digits: Int64 = 0
        for ch in whole + fraction {
            let (times10, o1) = digits.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int64(ch.asciiValue! - 48))
            guard !o1, !o2 else { return nil }
            digits = sum
        }
        exponent -= fraction.count
        var power: Int64 = 1
        for _ in 0..<abs(exponent) {
            let (p, o) = power.multipliedReportingOverflow(by: 10)
            guard !o else { return nil }
            power = p
        }
        let magnitude =
            exponent >= 0
            ? Rational(digits, 1).multipliedReportingOverflow(by: Rational(power, 1))
            : Rational(digits, power)
        guard let magnitude else { return nil }
        return negative ? Rational(-magnitude.numerator, magnitude.denominator) : magnitude
    }
}
