import HealthTrailArchive
import HealthTrailDecode
import HealthTrailWrite

/// The figures of one local day, as `daily.csv` writes them. Plain fields, no arrays: a day is
/// updated once per heart-rate sample, so it must not allocate or copy.
package struct DailyFigures {
    /// Totals per `CumulativeKind`, by raw value.
    package var cumulative: (Double, Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0, 0)
    /// Bit `kind.rawValue` set when the kind has data that day.
    package var cumulativePresent: UInt8 = 0
    package var hasDay = false
    package var standHoursFromRecords = 0
    package var hasStandRecords = false
    /// From `ActivitySummary`, which wins where present (it is what the rings show).
    package var exerciseMinutesFromSummary: Double?
    package var standHoursFromSummary: Double?
    package var restingSum = 0.0, restingCount = 0
    package var heartRateSum = 0.0, heartRateCount = 0
    package var hrvSum = 0.0, hrvCount = 0
    package var asleepMinutes: Double?
    package var workouts = 0
    package var workoutMinutes = 0.0
}

/// Accumulates daily figures in one pass and writes `daily.csv`.
///
/// A day is a local calendar date, taken from each sample's own UTC offset (a workout's from
/// its `HKTimeZone`). Cumulative quantities are collected per record type and de-duplicated
/// across sources (`CumulativeSeries`) when their type's group of records ends: export.xml groups
/// records by type, so only one type's samples are collected at a time, in sorted runs spilled to
/// `spillDirectory`.
package final class DailySummary {
    /// Days from `firstDay` on, by index: an array, not a hash, because every heart-rate
    /// sample updates one (days span years at most: a few thousand entries).
    /// (Boxed: updated once per sample, and a class's array property would cost a run-time
    /// exclusivity check per update. No update's `body` reaches the table.)
    private let tableBox = UncheckedBox<[DailyFigures]>([])
    private var table: [DailyFigures] { tableBox.value }
    private var firstDay: Int64 = 0
    private var open: [CumulativeKind: CumulativeSeries] = [:]
    /// The open series appended to last: records come grouped by type, so nearly every sample
    /// finds its series here without hashing.
    private var lastOpen: (kind: CumulativeKind, series: CumulativeSeries)?
    private var closed: Set<CumulativeKind> = []
    /// Kinds whose records came in two separate groups: each group is de-duplicated on its own,
    /// not against the other (reported in the manifest; Apple's exports group each type once).
    package private(set) var reopened: Set<CumulativeKind> = []
    package let priority: SourcePriority
    /// The sources' priority order, extended as sources appear: series close once per group of
    /// records, so ordering every source again at each close would cost the square of the sources.
    private var ranking: SourceRanking
    /// Sources ranked so far: each once, however many times series close.
    package var rankedSources: Int { ranking.names.count }

    /// The priority order of `sources` (every source the decoder has met), for the other
    /// outputs that choose between sources: each source is ranked once per run.
    package func sourceRanking(_ sources: [String]) -> SourceRanking {
        ranking.update(sources)
        return ranking
    }
    /// Folder for the sorted runs of cumulative samples (the staging folder); nil keeps them in
    /// memory, which tests and small exports can afford.
    package var spillDirectory: String?
    /// Samples per sorted run (see `SortedRunFile`).
    package var spillRunLength = 1 << 16
    /// The first failure to spill or read back samples (disk full): the run must fail with it
    /// (`throwSpillFailure()`) rather than write totals missing samples.
    private(set) var spillFailure: InputError?

    package init(priority: SourcePriority) {
        self.priority = priority
        ranking = SourceRanking(priority: priority)
    }

    package static let earliestDay = Timestamp.daysFromCivil(year: 1900, month: 1, day: 1)
    package static let latestDay = Timestamp.daysFromCivil(year: 2200, month: 1, day: 1)

    @inline(__always)
    private func update(_ day: Int64, _ body: (inout DailyFigures) -> Void) {
        // Days outside 1900…2199 are broken records, not days: a fixed range, so one stray record
        // can neither grow the table without bound nor push the real days out.
        guard day >= DailySummary.earliestDay, day < DailySummary.latestDay else { return }
        if tableBox.value.isEmpty { firstDay = day }
        if day < firstDay {
            // Rare (records are not sorted): grow at the front.
            tableBox.value.insert(contentsOf: repeatElement(DailyFigures(), count: Int(firstDay - day)), at: 0)
            firstDay = day
        }
        let index = Int(day - firstDay)
        if index >= tableBox.value.count {
            tableBox.value.append(contentsOf: repeatElement(DailyFigures(), count: index - tableBox.value.count + 1))
        }
        tableBox.value[index].hasDay = true
        body(&tableBox.value[index])
    }

    /// The days with data, as (day number, figures), in date order.
    package var days: [(day: Int64, figures: DailyFigures)] {
        table.indices.filter { table[$0].hasDay }.map { (firstDay + Int64($0), table[$0]) }
    }

    package static func add(_ value: Double, to f: inout DailyFigures, kind: CumulativeKind) {
        switch kind {
        case .steps: f.cumulative.0 += value
        case .distance: f.cumulative.1 += value
        case .activeEnergy: f.cumulative.2 += value
        case .basalEnergy: f.cumulative.3 += value
        case .flights: f.cumulative.4 += value
        case .exerciseTime: f.cumulative.5 += value
        }
        f.cumulativePresent |= 1 << UInt8(kind.rawValue)
    }

    package static func total(_ f: DailyFigures, _ kind: CumulativeKind) -> Double? {
        guard f.cumulativePresent & (1 << UInt8(kind.rawValue)) != 0 else { return nil }
        switch kind {
        case .steps: return f.cumulative.0
        case .distance: return f.cumulative.1
        case .activeEnergy: return f.cumulative.2
        case .basalEnergy: return f.cumulative.3
        case .flights: return f.cumulative.4
        case .exerciseTime: return f.cumulative.5
        }
    }

    package func heartRate(_ t: Timestamp, bpm: Double) {
        update(CumulativeSeries.localDay(t.utcSeconds, Int16(t.offsetMinutes))) {
            $0.heartRateSum += bpm; $0.heartRateCount += 1
        }
    }

    package func restingHeartRate(_ t: Timestamp, bpm: Double) {
        update(CumulativeSeries.localDay(t.utcSeconds, Int16(t.offsetMinutes))) {
            $0.restingSum += bpm; $0.restingCount += 1
        }
    }

    package func heartRateVariability(_ t: Timestamp, ms: Double) {
        update(CumulativeSeries.localDay(t.utcSeconds, Int16(t.offsetMinutes))) {
            $0.hrvSum += ms; $0.hrvCount += 1
        }
    }

    package func standHour(_ t: Timestamp, stood: Bool) {
        update(CumulativeSeries.localDay(t.utcSeconds, Int16(t.offsetMinutes))) {
            $0.hasStandRecords = true
            if stood { $0.standHoursFromRecords += 1 }
        }
    }

    /// `value` in the kind's canonical unit (count, m, kcal, s for exercise time).
    package func cumulative(_ kind: CumulativeKind, start: Timestamp, end: Timestamp, value: Double, source: Int) {
        // Samples are stored with 32-bit seconds (1970…2106): a date outside is a broken record.
        guard start.utcSeconds >= 0, end.utcSeconds <= Int64(UInt32.max), end.utcSeconds >= start.utcSeconds else { return }
        let sample = CumulativeSample(
            start: start.utcSeconds, end: end.utcSeconds, value: value, source: Int32(source),
            offsetMinutes: Int16(start.offsetMinutes))
        if let last = lastOpen, last.kind == kind {
            last.series.append(sample)
            return
        }
        if let series = open[kind] {
            series.append(sample)
            lastOpen = (kind, series)
            return
        }
        if closed.contains(kind) { reopened.insert(kind) }
        let series = CumulativeSeries(
            kind: kind, spillPath: spillDirectory.map { "\($0)/.cumulative-\(kind).spill" },
            runLength: spillRunLength)
        series.append(sample)
        open[kind] = series
        lastOpen = (kind, series)
    }

    /// De-duplicates and adds every open series except `keep` (the type now being read).
    package func closeSeries(except keep: CumulativeKind?, sources: [String]) {
        let kinds = open.keys.filter { $0 != keep }
        guard !kinds.isEmpty else { return }
        lastOpen = nil
        ranking.update(sources)
        for kind in kinds.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard let series = open.removeValue(forKey: kind) else { continue }
            closed.insert(kind)
            do {
                try series.deduplicate(ranking: ranking) { day, value in
                    self.update(day) { DailySummary.add(value, to: &$0, kind: kind) }
                }
            } catch {
                if spillFailure == nil { spillFailure = error as? InputError ?? InputError(file: "", "\(error)") }
            }
        }
    }

    /// Throws the first spill failure, if any.
    package func throwSpillFailure() throws {
        if let spillFailure { throw spillFailure }
    }

    package func activitySummary(localDay: Int64, exerciseMinutes: Double?, standHours: Double?) {
        update(localDay) {
            if let exerciseMinutes { $0.exerciseMinutesFromSummary = exerciseMinutes }
            if let standHours { $0.standHoursFromSummary = standHours }
        }
    }

    package func sleepNight(localDay: Int64, asleepMinutes: Double) {
        update(localDay) { $0.asleepMinutes = ($0.asleepMinutes ?? 0) + asleepMinutes }
    }

    package func workout(localDay: Int64, minutes: Double) {
        update(localDay) {
            $0.workouts += 1; $0.workoutMinutes += minutes
        }
    }

    /// One `daily.csv` column's value for a day (those the calendars draw), nil when empty.
    package static func value(of column: String, in f: DailyFigures) -> Double? {
        switch column {
        case "steps": return total(f, .steps)
        case "sleep_asleep_min": return f.asleepMinutes
        case "resting_hr": return f.restingCount > 0 ? f.restingSum / Double(f.restingCount) : nil
        case "workout_min": return f.workoutMinutes
        default: return nil
        }
    }

    /// Writes one row per day that has any figure, in date order.
    package func write(to out: CSVWriter) {
        for (day, f) in days {
            out.date(localSeconds: day * 86_400)
            func cumulative(_ kind: CumulativeKind, scale: Double = 1, digits: Int) {
                out.comma()
                if let total = DailySummary.total(f, kind) { out.decimal(total * scale, digits: digits) }
            }
            func mean(_ sum: Double, _ count: Int) {
                out.comma()
                if count > 0 { out.decimal(sum / Double(count), digits: 1) }
            }
            cumulative(.steps, digits: 0)
            cumulative(.distance, digits: 1)
            cumulative(.activeEnergy, digits: 1)
            out.comma()
            if let m = f.exerciseMinutesFromSummary {
                out.decimal(m, digits: 1)
            } else if let seconds = DailySummary.total(f, .exerciseTime) {
                out.decimal(seconds / 60, digits: 1)
            }
            out.comma()
            if let h = f.standHoursFromSummary { out.decimal(h, digits: 0) } else if f.hasStandRecords { out.int(Int64(f.standHoursFromRecords)) }
            mean(f.restingSum, f.restingCount)
            mean(f.heartRateSum, f.heartRateCount)
            mean(f.hrvSum, f.hrvCount)
            out.comma()
            if let m = f.asleepMinutes { out.decimal(m, digits: 1) }
            out.comma()
            out.int(Int64(f.workouts))
            cumulative(.basalEnergy, digits: 1)
            cumulative(.flights, digits: 0)
            // Like `workouts`, a count every day has: 0 minutes on a day without workouts.
            out.comma()
            out.decimal(f.workoutMinutes, digits: 1)
            out.endRow()
        }
    }
}
