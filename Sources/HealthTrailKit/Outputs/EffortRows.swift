import HealthTrailAnalysis
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

    /// Each workout's best efforts, then the fastest of all workouts per activity and distance
    /// (`scope` `all_time`; the earlier workout on a tie).
    static func writeBestEfforts(_ workouts: [WorkoutEffortFigures], to out: CSVWriter) {
        var best: [String: (workoutID: String, effort: BestEffort)] = [:]
        for w in workouts {
            for (name, effort) in w.bestEfforts {
                row("workout", w.workoutID, w.activity, name, effort, to: out)
                let key = w.activity + "\u{0}" + name
                if best[key].map({ effort.elapsed < $0.effort.elapsed }) ?? true { best[key] = (w.workoutID, effort) }
            }
        }
        for (activity, targets) in [("running", BestEfforts.running), ("cycling", BestEfforts.cycling)] {
            for target in targets {
                guard let b = best[activity + "\u{0}" + target.name] else { continue }
                row("all_time", b.workoutID, activity, target.name, b.effort, to: out)
            }
        }
    }

    private static func row(_ scope: String, _ id: String, _ activity: String, _ name: String, _ e: BestEffort, to out: CSVWriter) {
        out.field(scope); out.comma()
        out.field(id); out.comma()
        out.field(activity); out.comma()
        out.field(name); out.comma()
        out.decimal(e.distance, digits: 1); out.comma()
        out.decimal(e.elapsed, digits: 1); out.comma()
        out.decimal(e.elapsed / (e.distance / 1000), digits: 1); out.comma()
        out.utc(Int64(e.start.rounded())); out.comma()
        out.utc(Int64(e.end.rounded()))
        out.endRow()
    }
}
