import HealthTrailBase

/// The text formats of `report.html`: paces as `m:ss`, durations as `h:mm` or `h:mm:ss`,
/// counts with thousands separators.
package enum ReportFormat {
    /// Seconds per kilometre as `m:ss` (`5:07`), rounded to the second.
    package static func pace(_ secondsPerKm: Double) -> String {
        SVGFormat.minutesSeconds(secondsPerKm)
    }

    /// Minutes as `h:mm` (`452` → `7:32`), rounded to the minute.
    package static func hoursMinutes(minutes: Double) -> String {
        let m = minutes.isFinite ? max(0, Int(minutes.rounded())) : 0
        return "\(m / 60):" + SVGFormat.pad2(m % 60)
    }

    /// Seconds as `m:ss` under an hour, `h:mm:ss` from an hour.
    package static func duration(_ seconds: Double) -> String {
        seconds.rounded() < 3600 ? SVGFormat.minutesSeconds(seconds) : SVGFormat.hoursMinutesSeconds(seconds)
    }

    /// A whole number with thousands separated by commas: `8432` → `8,432`.
    package static func grouped(_ value: Double) -> String {
        guard value.isFinite else { return "" }
        let n = Int(value.rounded())
        var digits = String(abs(n))
        var out = ""
        while digits.count > 3 {
            out = "," + digits.suffix(3) + out
            digits = String(digits.dropLast(3))
        }
        return (n < 0 ? "-" : "") + digits + out
    }

    /// A value of a chart or a table: `grouped` from 1000 up, whole from 100, else one decimal
    /// at most (`61.5`, `62`, `0`).
    package static func value(_ v: Double) -> String {
        guard abs(v) < 1000 else { return grouped(v) }
        var b = SVGBytes(capacity: 8)
        b.number(v, digits: abs(v) >= 100 ? 0 : 1)
        return String(decoding: b.bytes, as: UTF8.self)
    }

    /// `2024-01-02` of days since 1970-01-01.
    package static func date(day: Int64) -> String {
        Timestamp(utcSeconds: day * 86_400).localDateString
    }

    /// The weekday of a day, Monday 0 … Sunday 6 (1970-01-01 was a Thursday).
    package static func weekday(day: Int64) -> Int {
        Int(((day + 3) % 7 + 7) % 7)
    }

    /// Weekday names, Monday first.
    package static let weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// `2024-01-02 07:05` of UTC seconds at an offset.
    package static func localDateTime(_ utcSeconds: Int64, offsetMinutes: Int32) -> String {
        let local = utcSeconds + Int64(offsetMinutes) * 60
        let secondOfDay = Int(((local % 86_400) + 86_400) % 86_400)
        return Timestamp(utcSeconds: local).localDateString + " " + SVGFormat.pad2(secondOfDay / 3600) + ":"
            + SVGFormat.pad2(secondOfDay / 60 % 60)
    }
}

/// Daily values averaged by week or month, with the rolling mean the trend charts draw.
package enum TrendSeries {
    /// How days are grouped.
    package enum Period: Sendable {
        /// ISO weeks, Monday to Sunday.
        case week
        /// Calendar months.
        case month

        /// Days since 1970-01-01 of the first day of the period holding `day`.
        package func start(of day: Int64) -> Int64 {
            switch self {
            case .week: return day - Int64(ReportFormat.weekday(day: day))
            case .month:
                let (y, m, _) = Timestamp.civilFromDays(day)
                return Timestamp.daysFromCivil(year: y, month: m, day: 1)
            }
        }

        /// The number of the period holding `day`, counted from an arbitrary origin: consecutive
        /// periods have consecutive numbers.
        package func index(of day: Int64) -> Int {
            switch self {
            case .week: return Int((start(of: day) + 3) / 7)
            case .month:
                let (y, m, _) = Timestamp.civilFromDays(day)
                return y * 12 + m
            }
        }
    }

    /// One period: its first day and the mean of its days' values.
    package struct Point: Sendable, Equatable {
        package var start: Int64
        package var mean: Double
        package var days: Int

        package init(start: Int64, mean: Double, days: Int) {
            self.start = start
            self.mean = mean
            self.days = days
        }
    }

    /// The mean of each period's days that have a value, periods without any left out,
    /// in order. `values` need not be sorted.
    package static func means(_ values: [(day: Int64, value: Double)], by period: Period) -> [Point] {
        var sums: [Int64: (sum: Double, count: Int)] = [:]
        for v in values where v.value.isFinite {
            let key = period.start(of: v.day)
            sums[key, default: (0, 0)].sum += v.value
            sums[key, default: (0, 0)].count += 1
        }
        return sums.keys.sorted().map { key in
            let s = sums[key]!
            return Point(start: key, mean: s.sum / Double(s.count), days: s.count)
        }
    }

    /// The trailing mean of each value and the `window − 1` before it (fewer at the start).
    package static func rollingMean(_ values: [Double], window: Int) -> [Double] {
        precondition(window > 0, "a rolling mean needs a window of at least one value")
        var out: [Double] = []
        out.reserveCapacity(values.count)
        var sum = 0.0
        for i in values.indices {
            sum += values[i]
            if i >= window { sum -= values[i - window] }
            out.append(sum / Double(min(i + 1, window)))
        }
        return out
    }
}
