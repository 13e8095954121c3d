/// An instant in UTC seconds plus the UTC offset the record was stamped with.
///
/// Apple writes `2024-01-02 07:31:22 -0800`: local wall time and its offset. HealthTrail keeps the
/// instant in UTC (for joins and sorting) and the offset beside it (for local days and nights).
public struct Timestamp: Hashable, Comparable, Sendable, BitwiseCopyable {
    /// Seconds since 1970-01-01T00:00:00Z.
    package var utcSeconds: Int64
    /// Offset of the local time from UTC, in minutes (`-0800` is -480).
    package var offsetMinutes: Int32

    package init(utcSeconds: Int64, offsetMinutes: Int32 = 0) {
        self.utcSeconds = utcSeconds
        self.offsetMinutes = offsetMinutes
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.utcSeconds < b.utcSeconds }

    /// Seconds since the epoch of the local wall time.
    package var localSeconds: Int64 { utcSeconds + Int64(offsetMinutes) * 60 }

    // MARK: Parsing

    /// Parses `yyyy-MM-dd HH:mm:ss ±hhmm` (Apple's export format), or ISO 8601
    /// `yyyy-MM-ddTHH:mm:ss[.fff](Z|±hh:mm|±hhmm)` (GPX). Fractions of a second are dropped.
    /// Returns nil for anything else, years outside `supportedYears` included (every caller
    /// counts that as a `bad_date` fault); no allocation, no locale, no DateFormatter.
    package static func parse(_ p: ByteSpan) -> Timestamp? {
        let n = p.count
        guard n >= 19 else { return nil }
        guard let year = digits(p, 0, 4), p[4] == 0x2D, let month = digits(p, 5, 2), p[7] == 0x2D,
            let day = digits(p, 8, 2), p[10] == 0x20 || p[10] == 0x54,
            let hour = digits(p, 11, 2), p[13] == 0x3A, let minute = digits(p, 14, 2), p[16] == 0x3A,
            let second = digits(p, 17, 2)
        else { return nil }
        guard supportedYears.contains(year), (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour <= 23, minute <= 59, second <= 60
        else { return nil }
        var i = 19
        if i < n, p[i] == 0x2E || p[i] == 0x2C {   // fraction: skip its digits
            i += 1
            while i < n, p[i] &- 0x30 < 10 { i += 1 }
        }
        while i < n, p[i] == 0x20 { i += 1 }
        var offset: Int32 = 0
        if i < n {
            let c = p[i]
            if c == 0x5A {   // Z
                i += 1
            } else if c == 0x2B || c == 0x2D {
                guard let hh = digits(p, i + 1, 2) else { return nil }
                var j = i + 3
                if j < n, p[j] == 0x3A { j += 1 }
                guard let mm = digits(p, j, 2), hh <= 18, mm <= 59 else { return nil }
                offset = Int32(hh * 60 + mm) * (c == 0x2D ? -1 : 1)
                i = j + 2
            } else {
                return nil
            }
        }
        guard i == n else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let local = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        let utc = local - Int64(offset) * 60
        return Timestamp(utcSeconds: utc, offsetMinutes: offset)
    }

    package static func parse(_ text: String) -> Timestamp? {
        ByteSpan.withUTF8(text) { parse($0) }
    }

    /// The years a date may have. Health data predates no one born before 1900, and nothing
    /// recorded lies beyond 2200; outside them a date is a typo, a placeholder (`0000-01-01`) or
    /// crafted, and the arithmetic derived from it (a beat placed on the day before its record,
    /// an offset applied to year 0) would leave four-digit years: `000/-12-31T14:57:51Z` was once
    /// written from `0000-01-01 12:00:00 +1200`.
    package static let supportedYears = 1900...2200

    /// The number the `count` decimal digits at `at` spell; nil unless they lie inside the span
    /// and are all digits.
    @inline(__always)
    package static func digits(_ span: ByteSpan, _ at: Int, _ count: Int) -> Int? {
        guard at >= 0, count >= 0, at <= span.count - count else { return nil }
        var v = 0
        for k in 0..<count {
            let d = span[at + k] &- 0x30
            guard d < 10 else { return nil }
            v = v * 10 + Int(d)
        }
        return v
    }

    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day count since 1970-01-01.
    @inlinable
    package static func civilFromDays(_ z0: Int64) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (Int(yoe + era * 400 + (m <= 2 ? 1 : 0)), Int(m), Int(d))
    }

    /// Days since 1970-01-01 of the local date of `localSeconds` (rounded down, before 1970 too).
    @inlinable @inline(__always)
    package static func day(ofLocalSeconds localSeconds: Int64) -> Int64 {
        localSeconds >= 0 ? localSeconds / 86_400 : (localSeconds - 86_399) / 86_400
    }
}
