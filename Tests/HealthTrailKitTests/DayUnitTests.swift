import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailKit
@testable import HealthTrailRun
@testable import HealthTrailSynth

/// The privacy unit `day`, as docs/privacy.md defines it: the records that a date's row of
/// daily.csv is made of (the parts of samples that fall on that local date, the night that ends
/// that morning, every sample of it) and the workouts that started that date. An export without
/// one day, so defined, must change a release's bounded totals in that day's partitions only,
/// whatever the release: every daily column and the workout figures, summed, averaged, counted,
/// by week, by day and by activity.
@Suite struct DayUnitTests {
    /// Europe/Paris in February: +01:00 all month, which the export stamps and its sleep names.
    static let offset: Int64 = 3600
    static let watch = "Alex’s Apple Watch"
    static let phone = "Alex’s iPhone"

    /// One record of a hand-made export: times in UTC seconds.
    struct Piece {
        enum Kind: Equatable {
            /// A sample whose value is spread over its span (steps, energy, …): split pro rata at midnight.
            case cumulative
            /// A sample dated by its start (heart rate, HRV, resting heart rate, stand hours).
            case instant
            /// A sleep sample of the night dated `night` (days since 1970), zone named.
            case sleep(night: Int64)
            /// A workout, dated by its start; `value` its distance in km.
            case workout(activity: String)
        }
        var type: String
        var unit: String
        var source: String
        var start: Int64
        var end: Int64
        var value: Double
        var kind: Kind
    }

    static func localDay(_ t: Int64) -> Int64 { Int64((Double(t + offset) / 86_400).rounded(.down)) }

    static func stamped(_ t: Int64) -> String {
        let text = Timestamp(utcSeconds: t + offset).utcString   // local wall time
        return text.prefix(10) + " " + text.dropFirst(11).prefix(8) + " +0100"
    }

    static func value(_ v: Double) -> String { v == v.rounded() ? String(Int64(v)) : String(v) }

    static func xml(_ pieces: [Piece]) -> String {
        var body = ""
        for p in pieces.sorted(by: { ($0.start, $0.end, $0.type) < ($1.start, $1.end, $1.type) }) {
            let dates = "startDate=\"\(stamped(p.start))\" endDate=\"\(stamped(p.end))\""
            switch p.kind {
            case .workout(let activity):
                let minutes = Double(p.end - p.start) / 60
                body += """
                     <Workout workoutActivityType="\(activity)" duration="\(value(minutes))" durationUnit="min" sourceName="\(watch)" \(dates)>
                      <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" \(dates) sum="\(value(p.value))" unit="km"/>
                     </Workout>

                    """
            case .sleep:
                body += """
                     <Record type="\(p.type)" sourceName="\(p.source)" \(dates) value="\(p.unit)">
                      <MetadataEntry key="HKTimeZone" value="Europe/Paris"/>
                     </Record>

                    """
            case .cumulative, .instant:
                let unit = p.unit.isEmpty ? "" : " unit=\"\(p.unit)\""
                let v = p.type.hasPrefix("HKCategory") ? "HKCategoryValueAppleStandHourStood" : value(p.value)
                body += " <Record type=\"\(p.type)\" sourceName=\"\(p.source)\"\(unit) \(dates) value=\"\(v)\"/>\n"
            }
        }
        return Support.exportXML(body)
    }

    /// The export without day `day`, as the unit is defined: a cumulative sample keeps its part
    /// outside the day with its share of the value (pro rata, as daily.csv splits it), the night
    /// dated that day goes whole, the next night (which may begin on the same date) stays.
    static func without(day: Int64, _ pieces: [Piece]) -> [Piece] {
        let dayStart = day * 86_400 - offset, dayEnd = dayStart + 86_400
        var kept: [Piece] = []
        for p in pieces {
            switch p.kind {
            case .workout, .instant:
                if localDay(p.start) != day { kept.append(p) }
            case .sleep(let night):
                if night != day { kept.append(p) }
            case .cumulative:
                let span = Double(p.end - p.start)
                for (a, b) in [(p.start, min(p.end, dayStart)), (max(p.start, dayEnd), p.end)] where a < b {
                    var part = p
                    (part.start, part.end) = (a, b)
                    part.value = p.value * Double(b - a) / span
                    kept.append(part)
                }
            }
        }
        return kept
    }

    /// What the issue removed: every record whose start is dated that day.
    static func withoutRecordsStarting(day: Int64, _ pieces: [Piece]) -> [Piece] {
        pieces.filter { localDay($0.start) != day }
    }

    /// Every daily column summed by week and by day, the means of the vitals, counts, and the
    /// workout figures per activity and week: all with the unit day.
    static func spec(from: String, to: String) -> String {
        var releases: [String] = []
        let columns = [
            "steps", "distance_m", "active_kcal", "exercise_min", "stand_hours", "resting_hr", "avg_hr", "hrv_sdnn_ms",
            "sleep_asleep_min", "workouts", "basal_kcal", "flights", "workout_min",
        ]
        func release(_ id: String, _ metric: String, _ aggregate: String, _ partition: String, bounds: Bool = true, k: Int = 1) {
            let b = bounds ? "lower: 0, upper: 100000, resolution: 0.01, " : ""
            releases.append(
                "  - {id: \(id), metric: \(metric), aggregate: \(aggregate), partition: \(partition), from: \(from), to: \(to), "
                    + "privacy_unit: day, \(b)max_partitions: \(k), max_contributions: 4, mechanism: laplace, epsilon: 1}")
        }
        for column in columns {
            release("w_\(column)", "daily.\(column)", "sum", "week")
            release("d_\(column)", "daily.\(column)", "sum", "day")
        }
        for column in ["resting_hr", "avg_hr", "hrv_sdnn_ms", "sleep_asleep_min"] {
            release("m_\(column)", "daily.\(column)", "mean", "week")
        }
        release("c_days", "daily.steps", "count", "week", bounds: false)
        release("c_workouts", "workouts.count", "count", "activity_week", bounds: false, k: 3)
        release("s_distance", "workouts.distance_m", "sum", "activity_week", k: 3)
        release("s_duration", "workouts.duration_s", "sum", "activity_week", k: 3)
        return "budget: {epsilon: 100}\nreleases:\n" + releases.joined(separator: "\n") + "\n"
    }

    /// Runs both exports and returns, per release, the partitions whose bounded totals differ.
    static func changedPartitions(_ a: [Piece], _ b: [Piece], from: String, to: String) throws -> [String: Set<String>] {
        let dir = Support.temporaryDirectory()
        for (name, pieces) in [("a", a), ("b", b)] {
            try Support.makeZip(dir + "/\(name).zip", [("apple_health_export/export.xml", xml(pieces))])
            _ = try ExportRun.run(RunOptions(inputPath: dir + "/\(name).zip", outputDirectory: dir + "/\(name)"))
        }
        try spec(from: from, to: to).write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
        var changed: [String: Set<String>] = [:]
        for release in try ReleaseSpec.load(path: dir + "/spec.yaml").releases {
            let ta = try ContributionBounding.totals(for: release, runDirectory: dir + "/a", person: "p")
            let tb = try ContributionBounding.totals(for: release, runDirectory: dir + "/b", person: "p")
            let keys = Set(ta.counts.keys).union(tb.counts.keys).union(ta.sums.keys).union(tb.sums.keys)
            changed[release.id] = keys.filter { ta.counts[$0] != tb.counts[$0] || ta.sums[$0] != tb.sums[$0] }
        }
        return changed
    }

    /// Partition keys (with or without an activity) of day `day`.
    static func isOfDay(_ key: String, _ day: Int64) -> Bool {
        let period = key.split(separator: "|").last.map(String.init) ?? key
        return period == PublicPartitions.key(ofDay: day, for: .week) || period == PublicPartitions.key(ofDay: day, for: .day)
    }

    static func at(_ day: String, _ time: String) -> Int64 {
        Timestamp.parse(day + "T" + time + "Z")!.utcSeconds - offset
    }

    /// Sunday 12 February 2023 (the last day of ISO week 6) between two ordinary days: a night
    /// from Saturday evening to Sunday morning, the next from Sunday evening to Monday, basal and
    /// active energy crossing both midnights, two step counters overlapping over midnight, and a
    /// walk from Sunday 23:40 to Monday 00:20.
    static func weekend() -> [Piece] {
        var p: [Piece] = []
        for date in ["2023-02-11", "2023-02-12", "2023-02-13"] {
            let day = PublicPartitions.day(date)!
            p.append(
                Piece(
                    type: "HKQuantityTypeIdentifierRestingHeartRate", unit: "count/min", source: watch, start: at(date, "08:00:00"),
                    end: at(date, "08:00:00"), value: 50 + Double(day % 5), kind: .instant))
            p.append(
                Piece(
                    type: "HKQuantityTypeIdentifierHeartRate", unit: "count/min", source: watch, start: at(date, "12:00:00"),
                    end: at(date, "12:00:00"), value: 70 + Double(day % 7), kind: .instant))
            p.append(
                Piece(
                    type: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN", unit: "ms", source: watch, start: at(date, "03:00:00"),
                    end: at(date, "03:01:00"), value: 40, kind: .instant))
            p.append(
                Piece(
                    type: "HKCategoryTypeIdentifierAppleStandHour", unit: "", source: watch, start: at(date, "10:00:00"), end: at(date, "10:59:59"),
                    value: 0, kind: .instant))
            p.append(
                Piece(
                    type: "HKQuantityTypeIdentifierStepCount", unit: "count", source: phone, start: at(date, "09:00:00"), end: at(date, "10:00:00"),
                    value: 4000, kind: .cumulative))
            p.append(
                Piece(
                    type: "HKQuantityTypeIdentifierFlightsClimbed", unit: "count", source: phone, start: at(date, "09:00:00"),
                    end: at(date, "09:30:00"), value: 4, kind: .cumulative))
            p.append(
                Piece(
                    type: "HKQuantityTypeIdentifierAppleExerciseTime", unit: "min", source: watch, start: at(date, "09:00:00"),
                    end: at(date, "09:20:00"), value: 20, kind: .cumulative))
            p.append(
                Piece(
                    type: "HKQuantityTypeIdentifierDistanceWalkingRunning", unit: "km", source: phone, start: at(date, "09:00:00"),
                    end: at(date, "10:00:00"), value: 3, kind: .cumulative))
            // A night dated `day`: bed at 23:00 the evening before, up at 07:00.
            let bed = at(date, "07:00:00") - 8 * 3600
            p.append(
                Piece(
                    type: "HKCategoryTypeIdentifierSleepAnalysis", unit: "HKCategoryValueSleepAnalysisInBed", source: watch, start: bed,
                    end: bed + 8 * 3600, value: 0, kind: .sleep(night: day)))
            p.append(
                Piece(
                    type: "HKCategoryTypeIdentifierSleepAnalysis", unit: "HKCategoryValueSleepAnalysisAsleepCore", source: watch, start: bed + 1800,
                    end: bed + 4 * 3600, value: 0, kind: .sleep(night: day)))
            p.append(
                Piece(
                    type: "HKCategoryTypeIdentifierSleepAnalysis", unit: "HKCategoryValueSleepAnalysisAsleepDeep", source: watch,
                    start: bed + 4 * 3600, end: bed + 7 * 3600 + Int64(day % 3) * 600, value: 0, kind: .sleep(night: day)))
        }
        // Energy and steps across Sunday's two midnights (values even per quarter hour).
        for midnight in [at("2023-02-12", "00:00:00"), at("2023-02-13", "00:00:00")] {
            p.append(
                Piece(
                    type: "HKQuantityTypeIdentifierBasalEnergyBurned", unit: "kcal", source: watch, start: midnight - 1800, end: midnight + 1800,
                    value: 64, kind: .cumulative))
            p.append(
                Piece(
                    type: "HKQuantityTypeIdentifierActiveEnergyBurned", unit: "kcal", source: watch, start: midnight - 900, end: midnight + 2700,
                    value: 40, kind: .cumulative))
            p.append(
                Piece(
                    type: "HKQuantityTypeIdentifierStepCount", unit: "count", source: watch, start: midnight - 900, end: midnight + 900, value: 200,
                    kind: .cumulative))
            p.append(
                Piece(
                    type: "HKQuantityTypeIdentifierStepCount", unit: "count", source: phone, start: midnight - 1800, end: midnight + 1800, value: 400,
                    kind: .cumulative))
        }
        p.append(
            Piece(
                type: "", unit: "", source: watch, start: at("2023-02-12", "10:00:00"), end: at("2023-02-12", "10:45:00"), value: 8,
                kind: .workout(activity: "HKWorkoutActivityTypeRunning")))
        p.append(
            Piece(
                type: "", unit: "", source: watch, start: at("2023-02-12", "23:40:00"), end: at("2023-02-13", "00:20:00"), value: 3,
                kind: .workout(activity: "HKWorkoutActivityTypeWalking")))
        p.append(
            Piece(
                type: "", unit: "", source: watch, start: at("2023-02-13", "18:00:00"), end: at("2023-02-13", "18:30:00"), value: 10,
                kind: .workout(activity: "HKWorkoutActivityTypeCycling")))
        return p
    }

    @Test func removingSundayChangesSundaysPartitionsOnly() throws {
        let sunday = PublicPartitions.day("2023-02-12")!
        let all = Self.weekend()
        let changed = try Self.changedPartitions(all, Self.without(day: sunday, all), from: "2023-02-06", to: "2023-02-19")
        for (release, keys) in changed {
            #expect(keys.allSatisfy { Self.isOfDay($0, sunday) }, "\(release): \(keys.sorted())")
        }
        // The removal is seen: every figure Sunday has moves in Sunday's partitions.
        for id in ["w_steps", "w_basal_kcal", "w_active_kcal", "w_sleep_asleep_min", "w_resting_hr", "w_workout_min", "c_workouts", "d_steps"] {
            #expect(!(changed[id] ?? []).isEmpty, "\(id)")
        }
        #expect(changed["c_workouts"] == ["running|2023-W06", "walking|2023-W06"])
        // Removing the records that merely start on Sunday moves Monday (2023-W07): the night
        // that ends Monday morning began on Sunday evening, and so did energy and steps past midnight.
        let naive = try Self.changedPartitions(all, Self.withoutRecordsStarting(day: sunday, all), from: "2023-02-06", to: "2023-02-19")
        #expect(naive["w_sleep_asleep_min"]?.contains("2023-W07") == true)
        #expect(naive["w_basal_kcal"]?.contains("2023-W07") == true)
    }

    /// Seeded days of every kind over four ISO weeks (nights from 21:30 to 01:30 into the next
    /// morning, naps, samples from two sources crossing midnight, workouts crossing midnight);
    /// removing any one day moves only that day's partitions.
    @Test func removingAnyDayOfASeededMonthChangesItsPartitionsOnly() throws {
        var random = SynthRandom(seed: 39)
        let first = PublicPartitions.day("2023-01-30")!   // a Monday
        var pieces: [Piece] = []
        for day in (first - 1)...(first + 28) {
            let midnight = day * 86_400 - Self.offset
            func quarter(_ from: Int, _ to: Int) -> Int64 { midnight + Int64(random.next(in: from..<to)) * 900 }
            pieces.append(
                Piece(
                    type: "HKQuantityTypeIdentifierRestingHeartRate", unit: "count/min", source: Self.watch, start: quarter(20, 40), end: 0,
                    value: Double(random.next(in: 45..<70)), kind: .instant))
            pieces[pieces.count - 1].end = pieces[pieces.count - 1].start
            for _ in 0..<random.next(in: 1..<6) {
                let t = quarter(0, 96)
                pieces.append(
                    Piece(
                        type: "HKQuantityTypeIdentifierHeartRate", unit: "count/min", source: Self.watch, start: t, end: t,
                        value: Double(random.next(in: 55..<160)), kind: .instant))
            }
            let hrv = quarter(8, 24)
            pieces.append(
                Piece(
                    type: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN", unit: "ms", source: Self.watch, start: hrv, end: hrv + 60,
                    value: Double(random.next(in: 20..<90)), kind: .instant))
            for (type, unit, source) in [
                ("HKQuantityTypeIdentifierStepCount", "count", Self.watch), ("HKQuantityTypeIdentifierStepCount", "count", Self.phone),
                ("HKQuantityTypeIdentifierBasalEnergyBurned", "kcal", Self.watch), ("HKQuantityTypeIdentifierActiveEnergyBurned", "kcal", Self.watch),
                ("HKQuantityTypeIdentifierDistanceWalkingRunning", "km", Self.phone), ("HKQuantityTypeIdentifierFlightsClimbed", "count", Self.phone),
                ("HKQuantityTypeIdentifierAppleExerciseTime", "min", Self.watch),
            ] {
                for _ in 0..<random.next(in: 1..<4) {
                    // Up to 3 h from anywhere in the day: some cross midnight. Values are whole
                    // per quarter hour, so a part cut at midnight keeps an exact share.
                    let start = quarter(0, 96), quarters = random.next(in: 1..<13)
                    let perQuarter = Double(random.next(in: 1..<20)) * (unit == "km" ? 0.125 : 4)
                    pieces.append(
                        Piece(
                            type: type, unit: unit, source: source, start: start, end: start + Int64(quarters) * 900,
                            value: perQuarter * Double(quarters), kind: .cumulative))
                }
            }
            // The night ending this morning, in bed from 21:30 the evening before to 01:30.
            let bed = quarter(-10, 6), wake = midnight + Int64(random.next(in: 22..<36)) * 900
            pieces.append(
                Piece(
                    type: "HKCategoryTypeIdentifierSleepAnalysis", unit: "HKCategoryValueSleepAnalysisInBed", source: Self.watch, start: bed,
                    end: wake, value: 0, kind: .sleep(night: day)))
            let asleep = bed + Int64(random.next(in: 1..<4)) * 900
            pieces.append(
                Piece(
                    type: "HKCategoryTypeIdentifierSleepAnalysis", unit: "HKCategoryValueSleepAnalysisAsleepCore", source: Self.watch, start: asleep,
                    end: wake - 900, value: 0, kind: .sleep(night: day)))
            if random.next(in: 0..<3) == 0 {   // a nap
                let nap = quarter(54, 60)
                pieces.append(
                    Piece(
                        type: "HKCategoryTypeIdentifierSleepAnalysis", unit: "HKCategoryValueSleepAnalysisAsleepCore", source: Self.watch, start: nap,
                        end: nap + 1800, value: 0, kind: .sleep(night: day)))
            }
            for _ in 0..<random.next(in: 0..<3) {
                let start = quarter(24, 96), minutes = Int64(random.next(in: 2..<8)) * 10
                let activity = ["HKWorkoutActivityTypeRunning", "HKWorkoutActivityTypeWalking", "HKWorkoutActivityTypeCycling"][
                    random.next(in: 0..<3)]
                pieces.append(
                    Piece(
                        type: "", unit: "", source: Self.watch, start: start, end: start + minutes * 60, value: Double(random.next(in: 1..<20)),
                        kind: .workout(activity: activity)))
            }
        }
        for day in [first + 6, first + 7, first + 13, first + 16, first + 20] {   // Sundays, Mondays, midweek
            let changed = try Self.changedPartitions(pieces, Self.without(day: day, pieces), from: "2023-01-30", to: "2023-02-26")
            for (release, keys) in changed {
                #expect(keys.allSatisfy { Self.isOfDay($0, day) }, "day \(day) \(release): \(keys.sorted())")
            }
            #expect(!(changed["w_steps"] ?? []).isEmpty && !(changed["w_sleep_asleep_min"] ?? []).isEmpty)
        }
    }
}

extension SynthRandom {
    /// A number of `range`, for the test's seeded days.
    mutating func next(in range: Range<Int>) -> Int { Int.random(in: range, using: &self) }
}
