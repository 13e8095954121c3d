import HealthTrailAnalysis
import HealthTrailBase
import HealthTrailDecode
import HealthTrailWrite

/// `splits.csv` and `best_efforts.csv` rows from the workouts' `WorkoutEffortFigures`.
enum EffortRows {
    /// One row per split of every workout with a route, in the order the routes were read.
    static func writeSplits(_ workouts: [WorkoutEffortFigures], unit: SplitUnit, zones: HeartRateZones, to out: CSVWriter) {
        for w in workouts {
            for s in w.splits {
                out.field(w.workoutID); out.comma()
                out.field(w.activity); out.comma()
                out.field(unit.rawValue); out.comma()
                out.int(Int64(s.index)); out.comma()
                out.decimal(s.distance, digits: 1); out.comma()
                out.decimal(s.elapsed, digits: 1); out.comma()
                out.decimal(s.moving, digits: 1); out.comma()
                if let pace = s.paceSecondsPerKilometre { out.decimal(pace, digits: 1) }
                out.comma()
                if let pace = s.paceSecondsPerMile { out.decimal(pace, digits: 1) }
                out.comma()
                if let bpm = s.meanBPM {
                    out.decimal(bpm, digits: 1); out.comma()
                    out.field(zones.zones[zones.zoneIndex(for: bpm)].name)
                } else {
                    out.comma()
                }
                out.comma()
                out.decimal(s.climb, digits: 1); out.comma()
                out.utc(Int64(s.endTime.rounded())); out.comma()
                out.field(s.isPartial ? "true" : "false")
                out.endRow()
            }
        }
    }

    /// Each workout's best efforts; then the fastest of each calendar year per activity and
    /// distance (`scope` `year`, years ascending), the year being that of the effort's start in
    /// the person's local time (`offsets`: each workout's UTC offset, minutes; UTC without one);
    /// then the fastest of all workouts per activity and distance (`scope` `all_time`). Efforts
    /// are ranked by their wall-clock seconds; on a tie, the earlier effort wins (the earlier
    /// workout's: `workouts` come in the order their routes were read, not always time order).
    static func writeBestEfforts(_ workouts: [WorkoutEffortFigures], offsets: [String: Int32], to out: CSVWriter) {
        typealias Best = (workoutID: String, effort: BestEffort)
        func keep(_ candidate: Best, in best: inout Best?) {
            guard let b = best else {
                best = candidate
                return
            }
            let (c, e) = (candidate.effort, b.effort)
            if (c.elapsed, c.start, candidate.workoutID) < (e.elapsed, e.start, b.workoutID) { best = candidate }
        }
        var allTime: [String: Best] = [:]
        var byYear: [Int: [String: Best]] = [:]
        for w in workouts {
            let offsetSeconds = Int64(offsets[w.workoutID] ?? 0) * 60
            for (name, effort) in w.bestEfforts {
                row("workout", year: nil, w.workoutID, w.activity, name, effort, to: out)
                let key = w.activity + "\u{0}" + name
                keep((w.workoutID, effort), in: &allTime[key])
                let localDay = Timestamp.day(ofLocalSeconds: Int64(effort.start.rounded()) + offsetSeconds)
                keep((w.workoutID, effort), in: &byYear[Timestamp.civilFromDays(localDay).year, default: [:]][key])
            }
        }
        func rows(_ scope: String, year: Int?, _ best: [String: Best]) {
            for (activity, targets) in [("running", BestEfforts.running), ("cycling", BestEfforts.cycling)] {
                for target in targets {
                    guard let b = best[activity + "\u{0}" + target.name] else { continue }
                    row(scope, year: year, b.workoutID, activity, target.name, b.effort, to: out)
                }
            }
        }
        for year in byYear.keys.sorted() { rows("year", year: year, byYear[year]!) }
        rows("all_time", year: nil, allTime)
    }

    private static func row(
        _ scope: String, year: Int?, _ id: String, _ activity: String, _ name: String, _ e: BestEffort, to out: CSVWriter
    ) {
        out.field(scope); out.comma()
        if let year { out.int(Int64(year)) }
        out.comma()
        out.field(id); out.comma()
        out.field(activity); out.comma()
        out.field(name); out.comma()
        out.decimal(e.distance, digits: 1); out.comma()
        out.decimal(e.elapsed, digits: 1); out.comma()
        out.decimal(e.active, digits: 1); out.comma()
        out.decimal(e.elapsed / (e.distance / 1000), digits: 1); out.comma()
        out.utc(Int64(e.start.rounded())); out.comma()
        out.utc(Int64(e.end.rounded()))
        out.endRow()
    }
}
