import HealthTrailBase
import HealthTrailDecode
import HealthTrailPrivacy

/// One publication of a release: a period of its `from`…`to` that is drawn once, after the
/// period has closed, and published as it was drawn on every run after that.
///
/// What decides whether a period is published, answered from the ledger or still waiting is
/// the spec, the release's id and the calendar: public things only. The data never decides it,
/// so the publications and the budget they spend are the same for any two exports that differ
/// in one person's, day's or workout's data (the guarantee's neighbours). A period's data that
/// changes after it was published (a late sync, an edit) changes nothing: it is never re-drawn.
struct Publication: Equatable {
    /// The local dates the publication reads.
    var period: LedgerPeriod
    /// Its public partitions, in order (`PublicPartitions.keys`).
    var keys: [String]
    /// The first day (since 1970-01-01, UTC) a run may publish it: the second day after the
    /// period ends, once every time zone's last day has ended and a night's sync has come in.
    var publishableFrom: Int64

    /// Days between a period's last day and the first run that publishes it.
    static let closingDays: Int64 = 2

    /// Every publication of `release`, in order: one for `cadence: once`, one per whole ISO week,
    /// calendar month or calendar year of the counted days for `cadence: week`, `month` or `year`
    /// (days of a period that `from` or `to` cuts are never published). Empty when no day is
    /// counted.
    static func all(of release: ReleaseSpec.Release) -> [Publication] {
        guard let (first, last) = PublicPartitions.countedDays(of: release) else { return [] }
        let keys = release.aggregate == .density ? [] : PublicPartitions.keys(for: release)
        func make(_ a: Int64, _ b: Int64, _ keys: [String]) -> Publication {
            Publication(period: LedgerPeriod(first: date(a), last: date(b))!, keys: keys, publishableFrom: b + closingDays)
        }
        let cadence = release.cadence ?? .once
        guard cadence != .once else { return [make(first, last, keys)] }
        var result: [Publication] = []
        func periodStart(_ day: Int64) -> Int64 {
            switch cadence {
            case .week: day - PublicPartitions.weekday(day)
            case .month, .once: PublicPartitions.firstOfMonth(day)
            case .year: PublicPartitions.firstOfYear(day)
            }
        }
        func nextStart(_ start: Int64) -> Int64 {
            switch cadence {
            case .week: start + 7
            case .month, .once: PublicPartitions.firstOfNextMonth(start)
            case .year: PublicPartitions.firstOfYear(start + 366)
            }
        }
        var start = periodStart(first)
        while start <= last {
            let next = nextStart(start)
            // Whole periods only: a period cut by from or to would be published, and later drawn
            // again whole once `to` moved on.
            guard start >= first && next - 1 <= last else {
                start = next
                continue
            }
            let (a, b) = (start, next - 1)
            let inPeriod = keys.filter { key in
                let tail = key.split(separator: "|").last.map(String.init) ?? key
                if let day = PublicPartitions.day(tail) { return a <= day && day <= b }
                return tail == PublicPartitions.key(ofDay: a, for: release.partition)
            }
            result.append(make(a, b, inPeriod))
            start = next
        }
        return result
    }

    /// `yyyy-MM-dd` of a day since 1970-01-01.
    static func date(_ day: Int64) -> String { Timestamp(utcSeconds: day * 86_400).localDateString }

    /// Today's date in UTC, `yyyy-MM-dd`: what a run counts as "now" unless told otherwise.
    static func today() -> String { BudgetLedger.now().prefix(10).description }
}
