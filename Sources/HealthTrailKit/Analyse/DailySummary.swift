/// The figures of one local day, as `daily.csv` writes them.
struct DailyFigures {
    var cumulative = [Double](repeating: 0, count: CumulativeKind.allCases.count)
    var hasCumulative = [Bool](repeating: false, count: CumulativeKind.allCases.count)
    var standHoursFromRecords = 0
    var hasStandRecords = false
    /// From `ActivitySummary`, which wins where present (it is what the rings show).
    var exerciseMinutesFromSummary: Double?
    var standHoursFromSummary: Double?
    var restingSum = 0.0, restingCount = 0
    var heartRateSum = 0.0, heartRateCount = 0
    var hrvSum = 0.0, hrvCount = 0
    var asleepMinutes: Double?
    var workouts = 0
}

/// Accumulates daily figures in one pass and writes `daily.csv`.
///
/// A day is a local calendar date, taken from each sample's own UTC offset (a workout's from
/// its `HKTimeZone`). Cumulative quantities are collected per record type and de-duplicated
/// across sources (`CumulativeSeries`) when their type's group of records ends: export.xml groups
/// records by type, so only one type's samples are held at a time.
final class DailySummary {
    static let columns = ["date", "steps", "distance_m", "active_kcal", "exercise_min", "stand_hours", "resting_hr",
                          "avg_hr", "hrv_sdnn_ms", "sleep_asleep_min", "workouts", "basal_kcal", "flights"]

    private(set) var days: [Int64: DailyFigures] = [:]
    private var open: [CumulativeKind: CumulativeSeries] = [:]
    let priority: SourcePriority

    init(priority: SourcePriority) { self.priority = priority }

    @inline(__always)
    private func update(_ day: Int64, _ body: (inout DailyFigures) -> Void) {
        body(&days[day, default: DailyFigures()])
    }

    func heartRate(_ t: Timestamp, bpm: Double) {
        update(CumulativeSeries.localDay(t.utcSeconds, Int16(t.offsetMinutes))) { $0.heartRateSum += bpm; $0.heartRateCount += 1 }
    }

    func restingHeartRate(_ t: Timestamp, bpm: Double) {
        update(CumulativeSeries.localDay(t.utcSeconds, Int16(t.offsetMinutes))) { $0.restingSum += bpm; $0.restingCount += 1 }
    }

    func heartRateVariability(_ t: Timestamp, ms: Double) {
        update(CumulativeSeries.localDay(t.utcSeconds, Int16(t.offsetMinutes))) { $0.hrvSum += ms; $0.hrvCount += 1 }
    }

    func standHour(_ t: Timestamp, stood: Bool) {
        update(CumulativeSeries.localDay(t.utcSeconds, Int16(t.offsetMinutes))) {
            $0.hasStandRecords = true
            if stood { $0.standHoursFromRecords += 1 }
        }
    }

    /// `value` in the kind's canonical unit (count, m, kcal, s for exercise time).
    func cumulative(_ kind: CumulativeKind, start: Timestamp, end: Timestamp, value: Double, source: Int) {
        open[kind, default: CumulativeSeries(kind: kind)].samples.append(
            CumulativeSample(start: start.utcSeconds, end: end.utcSeconds, value: value, source: Int32(source),
                             offsetMinutes: Int16(start.offsetMinutes)))
    }

    /// De-duplicates and adds every open series except `keep` (the type now being read).
    func closeSeries(except keep: CumulativeKind?, sources: [String]) {
        let kinds = open.keys.filter { $0 != keep }
        guard !kinds.isEmpty else { return }
        let order = priority.order(sources)
        for kind in kinds.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard let series = open.removeValue(forKey: kind) else { continue }
            series.deduplicate(sourceOrder: order) { day, value in
                self.update(day) { $0.cumulative[kind.rawValue] += value; $0.hasCumulative[kind.rawValue] = true }
            }
        }
    }

    func activitySummary(localDay: Int64, exerciseMinutes: Double?, standHours: Double?) {
        update(localDay) {
            if let exerciseMinutes { $0.exerciseMinutesFromSummary = exerciseMinutes }
            if let standHours { $0.standHoursFromSummary = standHours }
        }
    }

    func sleepNight(localDay: Int64, asleepMinutes: Double) {
        update(localDay) { $0.asleepMinutes = ($0.asleepMinutes ?? 0) + asleepMinutes }
    }

    func workout(localDay: Int64) { update(localDay) { $0.workouts += 1 } }

    /// Writes one row per day that has any figure, in date order.
    func write(to out: CSVWriter) {
        for day in days.keys.sorted() {
            let f = days[day]!
            out.date(localSeconds: day * 86_400)
            func cumulative(_ kind: CumulativeKind, scale: Double = 1, digits: Int) {
                out.comma()
                if f.hasCumulative[kind.rawValue] { out.decimal(f.cumulative[kind.rawValue] * scale, digits: digits) }
            }
            func mean(_ sum: Double, _ count: Int) {
                out.comma()
                if count > 0 { out.decimal(sum / Double(count), digits: 1) }
            }
            cumulative(.steps, digits: 0)
            cumulative(.distance, digits: 1)
            cumulative(.activeEnergy, digits: 1)
            out.comma()
            if let m = f.exerciseMinutesFromSummary { out.decimal(m, digits: 1) }
            else if f.hasCumulative[CumulativeKind.exerciseTime.rawValue] {
                out.decimal(f.cumulative[CumulativeKind.exerciseTime.rawValue] / 60, digits: 1)
            }
            out.comma()
            if let h = f.standHoursFromSummary { out.decimal(h, digits: 0) }
            else if f.hasStandRecords { out.int(Int64(f.standHoursFromRecords)) }
            mean(f.restingSum, f.restingCount)
            mean(f.heartRateSum, f.heartRateCount)
            mean(f.hrvSum, f.hrvCount)
            out.comma()
            if let m = f.asleepMinutes { out.decimal(m, digits: 1) }
            out.comma()
            out.int(Int64(f.workouts))
            cumulative(.basalEnergy, digits: 1)
            cumulative(.flights, digits: 0)
            out.endRow()
        }
    }
}
