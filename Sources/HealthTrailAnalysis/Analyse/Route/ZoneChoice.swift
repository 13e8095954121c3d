import HealthTrailBase
import HealthTrailDecode

/// How heart-rate zones are chosen: always five zones from a maximum heart rate
/// (`HeartRateZones.fromMaximum`); the options only decide where the maximum comes from.
package enum ZoneChoice: Sendable, Equatable {
    /// The default: the export's credible workout maximum (`WorkoutMaximumHeartRate`), else
    /// 220 − age from the date of birth, else `HeartRateZones.fixedMaximum`.
    case fromWorkouts
    /// This maximum heart rate (`--max-hr`).
    case maximum(Double)
    /// 220 − age, age from the export's `Me` date of birth on the export date
    /// (`--max-hr-from-birth-date`); without a usable date of birth, as `fromWorkouts`.
    case fromDateOfBirth

    /// Where the maximum behind a run's zones came from, as the manifest names it.
    package enum Basis: String, Sendable, Codable {
        /// `WorkoutMaximumHeartRate.estimate` of the export's workouts.
        case workoutMaximum = "workout_maximum"
        /// `--max-hr` or `zones.max_hr`.
        case option = "max_hr"
        /// 220 − age.
        case dateOfBirth = "date_of_birth"
        /// `HeartRateZones.fixedMaximum`: the export gave neither workout heart rate nor a date of birth.
        case fixed
    }

    /// The zones a run uses, with the maximum they were drawn from and where that came from.
    package struct Resolved: Sendable, Equatable {
        package var zones: HeartRateZones
        package var maximum: Double
        package var basis: Basis
    }

    /// The zones for this choice. `workoutMaximum` is `WorkoutMaximumHeartRate.estimate` of the
    /// export's workouts (nil when none has a credible maximum).
    package func resolve(dateOfBirth: String?, on exportDate: Timestamp?, workoutMaximum: Double?) -> Resolved {
        func fromMaximum(_ bpm: Double, _ basis: Basis) -> Resolved { Resolved(zones: .fromMaximum(bpm), maximum: bpm, basis: basis) }
        let byAge = Self.maximumFromAge(dateOfBirth: dateOfBirth, on: exportDate)
        switch self {
        case .maximum(let bpm):
            return fromMaximum(bpm, .option)
        case .fromDateOfBirth:
            if let byAge { return fromMaximum(byAge, .dateOfBirth) }
            return Self.fromWorkouts.resolve(dateOfBirth: nil, on: nil, workoutMaximum: workoutMaximum)
        case .fromWorkouts:
            if let workoutMaximum { return fromMaximum(workoutMaximum, .workoutMaximum) }
            if let byAge { return fromMaximum(byAge, .dateOfBirth) }
            return fromMaximum(HeartRateZones.fixedMaximum, .fixed)
        }
    }

    /// 220 − age on the export's local date; nil without a usable date of birth.
    static func maximumFromAge(dateOfBirth: String?, on exportDate: Timestamp?) -> Double? {
        guard let dateOfBirth, let exportDate else { return nil }
        let day = Timestamp.civilFromDays(
            exportDate.localSeconds >= 0 ? exportDate.localSeconds / 86_400 : (exportDate.localSeconds - 86_399) / 86_400)
        return HeartRateZones.maximum(dateOfBirth: dateOfBirth, on: day)
    }
}

/// The person's maximum heart rate as the export's workouts show it.
///
/// Each workout gives one maximum: its `WorkoutStatistics` heart-rate maximum when the export
/// has one (Export Version 12 on), else the highest heart rate the join holds inside the
/// workout's span. A maximum is credible from `credible.lowerBound` to `credible.upperBound`:
/// above 220 bpm is beyond what adult hearts reach in exercise and is a sensor glitch; below
/// 120 bpm the workout was too easy to say anything about the person's maximum, and a person
/// whose workouts are all walks keeps the fallback rather than zones that paint every walk red.
///
/// The estimate is the second-highest credible workout maximum, or the only one. A workout's
/// maximum is a single reading, and optical sensors now and then lock onto cadence or lose
/// contact and report one high spike: the highest workout maximum alone would let one such spike
/// set every zone. The second highest needs two workouts to reach it, yet stays at the person's
/// true top when they go all-out more than once; a percentile would drift down for someone who
/// rarely goes all-out, and it is their real maximum the zones should be split from.
package enum WorkoutMaximumHeartRate {
    /// The credible range of a workout's maximum, bpm.
    package static let credible: ClosedRange<Double> = 120...220

    /// The second-highest credible value of `maxima` (one per workout), the only one when there
    /// is one; nil when none is credible.
    package static func estimate(_ maxima: [Double]) -> Double? {
        let kept = maxima.filter { credible.contains($0) }.sorted(by: >)
        return kept.count >= 2 ? kept[1] : kept.first
    }

    /// One maximum per workout of `workouts` that has any heart rate: its statistic's, else
    /// the highest value `join` holds inside its span.
    package static func workoutMaxima(_ workouts: [Workout], join: HeartRateJoin) -> [Double] {
        workouts.compactMap { w in
            if let statistic = w.statistics.first(where: { $0.type == "HKQuantityTypeIdentifierHeartRate" })?.maximum {
                return statistic
            }
            return join.maximum(from: w.start.utcSeconds, to: w.end.utcSeconds)
        }
    }
}
