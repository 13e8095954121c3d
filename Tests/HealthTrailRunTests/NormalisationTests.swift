import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailRun

/// Hand-built exports with known answers for units, de-duplication, days, time zones and sleep.
@Suite struct NormalisationTests {
    /// `debugManifest`: the manifest names unknown units and activities as written (the
    /// default tags them, see LogPrivacyTests).
    func run(_ body: String, priority: SourcePriority = .default, debugManifest: Bool = true) throws -> (String, Manifest) {
        let dir = Support.temporaryDirectory()
        try Support.makeZip(dir + "/export.zip", [("apple_health_export/export.xml", Support.exportXML(body))])
        var options = RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out")
        options.sourcePriority = priority
        options.debugManifest = debugManifest
        return (dir + "/out", try ExportRun.run(options))
    }

    func record(_ type: String, _ source: String, _ unit: String?, _ start: String, _ end: String, _ value: String) -> String {
        let unitAttribute = unit.map { " unit=\"\($0)\"" } ?? ""
        return " <Record type=\"\(type)\" sourceName=\"\(source)\"\(unitAttribute) startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(value)\"/>\n"
    }

    /// daily.csv as date → column → value.
    func daily(_ out: String) throws -> [String: [String: String]] {
        let csv = try Support.readCSV(out + "/daily.csv")
        var result: [String: [String: String]] = [:]
        for row in csv.rows { result[row[0]] = Dictionary(uniqueKeysWithValues: zip(csv.header, row)) }
        return result
    }

    static let watch = "Alex’s Apple Watch", phone = "Alex’s iPhone"

    @Test func stepsPerDayAreTheWatchsWhereTheIPhoneOverlaps() throws {
        let steps = "HKQuantityTypeIdentifierStepCount"
        var body = ""
        // Watch: 3 samples on 2024-01-02, 1 on 2024-01-03. iPhone: the same walks, other counts, plus one
        // walk the Watch missed (watch on the charger): that one counts.
        body += record(steps, Self.watch, "count", "2024-01-02 08:00:00 +0100", "2024-01-02 08:10:00 +0100", "1000")
        body += record(steps, Self.phone, "count", "2024-01-02 08:00:00 +0100", "2024-01-02 08:10:00 +0100", "1100")
        body += record(steps, Self.watch, "count", "2024-01-02 12:00:00 +0100", "2024-01-02 12:30:00 +0100", "2500")
        body += record(steps, Self.phone, "count", "2024-01-02 12:05:00 +0100", "2024-01-02 12:25:00 +0100", "2300")
        body += record(steps, Self.watch, "count", "2024-01-02 18:00:00 +0100", "2024-01-02 18:01:00 +0100", "80")
        body += record(steps, Self.phone, "count", "2024-01-02 21:00:00 +0100", "2024-01-02 21:10:00 +0100", "400")
        body += record(steps, Self.watch, "count", "2024-01-03 09:00:00 +0100", "2024-01-03 09:10:00 +0100", "900")
        body += record(steps, Self.phone, "count", "2024-01-03 09:00:00 +0100", "2024-01-03 09:10:00 +0100", "950")
        let (out, _) = try run(body)
        let days = try daily(out)
        #expect(days["2024-01-02"]?["steps"] == "3980")   // 1000 + 2500 + 80 + the uncovered 400
        #expect(days["2024-01-03"]?["steps"] == "900")
        // records/ keeps every source's raw values.
        #expect(try Support.readCSV(out + "/records/step_count.csv").rows.count == 8)

        // With the iPhone preferred, the iPhone's figures win instead.
        let (phoneFirst, _) = try run(body, priority: SourcePriority(patterns: ["iPhone", "Watch"]))
        #expect(try daily(phoneFirst)["2024-01-03"]?["steps"] == "950")
    }

    @Test func aTypeInTwoSeparateGroupsIsReported() throws {
        var body = record("HKQuantityTypeIdentifierStepCount", Self.watch, "count", "2024-01-02 08:00:00 +0100", "2024-01-02 08:10:00 +0100", "100")
        body += record("HKQuantityTypeIdentifierBodyMass", "S", "kg", "2024-01-02 07:00:00 +0100", "2024-01-02 07:00:00 +0100", "70")
        body += record("HKQuantityTypeIdentifierStepCount", Self.phone, "count", "2024-01-02 08:00:00 +0100", "2024-01-02 08:10:00 +0100", "90")
        let (_, manifest) = try run(body)
        #expect(manifest.normalisation.regroupedSeries == ["steps"])
    }

    @Test func quantitiesAreConvertedAndTheOriginalsKept() throws {
        var body = ""
        body += record("HKQuantityTypeIdentifierBodyMass", "Withings &amp; Co", "lb", "2024-01-02 07:00:00 +0100", "2024-01-02 07:00:00 +0100", "165")
        body += record("HKQuantityTypeIdentifierActiveEnergyBurned", "Zwift", "kJ", "2024-01-02 17:00:00 +0100", "2024-01-02 18:00:00 +0100", "2092")
        body += record("HKQuantityTypeIdentifierBodyTemperature", "Thermo", "degF", "2024-01-02 07:00:00 +0100", "2024-01-02 07:00:00 +0100", "98.6")
        body += record("HKQuantityTypeIdentifierOxygenSaturation", Self.watch, "%", "2024-01-02 03:00:00 +0100", "2024-01-02 03:00:00 +0100", "0.97")
        body += record(
            "HKQuantityTypeIdentifierDistanceWalkingRunning", Self.phone, "mi", "2024-01-02 09:00:00 +0100", "2024-01-02 09:30:00 +0100", "2")
        body += record("HKQuantityTypeIdentifierDietaryProtein", "MyFitnessPal", "g", "2024-01-02 13:00:00 +0100", "2024-01-02 13:00:00 +0100", "45")
        body += record("HKQuantityTypeIdentifierHeartRate", Self.watch, "count/min", "2024-01-02 10:00:00 +0100", "2024-01-02 10:00:00 +0100", "61")
        body += record("HKQuantityTypeIdentifierStepCount", "Pedometer++", "furlongs", "2024-01-02 10:00:00 +0100", "2024-01-02 10:00:00 +0100", "3")
        let (out, manifest) = try run(body)
        func only(_ file: String) throws -> [String] { try #require(try Support.readCSV(out + "/records/\(file).csv").rows.first) }
        #expect(try only("body_mass")[3...7] == ["74.842741", "kg", "Withings & Co", "165", "lb"])
        #expect(try only("active_energy_burned")[3...7] == ["500", "kcal", "Zwift", "2092", "kJ"])
        #expect(try only("body_temperature")[3...4] == ["37", "degC"])
        #expect(try only("oxygen_saturation")[3...4] == ["97", "%"])
        #expect(try only("distance_walking_running")[3...4] == ["3218.688", "m"])
        #expect(try only("dietary_protein")[3...7] == ["45", "g", "MyFitnessPal", "", ""])
        // An unknown unit is kept as written, reported, and left out of sums: never guessed.
        #expect(try only("step_count")[3...4] == ["3", "furlongs"])
        #expect(manifest.normalisation.unknownUnits == ["furlongs": 1])
        let day = try #require(try daily(out)["2024-01-02"])
        #expect(day["steps"] == "")
        #expect(day["active_kcal"] == "500")
        #expect(day["distance_m"] == "3218.7")
        #expect(try Support.readCSV(out + "/heart_rate.csv").rows.first?[2] == "61")
    }

    /// Real exports stamp every date with the export-time offset; a workout's HKTimeZone wins.
    @Test func aWorkoutAbroadTakesItsLocalDayFromItsTimeZone() throws {
        let body = """
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="W" startDate="2024-03-10 02:30:00 +0100" endDate="2024-03-10 03:00:00 +0100">
              <MetadataEntry key="HKTimeZone" value="America/New_York"/>
             </Workout>
             <Workout workoutActivityType="HKWorkoutActivityTypeZorbing" sourceName="W" startDate="2024-03-11 10:00:00 +0100" endDate="2024-03-11 10:30:00 +0100"/>

            """
        let (out, manifest) = try run(body)
        let rows = try Support.readCSV(out + "/workouts.csv").rows
        #expect(rows[0][4] == "-05:00")   // 01:30 UTC is 20:30 the day before in New York
        #expect(rows[0][13] == "America/New_York")
        #expect(rows[1][1] == "zorbing")
        #expect(manifest.normalisation.unknownActivityTypes == ["HKWorkoutActivityTypeZorbing": 1])
        let days = try daily(out)
        #expect(days["2024-03-09"]?["workouts"] == "1")
        #expect(days["2024-03-10"] == nil)
        #expect(days["2024-03-11"]?["workouts"] == "1")
    }

    @Test func aDateCenturiesAwayDoesNotGrowTheDailyTable() throws {
        // A stray record from 1800 first must not push the real days out either.
        var body = record(
            "HKQuantityTypeIdentifierHeartRate", Self.watch, "count/min", "1800-01-01 08:00:00 +0100", "1800-01-01 08:00:00 +0100", "60")
        body += record("HKQuantityTypeIdentifierStepCount", Self.watch, "count", "2024-01-02 08:00:00 +0100", "2024-01-02 08:10:00 +0100", "100")
        body += record("HKQuantityTypeIdentifierStepCount", Self.watch, "count", "0001-01-02 08:00:00 +0100", "0001-01-02 08:10:00 +0100", "5")
        body += record("HKQuantityTypeIdentifierStepCount", Self.watch, "count", "9999-01-02 08:00:00 +0100", "9999-01-02 08:10:00 +0100", "5")
        let (out, _) = try run(body)
        #expect(try daily(out).keys.sorted() == ["2024-01-02"])
        #expect(try daily(out)["2024-01-02"]?["steps"] == "100")
    }

    @Test func dailyMeansAndActivitySummaries() throws {
        var body = ""
        for (time, bpm) in [("08:00:00", "60"), ("12:00:00", "90"), ("23:30:00", "75")] {
            body += record("HKQuantityTypeIdentifierHeartRate", Self.watch, "count/min", "2024-01-02 \(time) +0100", "2024-01-02 \(time) +0100", bpm)
        }
        body += record(
            "HKQuantityTypeIdentifierRestingHeartRate", Self.watch, "count/min", "2024-01-02 00:00:00 +0100", "2024-01-02 23:59:59 +0100", "52")
        body += record(
            "HKQuantityTypeIdentifierHeartRateVariabilitySDNN", Self.watch, "ms", "2024-01-02 03:00:00 +0100", "2024-01-02 03:01:00 +0100", "40")
        body += record(
            "HKQuantityTypeIdentifierHeartRateVariabilitySDNN", Self.watch, "ms", "2024-01-02 04:00:00 +0100", "2024-01-02 04:01:00 +0100", "50")
        body += record("HKQuantityTypeIdentifierAppleExerciseTime", Self.watch, "min", "2024-01-02 17:00:00 +0100", "2024-01-02 17:01:00 +0100", "1")
        body += record("HKQuantityTypeIdentifierAppleExerciseTime", Self.watch, "min", "2024-01-03 17:00:00 +0100", "2024-01-03 17:01:00 +0100", "1")
        for hour in ["09", "10", "11"] {
            body += record(
                "HKCategoryTypeIdentifierAppleStandHour", Self.watch, nil, "2024-01-03 \(hour):00:00 +0100", "2024-01-03 \(hour):59:59 +0100",
                hour == "10" ? "HKCategoryValueAppleStandHourIdle" : "HKCategoryValueAppleStandHourStood")
        }
        body +=
            " <ActivitySummary dateComponents=\"2024-01-02\" activeEnergyBurned=\"400\" activeEnergyBurnedGoal=\"500\" activeEnergyBurnedUnit=\"Cal\" appleExerciseTime=\"34\" appleExerciseTimeGoal=\"30\" appleStandHours=\"11\" appleStandHoursGoal=\"12\"/>\n"
        let (out, _) = try run(body)
        let days = try daily(out)
        #expect(days["2024-01-02"]?["avg_hr"] == "75")
        #expect(days["2024-01-02"]?["resting_hr"] == "52")
        #expect(days["2024-01-02"]?["hrv_sdnn_ms"] == "45")
        // The rings' own figures win where an ActivitySummary exists; elsewhere the records count.
        #expect(days["2024-01-02"]?["exercise_min"] == "34")
        #expect(days["2024-01-02"]?["stand_hours"] == "11")
        #expect(days["2024-01-03"]?["exercise_min"] == "1")
        #expect(days["2024-01-03"]?["stand_hours"] == "2")
    }

    func sleep(_ source: String, _ start: String, _ end: String, _ stage: String) -> String {
        record("HKCategoryTypeIdentifierSleepAnalysis", source, nil, start, end, "HKCategoryValueSleepAnalysis" + stage)
    }

    @Test func sleepNightsAreExactForLegacyAndStagedMultiSourceNights() throws {
        var body = ""
        // Night to 2024-01-02, legacy iPhone: in bed 23:00–07:00, asleep 23:20–02:00 and 02:10–06:50.
        body += sleep(Self.phone, "2024-01-01 23:00:00 +0100", "2024-01-02 07:00:00 +0100", "InBed")
        body += sleep(Self.phone, "2024-01-01 23:20:00 +0100", "2024-01-02 02:00:00 +0100", "Asleep")
        body += sleep(Self.phone, "2024-01-02 02:10:00 +0100", "2024-01-02 06:50:00 +0100", "Asleep")
        // Night to 2024-01-03: iPhone in bed 22:30–06:30; Watch stages 22:45–06:15 with one awake span;
        // Sleep Cycle's legacy Asleep 22:40–06:20 overlaps everything and must not count twice.
        body += sleep(Self.phone, "2024-01-02 22:30:00 +0100", "2024-01-03 06:30:00 +0100", "InBed")
        body += sleep(Self.watch, "2024-01-02 22:45:00 +0100", "2024-01-03 01:00:00 +0100", "AsleepCore")
        body += sleep(Self.watch, "2024-01-03 01:00:00 +0100", "2024-01-03 02:00:00 +0100", "AsleepDeep")
        body += sleep(Self.watch, "2024-01-03 02:00:00 +0100", "2024-01-03 02:15:00 +0100", "Awake")
        body += sleep(Self.watch, "2024-01-03 02:15:00 +0100", "2024-01-03 04:00:00 +0100", "AsleepREM")
        body += sleep(Self.watch, "2024-01-03 04:00:00 +0100", "2024-01-03 06:15:00 +0100", "AsleepCore")
        body += sleep("Sleep Cycle", "2024-01-02 22:40:00 +0100", "2024-01-03 06:20:00 +0100", "Asleep")
        // An afternoon nap is its own session, not part of any night.
        body += sleep(Self.watch, "2024-01-03 14:00:00 +0100", "2024-01-03 14:25:00 +0100", "AsleepCore")
        let (out, manifest) = try run(body)
        let csv = try Support.readCSV(out + "/sleep_nights.csv")
        let nights = csv.rows.map { Dictionary(uniqueKeysWithValues: zip(csv.header, $0)) }
        #expect(nights.map { $0["date"] } == ["2024-01-02", "2024-01-03"])
        #expect(nights[0]["in_bed_min"] == "480")
        #expect(nights[0]["asleep_min"] == "440")   // 160 + 280
        #expect(nights[0]["latency_min"] == "20")
        #expect(nights[0]["efficiency"] == "0.917")
        #expect(nights[0]["awakenings"] == "1")
        // Watch: 135 core + 60 deep + 105 REM + 135 core = 435 asleep, 15 awake. The night's stages
        // are the Watch's alone: Sleep Cycle's Asleep (22:40–06:20) neither adds nor fills in.
        #expect(nights[1]["asleep_min"] == "435")
        #expect(nights[1]["core_min"] == "270")
        #expect(nights[1]["deep_min"] == "60")
        #expect(nights[1]["rem_min"] == "105")
        #expect(nights[1]["in_bed_min"] == "480")
        #expect(nights[1]["awakenings"] == "1")
        #expect(manifest.normalisation.naps == 1)
        #expect(try daily(out)["2024-01-03"]?["sleep_asleep_min"] == "435")
        let stages = Set(try Support.readCSV(out + "/sleep_samples.csv").rows.map { $0[3] })
        #expect(stages == ["in_bed", "asleep", "core", "deep", "rem", "awake"])
    }
}
