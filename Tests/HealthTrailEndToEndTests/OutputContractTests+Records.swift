import Foundation
import Testing

@testable import HealthTrailDecode
@testable import HealthTrailKit
@testable import HealthTrailSynth

extension OutputContractTests {
    /// `yyyy-MM-dd` of a UTC instant read at an offset.
    static func localDate(_ utc: Int64, offsetMinutes: Int) -> String {
        let days = Int((utc + Int64(offsetMinutes) * 60 - ((utc + Int64(offsetMinutes) * 60) % 86_400 + 86_400) % 86_400) / 86_400)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(days) * 86_400))
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    static let exportOffsetMinutes = SynthOptions(days: 1, seed: 0).exportOffsetMinutes

    /// The UTC instants the archive spans: its first local day to a day after its last.
    static func inArchive(_ s: String) -> Bool {
        guard let t = utcSeconds(s) else { return false }
        let first = utcSeconds("2022-12-31T00:00:00Z")!
        return t >= first && t < first + Int64(OutputContractTests.days + 3) * 86_400
    }

    // Checks shared by files with the same kind of column.
    static let timeCheck: @Sendable (String) -> Check = { column in { _, t in expectEvery(t, column, "UTC instants of the archive", inArchive) } }
    static let offsetCheck: Check = { _, t in expectEvery(t, "utc_offset", "the export offset \(exportOffset)") { $0 == exportOffset } }
    static let sourceCheck: @Sendable (String) -> Check = { column in
        { _, t in expectEvery(t, column, "the generator's sources") { synthSources.contains($0) } }
    }
    static let bpmCheck: Check = { _, t in expectEvery(t, "bpm", "heart rates (30–230)") { Double($0).map { (30...230).contains($0) } ?? false } }

    /// The columns heart_rate.csv and hrv_beats.csv share: one row per sample the generator
    /// counted in `count`, each at an instant of the archive, at the export offset, a plausible
    /// heart rate, from one of its sources.
    static func beatColumns(count: KeyPath<SynthSummary, Int> & Sendable) -> [String: Check] {
        [
            "time_utc": { f, t in
                #expect(t.rows.count == f.summary[keyPath: count])
                try timeCheck("time_utc")(f, t)
            },
            "utc_offset": offsetCheck, "bpm": bpmCheck, "source": sourceCheck("source"),
        ]
    }

    /// heart_rate.csv: one row per HeartRate record the generator wrote.
    enum HeartRateChecks {
        static let all: [String: Check] = beatColumns(count: \.heartRateRecords).merging([
            "motion_context": { _, t in
                expectEvery(t, "motion_context", "a motion context") { ["sedentary", "active", ""].contains($0) }
                #expect(Set(t.values("motion_context")) == ["sedentary", "active", ""])
            }
        ]) { a, _ in a }
    }

    /// hrv_beats.csv: one row per InstantaneousBeatsPerMinute.
    enum HRVChecks {
        static let all: [String: Check] = beatColumns(count: \.hrvBeats)
    }

    /// sleep_samples.csv: one row per SleepAnalysis record; its asleep minutes by night are the
    /// generator's where only the night's best source is counted (checked in sleep_nights).
    enum SleepSampleChecks {
        static let all: [String: Check] = [
            "start_utc": { f, t in
                #expect(t.rows.count == f.summary.recordsByType["HKCategoryTypeIdentifierSleepAnalysis"])
                try timeCheck("start_utc")(f, t)
                for r in t.records {
                    #expect(utcSeconds(r["start_utc"])! <= utcSeconds(r["end_utc"]) ?? .min, "sleep sample ends before it starts")
                }
            },
            "end_utc": timeCheck("end_utc"), "utc_offset": offsetCheck, "source": sourceCheck("source"),
            "stage": { _, t in
                expectEvery(t, "stage", "a stage") { ["in_bed", "asleep", "core", "deep", "rem", "awake"].contains($0) }
                #expect(Set(t.values("stage")) == ["in_bed", "asleep", "core", "deep", "rem", "awake"])
            },
        ]
    }

    /// activity_summaries.csv: the ActivitySummary elements as exported.
    enum ActivitySummaryChecks {
        /// A column that must be a number in every row.
        static func numeric(_ column: String) -> Check {
            { _, t in expectEvery(t, column, "numbers") { Double($0).map { $0 >= 0 } ?? false } }
        }
        static let all: [String: Check] = [
            "date": { f, t in
                #expect(t.rows.count == f.summary.activitySummaries)
                #expect(Set(t.values("date")).count == t.rows.count, "one row per date")
            },
            "active_energy": { f, t in
                for r in t.records {
                    expectClose(
                        r["active_energy"], f.summary.activeKcalBySummaryDay[r["date"]!], within: 0.0005,
                        "activity_summaries \(r["date"]!) active_energy")
                }
            },
            "active_energy_unit": { _, t in expectEvery(t, "active_energy_unit", "Cal") { $0 == "Cal" } },
            "active_energy_goal": numeric("active_energy_goal"), "move_time_min": numeric("move_time_min"),
            "move_time_goal_min": numeric("move_time_goal_min"),
            "exercise_min": { f, t in
                for r in t.records {
                    expectClose(r["exercise_min"], f.summary.exerciseMinutesBySummaryDay[r["date"]!], within: 0, "\(r["date"]!) exercise_min")
                }
            },
            "stand_hours": { f, t in
                for r in t.records {
                    expectClose(r["stand_hours"], f.summary.standHoursBySummaryDay[r["date"]!], within: 0, "\(r["date"]!) stand_hours")
                }
            },
            "exercise_goal_min": numeric("exercise_goal_min"),
            "stand_hours_goal": numeric("stand_hours_goal"),
        ]
    }

    /// records/<type>.csv: each file has the generator's count of its type; the Watch's steps,
    /// distance and active energy per day add up to the generator's, with the units converted.
    enum RecordChecks {
        /// The type a record file holds, by the name HealthTrail gives its file.
        static func recordType(of table: Table, in f: Fixture) -> String? {
            f.summary.recordsByType.keys.first { "records/\(RecordType.fileName(for: $0) ?? "").csv" == table.name }
        }

        /// Sum of the Watch's values per local date at the export offset.
        static func watchTotals(_ t: Table) -> [String: Double] {
            var out: [String: Double] = [:]
            for r in t.records where r["source"] == "Alex’s Apple Watch" {
                out[localDate(utcSeconds(r["start_utc"])!, offsetMinutes: exportOffsetMinutes), default: 0] += Double(r["value"]!)!
            }
            return out
        }

        static let all: [String: Check] = [
            "start_utc": { f, t in
                let type = try #require(recordType(of: t, in: f))
                #expect(t.rows.count == f.summary.recordsByType[type], "\(type)")
                try timeCheck("start_utc")(f, t)
            },
            "end_utc": timeCheck("end_utc"), "utc_offset": offsetCheck, "source": sourceCheck("source"),
            "value": { f, t in
                let type = try #require(recordType(of: t, in: f))
                if type.hasPrefix("HKCategoryTypeIdentifier") {
                    expectEvery(t, "value", "category values") { $0.hasPrefix("HKCategoryValue") }
                } else {
                    expectEvery(t, "value", "numbers") { Double($0) != nil }
                }
                let truth: [String: Double]? =
                    switch type {
                    case "HKQuantityTypeIdentifierStepCount": f.summary.stepsByExportDay.mapValues(Double.init)
                    case "HKQuantityTypeIdentifierDistanceWalkingRunning": f.summary.distanceMetersByExportDay
                    case "HKQuantityTypeIdentifierActiveEnergyBurned": f.summary.activeKcalByExportDay
                    case "HKQuantityTypeIdentifierFlightsClimbed": f.summary.flightsByExportDay.mapValues(Double.init)
                    default: nil
                    }
                guard let truth else { return }
                let totals = watchTotals(t)
                #expect(Set(totals.keys) == Set(truth.keys), "\(type): days")
                for (day, expected) in truth {
                    #expect(abs((totals[day] ?? 0) - expected) < 1e-6 * max(1, expected), "\(type) \(day): \(totals[day] ?? 0) against \(expected)")
                }
            },
            "unit": { f, t in
                let type = try #require(recordType(of: t, in: f))
                let expected: String? =
                    switch type {
                    case "HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierFlightsClimbed": "count"
                    case "HKQuantityTypeIdentifierDistanceWalkingRunning": "m"
                    case "HKQuantityTypeIdentifierActiveEnergyBurned", "HKQuantityTypeIdentifierBasalEnergyBurned": "kcal"
                    case "HKQuantityTypeIdentifierBodyMass": "kg"
                    case "HKQuantityTypeIdentifierRestingHeartRate", "HKQuantityTypeIdentifierWalkingHeartRateAverage": "bpm"
                    case "HKQuantityTypeIdentifierHeartRateVariabilitySDNN": "ms"
                    default: nil
                    }
                if let expected { expectEvery(t, "unit", expected) { $0 == expected } }
            },
            // Where normalisation changed the value, it is the export's value converted by the
            // unit's definition (written with up to 6 decimals).
            "original_value": { _, t in
                for r in t.records where !r["original_unit"]!.isEmpty {
                    let convert: ((Double) -> Double)? =
                        switch (r["original_unit"]!, r["unit"]!) {
                        case ("km", "m"): { $0 * 1000 }
                        case ("mi", "m"): { $0 * 1609.344 }
                        case ("cm", "m"): { $0 / 100 }
                        case ("kJ", "kcal"): { $0 / 4.184 }
                        case ("Cal", "kcal"), ("count/min", "bpm"): { $0 }
                        case ("min", "s"): { $0 * 60 }
                        case ("lb", "kg"): { $0 * 0.453_592_37 }
                        case ("degF", "degC"): { ($0 - 32) * 5 / 9 }
                        case ("%", "%"): { $0 * 100 }
                        default: nil
                        }
                    guard let convert, let original = number(r["original_value"], "original_value") else {
                        Issue.record("\(r["original_unit"]!) → \(r["unit"]!): no conversion known to the test, or no value")
                        continue
                    }
                    let expected = convert(original)
                    expectClose(
                        r["value"], expected, within: 6e-7 + 1e-9 * abs(expected),
                        "value of \(r["original_value"]!) \(r["original_unit"]!)")
                }
            },
            "original_unit": { _, t in
                for r in t.records {
                    #expect(r["original_unit"]!.isEmpty == r["original_value"]!.isEmpty, "original value and unit come together")
                }
            },
        ]
    }
}
