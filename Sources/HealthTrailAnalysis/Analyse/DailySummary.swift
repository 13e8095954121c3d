import HealthTrailArchive
import HealthTrailBase
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
    /// The first and last zone the day's samples were dated in (`DailySummary.zoneLabels`), -1
    /// for none: a travel day has two.
    package var firstZone: Int16 = -1
    package var lastZone: Int16 = -1
    /// When those zones were met (UTC seconds): samples are dated out of time order.
    package var firstZoneUTC = Int64.max
    package var lastZoneUTC = Int64.min
}

/// Accumulates daily figures in one pass and writes `daily.csv`.
///
/// A day is a local calendar date in the zone the person was in (`TimeZoneTimeline`), or at the
/// sample's stamped offset when the export names no zone; a workout with an `HKTimeZone` is
/// dated in that zone. The timeline is known only once the whole export is read (workouts come
/// last), so samples are first summed per quarter hour of UTC (`QuarterSums`, spilled like the
/// cumulative series) and dated by `dateSamples(with:)`; every zone's midnight falls on a
/// quarter hour.
///
/// Cumulative quantities are collected per kind (steps, distance, …) in sorted runs spilled to
/// `spillDirectory`, and de-duplicated across sources (`CumulativeSeries`) once export.xml has
/// been read: a sample counts against every other of its kind, wherever each stands in the file
/// (a record among another type's records, a type that comes back in a second group).
package final class DailySummary {
    /// Days from `firstDay` on, by index: an array, not a hash, because every heart-rate
    /// sample updates one (days span years at most: a few thousand entries).
    /// (Boxed: updated once per sample, and a class's array property would cost a run-time
    /// exclusivity check per update. No update's `body` reaches the table.)
    private let tableBox = UncheckedBox<[DailyFigures]>([])
    private var table: [DailyFigures] { tableBox.value }
    private var firstDay: Int64 = 0
    /// Every sample's figures by quarter hour of UTC, until they are dated (created with the
    /// first sample, when `spillDirectory` is set).
    private var quarterSums: QuarterSums?
    /// The zones days were dated in: identifiers (`Europe/Paris`) or, where no zone was seen,
    /// stamped offsets (`+01:00`). `DailyFigures.firstZone` indexes it.
    package private(set) var zoneLabels: [String] = []
    /// `zoneLabels`' index of each timeline zone and of each stamped offset used.
    private var zoneLabelIndex: [Int: Int16] = [:]
    private var offsetLabels: [Int16: Int16] = [:]
    /// The person's zones, once `dateSamples(with:)` has run.
    private var timeline: TimeZoneTimeline?
    /// Quarter hours of samples dated at their stamped offset: all of them when no zone was seen.
    package private(set) var quartersOnStampedOffset = 0
    private var open: [CumulativeKind: CumulativeSeries] = [:]
    /// The open series appended to last: records come grouped by type, so nearly every sample
    /// finds its series here without hashing.
    private var lastOpen: (kind: CumulativeKind, series: CumulativeSeries)?
    /// Kinds whose group of records ended (another type's began) and has not come back.
    private var left: Set<CumulativeKind> = []
    /// Kinds whose records came in two or more separate groups (reported in the manifest;
    /// Apple's exports group each type once). They are de-duplicated together all the same.
    package private(set) var reopened: Set<CumulativeKind> = []
    package let priority: SourcePriority
    /// The sources' priority order, extended as sources appear (`sourceRanking` is asked for
    /// it by other outputs too): each source is ranked once, however often it is asked for.
    private var ranking: SourceRanking
    /// Sources ranked so far: each once.
    package var rankedSources: Int { ranking.names.count }

    /// The priority order of `sources` (every source the decoder has met), for the other
    /// outputs that choose between sources: each source is ranked once per run.
    package func sourceRanking(_ sources: NameBytes) -> SourceRanking {
        ranking.update(names: sources)
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

    /// The table's days: every date the decoders accept (`Timestamp.supportedYears`) with two
    /// days to spare either side, for a time stamped at up to ±18 hours and then dated in
    /// another zone. A fixed range, so one stray record can neither grow the table without
    /// bound nor push the real days out; no accepted record falls outside it.
    package static let earliestDay = Timestamp.daysFromCivil(year: Timestamp.supportedYears.lowerBound, month: 1, day: 1) - 2
    package static let latestDay = Timestamp.daysFromCivil(year: Timestamp.supportedYears.upperBound + 1, month: 1, day: 1) + 2

    @inline(__always)
    private func update(_ day: Int64, _ body: (inout DailyFigures) -> Void) {
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

    private static let earliestQuarter = earliestDay * 96
    private static let latestQuarter = latestDay * 96

    /// The quarter-hour sums, made with the first sample.
    private var sums: QuarterSums {
        if let quarterSums { return quarterSums }
        let sums = QuarterSums(spillPath: spillDirectory.map { "\($0)/.daily-quarters.spill" }, runLength: spillRunLength)
        quarterSums = sums
        return sums
    }

    /// Adds to `figure` (`QuarterSum`) in the quarter hour of `utc`.
    @inline(__always)
    private func add(_ figure: UInt8, _ value: Double, at utc: Int64, stampedOffset: Int32) {
        let quarter = CumulativeSeries.quarterHour(of: utc)
        // The day table's range, in UTC (wider than any accepted date: `earliestDay`).
        guard quarter >= DailySummary.earliestQuarter, quarter < DailySummary.latestQuarter else { return }
        sums.add(figure, quarter: quarter, value: value, stampedOffset: Int16(truncatingIfNeeded: stampedOffset))
    }

    /// Adds `valuePerQuarter` to `figure` in each of `quarters` quarter hours from `firstQuarter`
    /// on, those inside the day table's range.
    private func add(_ figure: UInt8, quarters: Int64, from firstQuarter: Int64, valuePerQuarter: Double, stampedOffset: Int16) {
        let first = max(firstQuarter, DailySummary.earliestQuarter)
        let end = min(firstQuarter + quarters, DailySummary.latestQuarter)
        guard first < end else { return }
        sums.add(figure, quarters: end - first, from: first, valuePerQuarter: valuePerQuarter, stampedOffset: stampedOffset)
    }

    package func heartRate(_ t: Timestamp, bpm: Double) {
        add(QuarterSum.heartRate, bpm, at: t.utcSeconds, stampedOffset: t.offsetMinutes)
    }

    package func restingHeartRate(_ t: Timestamp, bpm: Double) {
        add(QuarterSum.restingHeartRate, bpm, at: t.utcSeconds, stampedOffset: t.offsetMinutes)
    }

    package func heartRateVariability(_ t: Timestamp, ms: Double) {
        add(QuarterSum.heartRateVariability, ms, at: t.utcSeconds, stampedOffset: t.offsetMinutes)
    }

    package func standHour(_ t: Timestamp, stood: Bool) {
        add(QuarterSum.standHour, stood ? 1 : 0, at: t.utcSeconds, stampedOffset: t.offsetMinutes)
    }

    /// `value` in the kind's canonical unit (count, m, kcal, s for exercise time).
    package func cumulative(_ kind: CumulativeKind, start: Timestamp, end: Timestamp, value: Double, source: Int) {
        // Every accepted date fits a sample (`CumulativeSample`); a span that ends before it
        // starts has no time to spread the value over and stays out of the sums.
        guard end.utcSeconds >= start.utcSeconds else { return }
        let sample = CumulativeSample(
            start: start.utcSeconds, end: end.utcSeconds, value: value, source: Int32(source),
            offsetMinutes: Int16(start.offsetMinutes))
        if let last = lastOpen, last.kind == kind {
            last.series.append(sample)
            return
        }
        if left.remove(kind) != nil { reopened.insert(kind) }
        if let series = open[kind] {
            series.append(sample)
            lastOpen = (kind, series)
            return
        }
        let series = CumulativeSeries(
            kind: kind, spillPath: spillDirectory.map { "\($0)/.cumulative-\(kind).spill" },
            runLength: spillRunLength)
        series.append(sample)
        open[kind] = series
        lastOpen = (kind, series)
    }

    /// A group of records ended and a type of kind `next` (nil: not cumulative) begins: notes
    /// that the other kinds' groups ended. Their samples wait, set aside on disk, until
    /// `finishSeries`.
    package func endGroup(before next: CumulativeKind?) {
        lastOpen = nil
        for (kind, series) in open where kind != next && left.insert(kind).inserted { series.setAside() }
    }

    /// After the last record: de-duplicates every kind's samples and adds them.
    package func finishSeries(sources: [String]) {
        ranking.update(sources)
        finishSeries(sources: ranking.names)
    }

    /// After the last record: de-duplicates every kind's samples and adds them; `sources` are
    /// the decoder's names.
    package func finishSeries(sources: NameBytes) {
        lastOpen = nil
        ranking.update(names: sources)
        for kind in open.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard let series = open.removeValue(forKey: kind) else { continue }
            do {
                try series.deduplicate(ranking: ranking) { first, quarters, value, offset in
                    self.add(UInt8(kind.rawValue), quarters: quarters, from: first, valuePerQuarter: value, stampedOffset: offset)
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

    /// Dates every sample summed so far on the person's local day: in the zone `timeline` gives,
    /// or at its stamped offset when no zone was seen. Call once, after the last record and
    /// before `write`; `localOffset(at:stamped:)` uses the same timeline afterwards.
    /// - Throws: when the spilled sums cannot be read back (or could not be written).
    package func dateSamples(with timeline: TimeZoneTimeline) throws {
        var timeline = timeline
        var lastQuarter = Int64.min
        try quarterSums?.drain(byStampedOffset: timeline.isEmpty) { q in
            if q.quarter != lastQuarter {
                lastQuarter = q.quarter
                if timeline.isEmpty { quartersOnStampedOffset += 1 }
            }
            let day = localDay(of: q.quarter * CumulativeSeries.quarterHour, stamped: Int32(q.stampedOffset), timeline: &timeline)
            update(day) { f in
                switch q.figure {
                case QuarterSum.heartRate: f.heartRateSum += q.sum; f.heartRateCount += Int(q.count)
                case QuarterSum.restingHeartRate: f.restingSum += q.sum; f.restingCount += Int(q.count)
                case QuarterSum.heartRateVariability: f.hrvSum += q.sum; f.hrvCount += Int(q.count)
                case QuarterSum.standHour: f.hasStandRecords = true; f.standHoursFromRecords += Int(q.sum)
                default:
                    if let kind = CumulativeKind(rawValue: Int(q.figure)) { DailySummary.add(q.sum, to: &f, kind: kind) }
                }
            }
        }
        quarterSums = nil
        self.timeline = timeline
    }

    /// The local day of `utc` (the person's zone, else `stamped`), noting the zone on the day.
    private func localDay(of utc: Int64, stamped: Int32, timeline: inout TimeZoneTimeline) -> Int64 {
        let label: Int16
        let offset: Int32
        if let local = timeline.offset(at: utc) {
            offset = local.minutes
            label = self.label(zone: local.zone, of: timeline)
        } else {
            offset = stamped
            label = self.label(stamped: Int16(truncatingIfNeeded: stamped))
        }
        let day = CumulativeSeries.localDay(utc, Int16(truncatingIfNeeded: offset))
        update(day) { f in
            if utc < f.firstZoneUTC { f.firstZone = label; f.firstZoneUTC = utc }
            if utc >= f.lastZoneUTC { f.lastZone = label; f.lastZoneUTC = utc }
        }
        return day
    }

    private func label(zone: Int, of timeline: TimeZoneTimeline) -> Int16 {
        if let i = zoneLabelIndex[zone] { return i }
        let i = Int16(zoneLabels.count)
        zoneLabels.append(timeline.names[zone])
        zoneLabelIndex[zone] = i
        return i
    }

    private func label(stamped minutes: Int16) -> Int16 {
        if let i = offsetLabels[minutes] { return i }
        let i = Int16(zoneLabels.count)
        zoneLabels.append(Timestamp(utcSeconds: 0, offsetMinutes: Int32(minutes)).offsetString)
        offsetLabels[minutes] = i
        return i
    }

    /// The person's UTC offset at `utc` once samples are dated: the timeline's, else `stamped`.
    package func localOffset(at utc: Int64, stamped: Int32) -> Int32 {
        timeline?.offset(at: utc)?.minutes ?? stamped
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
        for (day, var f) in days {
            if f.firstZone < 0, var timeline, let zone = timeline.offset(at: day * 86_400 + 43_200)?.zone {
                // A day with no timed sample (only its activity summary): the zone at noon UTC.
                f.firstZone = label(zone: zone, of: timeline)
                f.lastZone = f.firstZone
                self.timeline = timeline
            }
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
            out.comma()
            if f.firstZone >= 0 {
                let first = zoneLabels[Int(f.firstZone)]
                out.field(f.lastZone == f.firstZone ? first : first + ";" + zoneLabels[Int(f.lastZone)])
            }
            out.endRow()
        }
    }
}
