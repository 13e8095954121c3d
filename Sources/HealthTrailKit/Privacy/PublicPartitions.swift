import HealthTrailDecode

/// The partitions a release reports on, from the spec alone: every one is released (with noise)
/// whether or not the data has it, so which keys appear never reveals anything.
enum PublicPartitions {
    static let defaultActivities = ["cycling", "hiking", "running", "swimming", "walking"]

    /// Keys in order: `2024-W05` (ISO week), `2024-01-29` (day), `running|2024-W05`.
    static func keys(for release: ReleaseSpec.Release) -> [String] {
        guard let (first, last) = countedDays(of: release) else { return [] }
        switch release.partition {
        case .day:
            return (first...last).map { Timestamp(utcSeconds: $0 * 86_400).localDateString }
        case .week:
            return weeks(first, last)
        case .activityWeek:
            let weeks = weeks(first, last)
            return (release.activities ?? defaultActivities).sorted().flatMap { a in weeks.map { a + "|" + $0 } }
        }
    }

    /// The days (since 1970-01-01) whose data a release counts, exactly its declared `from`…`to`,
    /// narrowed for weekly partitions to the ISO weeks lying wholly inside it: a week cut by
    /// either date would hold only some of its days, so it is left out, days and all. Nil when no
    /// day (or no whole week) is left. A density release counts `from`…`to` as declared.
    static func countedDays(of release: ReleaseSpec.Release) -> (first: Int64, last: Int64)? {
        guard var first = day(release.from), var last = day(release.to) else { return nil }
        if release.aggregate != .density && release.partition != .day {
            first += (7 - weekday(first)) % 7   // the first Monday on or after `from`
            last -= (weekday(last) + 1) % 7   // the last Sunday on or before `to`
        }
        return first <= last ? (first, last) : nil
    }

    /// 0 for Monday … 6 for Sunday (1970-01-01 was a Thursday).
    static func weekday(_ day: Int64) -> Int64 { ((day + 3) % 7 + 7) % 7 }

    static func weeks(_ first: Int64, _ last: Int64) -> [String] {
        var keys: [String] = []
        for d in first...last where keys.last != isoWeek(d) { keys.append(isoWeek(d)) }
        return keys
    }

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
