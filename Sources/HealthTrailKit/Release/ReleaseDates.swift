import HealthTrailBase
import HealthTrailDecode

/// A release's `from` and `to`: a date `yyyy-MM-dd`, or a date relative to the day the command
/// runs (UTC; `healthtrail release --as-of` sets it), so that a spec follows the calendar rather
/// than a year fixed when it was written. Relative dates are read from the clock alone, never
/// from the data:
///
/// - `today`, `N days ago` (`1 day ago` as well);
/// - `N weeks ago`: the ISO week (Monday to Sunday) N weeks before the current one, its Monday
///   as a `from`, its Sunday as a `to`; `last complete week` is `1 week ago`;
/// - `N months ago`, `N years ago`: the calendar month N months (12 N) before the current one,
///   its first day as a `from`, its last as a `to`; `last complete month` is `1 month ago`.
///
/// - `last complete year`: the calendar year before today's, 1 January as a `from`, 31 December
///   as a `to`.
///
/// So `from: 6 months ago` and `to: last complete month` are the last six whole months. A
/// release with a relative date rolls on with its cadence (`week`, `month` or `year`): each
/// period is drawn once, when it has closed, and the ones already drawn are never drawn again.
enum ReleaseDates {
    /// Which end of a release's dates a text gives.
    enum End { case from, to }

    /// The date `text` names on `today` (days since 1970-01-01), `yyyy-MM-dd`; `text` itself when
    /// it is already a date or is not a relative date (the release's check then reports it).
    static func resolve(_ text: String, end: End, today: Int64) -> String {
        guard let day = relativeDay(text, end: end, today: today) else { return text }
        return Publication.date(day)
    }

    /// Whether `text` is a relative date (not `yyyy-MM-dd`).
    static func isRelative(_ text: String) -> Bool { relativeDay(text, end: .from, today: 0) != nil }

    /// The day a relative date names; nil for anything else.
    static func relativeDay(_ text: String, end: End, today: Int64) -> Int64? {
        let words = text.lowercased().split(separator: " ").map(String.init)
        switch words {
        case ["today"]:
            return today
        case ["last", "complete", "week"]:
            return weeksBack(1, end: end, today: today)
        case ["last", "complete", "month"]:
            return monthsBack(1, end: end, today: today)
        case ["last", "complete", "year"]:
            // The calendar year before today's: 1 January as a `from`, 31 December as a `to`.
            let first = PublicPartitions.firstOfYear(PublicPartitions.firstOfYear(today) - 1)
            return end == .from ? first : PublicPartitions.firstOfYear(today) - 1
        default:
            // At most a thousand years back: far enough for any spec, near enough for the calendar.
            guard words.count == 3, words[2] == "ago", let n = Int64(words[0]), n >= 0, n <= 12_000 else { return nil }
            switch words[1] {
            case "day", "days": return today - n
            case "week", "weeks": return weeksBack(n, end: end, today: today)
            case "month", "months": return monthsBack(n, end: end, today: today)
            case "year",
                "years" where n <= 1000:
                return monthsBack(12 * n, end: end, today: today)
            default: return nil
            }
        }
    }

    /// The first (`from`) or last (`to`) day of the ISO week `weeks` weeks before today's.
    static func weeksBack(_ weeks: Int64, end: End, today: Int64) -> Int64 {
        let monday = today - PublicPartitions.weekday(today) - 7 * weeks
        return end == .from ? monday : monday + 6
    }

    /// The first (`from`) or last (`to`) day of the calendar month `months` months before today's.
    static func monthsBack(_ months: Int64, end: End, today: Int64) -> Int64 {
        let c = Timestamp.civilFromDays(today)
        let index = Int64(c.year) * 12 + Int64(c.month - 1) - months
        let first = Timestamp.daysFromCivil(year: Int(index / 12), month: Int(index % 12) + 1, day: 1)
        return end == .from ? first : PublicPartitions.firstOfNextMonth(first) - 1
    }

    /// Today in UTC, days since 1970-01-01: what a spec's relative dates are read against unless
    /// told otherwise.
    static func today() -> Int64 { PublicPartitions.day(Publication.today()) ?? 0 }
}
