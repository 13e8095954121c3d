import HealthTrailBase
import HealthTrailDecode

/// The partitions a release reports on, from the spec alone: every one is released (with noise)
/// whether or not the data has it, so which keys appear never reveals anything.
enum PublicPartitions {
    static let defaultActivities = ["cycling", "hiking", "running", "swimming", "walking"]

    /// Keys in order: `2024-W05` (ISO week), `2024-01` (calendar month), `2024-01-29` (day),
    /// `running|2024-W05`, `running|2024-01`.
    static func keys(for release: ReleaseSpec.Release) -> [String] {
        guard let (first, last) = countedDays(of: release) else { return [] }
        let periods = distinct((first...last).map { key(ofDay: $0, for: release.partition) })
        guard release.partition.byActivity else { return periods }
        return (release.activities ?? defaultActivities).sorted().flatMap { a in periods.map { a + "|" + $0 } }
    }

    /// The partition key of a day (without the activity): its ISO week, month, or date.
    static func key(ofDay day: Int64, for partition: ReleaseSpec.PartitionKind) -> String {
        switch partition {
        case .day: return Timestamp(utcSeconds: day * 86_400).localDateString
        case .week, .activityWeek: return isoWeek(day)
        case .month, .activityMonth: return month(day)
        }
    }

    /// The days (since 1970-01-01) whose data a release counts, exactly its declared `from`…`to`,
    /// narrowed for weekly and monthly partitions to the ISO weeks or calendar months lying
    /// wholly inside it: a week or month cut by either date would hold only some of its days, so
    /// it is left out, days and all. Nil when no day (or no whole period) is left. A density
    /// release counts `from`…`to` as declared.
    static func countedDays(of release: ReleaseSpec.Release) -> (first: Int64, last: Int64)? {
        guard var first = day(release.from), var last = day(release.to) else { return nil }
        if release.aggregate != .density {
            switch release.partition {
            case .day: break
            case .week, .activityWeek:
                first += (7 - weekday(first)) % 7   // the first Monday on or after `from`
                last -= (weekday(last) + 1) % 7   // the last Sunday on or before `to`
            case .month, .activityMonth:
                if Timestamp.civilFromDays(first).day != 1 { first = firstOfNextMonth(first) }
                if Timestamp.civilFromDays(last + 1).day != 1 { last = firstOfMonth(last) - 1 }
            }
        }
        return first <= last ? (first, last) : nil
    }

    /// `2024-01` of a day.
    static func month(_ day: Int64) -> String {
        let c = Timestamp.civilFromDays(day)
        return "\(c.year)-" + (c.month < 10 ? "0" : "") + "\(c.month)"
    }

    static func firstOfMonth(_ day: Int64) -> Int64 {
        let c = Timestamp.civilFromDays(day)
        return Timestamp.daysFromCivil(year: c.year, month: c.month, day: 1)
    }

    /// Whether `days` is 1 January to 31 December of one year.
    static func isOneCalendarYear(_ days: (first: Int64, last: Int64)) -> Bool {
        let a = Timestamp.civilFromDays(days.first), b = Timestamp.civilFromDays(days.last)
        return a.year == b.year && a.month == 1 && a.day == 1 && b.month == 12 && b.day == 31
    }

    /// 1 January of the day's year.
    static func firstOfYear(_ day: Int64) -> Int64 {
        Timestamp.daysFromCivil(year: Timestamp.civilFromDays(day).year, month: 1, day: 1)
    }

    static func firstOfNextMonth(_ day: Int64) -> Int64 {
        let c = Timestamp.civilFromDays(day)
        return c.month == 12
            ? Timestamp.daysFromCivil(year: c.year + 1, month: 1, day: 1) : Timestamp.daysFromCivil(year: c.year, month: c.month + 1, day: 1)
    }

    /// `keys` in order, each once.
    static func distinct(_ keys: [String]) -> [String] {
        var result: [String] = []
        for k in keys where result.last != k { result.append(k) }
        return result
    }

    /// 0 for Monday … 6 for Sunday (1970-01-01 was a Thursday).
    static func weekday(_ day: Int64) -> Int64 { ((day + 3) % 7 + 7) % 7 }

    /// Days since 1970-01-01 of `yyyy-MM-dd`.
    static func day(_ date: String) -> Int64? {
        Timestamp.parse(date + " 00:00:00 +0000").map { $0.utcSeconds / 86_400 }
    }

    /// ISO 8601 week of a day: `2024-W05` (weeks start on Monday; week 1 holds the first Thursday).
    static func isoWeek(_ day: Int64) -> String {
        let thursday = day - weekday(day) + 3
        let year = Timestamp.civilFromDays(thursday).year
        let firstDay = Timestamp.daysFromCivil(year: year, month: 1, day: 1)
        let week = (thursday - firstDay) / 7 + 1
        return "\(year)-W" + (week < 10 ? "0" : "") + "\(week)"
    }
}
