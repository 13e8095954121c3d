/// The exact budget arithmetic the ledger needs on top of the mechanisms' `Rational`: sums that
/// report overflow instead of trapping, and comparisons that cannot overflow (128-bit products).
/// Kept in its own namespace so it never collides with what `Rational` itself may grow.
package enum LedgerArithmetic {
    package static let zero = Rational(0)

    /// `a + b` exactly, or nil when the reduced result does not fit in `Int64` components.
    package static func sum(_ a: Rational, _ b: Rational) -> Rational? {
        let g = Int64(gcd(a.denominator.magnitude, b.denominator.magnitude))
        let (left, o1) = a.numerator.multipliedReportingOverflow(by: b.denominator / g)
        let (right, o2) = b.numerator.multipliedReportingOverflow(by: a.denominator / g)
        let (n, o3) = left.addingReportingOverflow(right)
        let (d, o4) = a.denominator.multipliedReportingOverflow(by: b.denominator / g)
        guard !o1, !o2, !o3, !o4, n != .min, d != .min else { return nil }
        return Rational(n, d)
    }

    /// `a > b`, exactly: a.n · b.d > b.n · a.d (denominators are positive), in 128 bits.
    package static func greater(_ a: Rational, _ b: Rational) -> Bool {
        let l = a.numerator.multipliedFullWidth(by: b.denominator)
        let r = b.numerator.multipliedFullWidth(by: a.denominator)
        return l.high != r.high ? l.high > r.high : l.low > r.low
    }

    package static func isPositive(_ r: Rational) -> Bool { r.numerator > 0 }

    private static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a == 0 ? 1 : a
    }
}
