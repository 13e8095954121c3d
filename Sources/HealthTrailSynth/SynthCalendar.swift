/// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), after
/// Howard Hinnant's public-domain algorithms: exact, branch-light and far faster than
/// Foundation's Calendar, which matters when formatting tens of millions of dates.
///
/// `Timestamp` has the same algorithms; the generator keeps its own copy on purpose. It is the
/// oracle the round-trip tests compare the decoder against, so it must not share the decoder's
/// date code: a bug there would otherwise cancel out instead of failing a test.
package enum SynthCalendar {
    /// Day number of a civil date.
    @inline(__always)
    package static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Civil date of a day number.
    @inline(__always)
    package static func civil(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// `yyyy-MM-dd` of a day number, for the summary's keys.
    package static func isoDay(_ days: Int) -> String {
        let c = civil(days)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(c.year)-\(two(c.month))-\(two(c.day))"
    }

    /// `yyyy-MM-ddTHH:mm:ssZ` of a UTC instant, for the summary's keys.
    package static func isoUTC(_ utc: Int) -> String {
        let day = floorDiv(utc, 86_400), s = utc - day * 86_400
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(isoDay(day))T\(two(s / 3600)):\(two(s / 60 % 60)):\(two(s % 60))Z"
    }

    /// 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday).
    @inline(__always)
    package static func weekday(_ days: Int) -> Int { ((days % 7) + 11) % 7 }

    /// Floor division, so instants before 1970 still fall on the right day.
    @inline(__always)
    package static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
}
