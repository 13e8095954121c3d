import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailCommit
@testable import HealthTrailDecode
@testable import HealthTrailRun
@testable import HealthTrailXML

/// Decoding hand-built exports whose every expected row is known.
@Suite struct ExportDecoderTests {
    /// Runs a zip holding `body` (inside HealthData) plus `extra` entries; returns the output folder.
    func run(_ body: String, extra: [(String, String)] = [], strict: Bool = false) throws -> (String, Manifest) {
        let dir = Support.temporaryDirectory()
        let zip = dir + "/export.zip"
        try Support.makeZip(zip, [("apple_health_export/export.xml", Support.exportXML(body))] + extra)
        var options = RunOptions(inputPath: zip, outputDirectory: dir + "/out")
        options.strict = strict
        let manifest = try ExportRun.run(options)
        return (dir + "/out", manifest)
    }

    @Test func writesHeartRateWithMotionContextAndQuotedSources() throws {
        let (out, manifest) = try run(Support.heartRateRecords)
        let csv = try Support.readCSV(out + "/heart_rate.csv")
        #expect(csv.header == ["time_utc", "utc_offset", "bpm", "source", "motion_context"])
        #expect(
            csv.rows == [
                ["2024-01-02T15:31:22Z", "-08:00", "72", "Alex’s Apple Watch", "sedentary"],
                ["2024-01-02T15:40:00Z", "-08:00", "131.5", "Polar, \"H10\" & Co", "active"],
                ["2024-01-02T22:59:59Z", "+01:00", "55", "Alex’s Apple Watch", ""],
            ])
        #expect(manifest.counts.heartRate == 3)
        #expect(manifest.outputs["heart_rate.csv"] == 3)
        #expect(manifest.input.exportVersion == "13")
        #expect(manifest.input.exportDate == "2024-03-01T08:00:00Z")
        #expect(manifest.input.locale == "en_US")
    }

    @Test func writesOtherRecordsPerTypeAndSkipsCorrelationCopies() throws {
        let body = """
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Alex’s iPhone" unit="count" startDate="2024-01-02 08:00:00 +0100" endDate="2024-01-02 08:10:00 +0100" value="512"/>
             <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Cuff" unit="mmHg" startDate="2024-01-02 08:00:00 +0100" endDate="2024-01-02 08:00:00 +0100" value="120"/>
             <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Alex’s Apple Watch" startDate="2024-01-02 01:00:00 +0100" endDate="2024-01-02 02:30:00 +0100" value="HKCategoryValueSleepAnalysisAsleepCore"/>
             <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Cuff" startDate="2024-01-02 08:00:00 +0100" endDate="2024-01-02 08:00:00 +0100">
              <MetadataEntry key="HKWasUserEntered" value="1"/>
              <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Cuff" unit="mmHg" startDate="2024-01-02 08:00:00 +0100" endDate="2024-01-02 08:00:00 +0100" value="120"/>
             </Correlation>

            """
        let (out, manifest) = try run(body)
        #expect(
            try Support.readCSV(out + "/records/step_count.csv").rows
                == [["2024-01-02T07:00:00Z", "2024-01-02T07:10:00Z", "+01:00", "512", "count", "Alex’s iPhone", "", ""]])
        #expect(try Support.readCSV(out + "/records/blood_pressure_systolic.csv").rows.count == 1)
        #expect(
            try Support.readCSV(out + "/records/sleep_analysis.csv").rows
                == [
                    [
                        "2024-01-02T00:00:00Z", "2024-01-02T01:30:00Z", "+01:00", "HKCategoryValueSleepAnalysisAsleepCore", "", "Alex’s Apple Watch",
                        "", "",
                    ]
                ])
        #expect(manifest.counts.correlations == 1)
        #expect(manifest.counts.recordsByType["HKQuantityTypeIdentifierBloodPressureSystolic"] == 1)
    }

    @Test func typesWithTheSameFileNameGetTheirOwnFiles() throws {
        let body = """
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="P" unit="count" startDate="2024-01-02 08:00:00 +0100" endDate="2024-01-02 08:10:00 +0100" value="5"/>
             <Record type="HKCategoryTypeIdentifierStepCount" sourceName="P" startDate="2024-01-02 08:00:00 +0100" endDate="2024-01-02 08:10:00 +0100" value="HKCategoryValueX"/>

            """
        let (out, _) = try run(body)
        #expect(try Support.readCSV(out + "/records/step_count.csv").rows.map { $0[3] } == ["5"])
        #expect(try Support.readCSV(out + "/records/step_count-2.csv").rows.map { $0[3] } == ["HKCategoryValueX"])
    }

    @Test func countsMalformedRecordsWithTheirLinesAndSkipsThem() throws {
        let body = """
             <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="W" unit="count/min" startDate="2024-01-02 07:31:22 -0800" endDate="2024-01-02 07:31:22 -0800" value="seventy"/>
             <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="W" unit="count/min" startDate="2024-13-02 07:31:22 -0800" endDate="2024-01-02 07:31:22 -0800" value="70"/>
             <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="W" unit="count/min" startDate="2024-01-02 07:31:22 -0800" endDate="2024-01-02 07:31:22 -0800" value="71"/>

            """
        let (out, manifest) = try run(body)
        #expect(try Support.readCSV(out + "/heart_rate.csv").rows.map { $0[2] } == ["71"])
        #expect(manifest.faults.total == 2)
        #expect(manifest.faults.byKind == ["non_numeric_value": 1, "bad_date": 1])
        let prologLines = Support.prolog.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(manifest.faults.first.map(\.line) == [prologLines, prologLines + 1])
        #expect(manifest.faults.first.allSatisfy { $0.entry == "apple_health_export/export.xml" })
        // The log of a fault never carries the value.
        #expect(!manifest.faults.first.contains { $0.message.contains("seventy") })
    }

    @Test func strictMakesTheFirstFaultFatalAndWritesNothing() throws {
        let body =
            " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"W\" unit=\"count\" startDate=\"2024-01-02 07:31:22 -0800\" endDate=\"2024-01-02 07:31:22 -0800\" value=\"12x\"/>\n"
        let error = #expect(throws: InputError.self) { try run(body, strict: true) }
        #expect(error?.entry == "apple_health_export/export.xml")
        #expect(error?.line == Support.prolog.split(separator: "\n", omittingEmptySubsequences: false).count)
        #expect(error?.message.contains("--strict") == true)
    }

    @Test func decodesWorkoutsWithStatisticsEventsPartsAndRoutes() throws {
        let body = """
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30.5" durationUnit="min" totalDistance="3.1" totalDistanceUnit="mi" totalEnergyBurned="300" totalEnergyBurnedUnit="kcal" sourceName="Alex’s Apple Watch" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:31:00 +0100">
              <MetadataEntry key="HKIndoorWorkout" value="0"/>
              <MetadataEntry key="HKTimeZone" value="Europe/Paris"/>
              <MetadataEntry key="HKElevationAscended" value="4500 cm"/>
              <MetadataEntry key="HKWeatherTemperature" value="68 degF"/>
              <MetadataEntry key="HKWeatherHumidity" value="5600 %"/>
              <WorkoutEvent type="HKWorkoutEventTypePause" date="2024-01-02 07:10:00 +0100"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:31:00 +0100" average="148" minimum="101" maximum="171" unit="count/min"/>
              <WorkoutActivity uuid="A1" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:15:00 +0100" duration="15" durationUnit="min">
               <MetadataEntry key="HKIndoorWorkout" value="0"/>
              </WorkoutActivity>
              <WorkoutRoute sourceName="Alex’s Apple Watch" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:31:00 +0100">
               <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>
               <FileReference path="/workout-routes/route_2024-01-02_7.31am.gpx"/>
              </WorkoutRoute>
             </Workout>
             <Workout workoutActivityType="HKWorkoutActivityTypeWalking" sourceName="Old Watch" startDate="2016-05-01 10:00:00 +0200" endDate="2016-05-01 10:20:00 +0200">
              <WorkoutRoute sourceName="Old Watch" startDate="2016-05-01 10:00:00 +0200" endDate="2016-05-01 10:20:00 +0200">
               <Location date="2016-05-01 10:00:01 +0200" latitude="48.1" longitude="11.5" altitude="520" horizontalAccuracy="5" verticalAccuracy="3" course="90" speed="1.4"/>
               <Location date="2016-05-01 10:00:02 +0200" latitude="48.10001" longitude="11.50002" altitude="520.5" horizontalAccuracy="5" verticalAccuracy="3" course="91" speed="1.5"/>
              </WorkoutRoute>
             </Workout>
             <ActivitySummary dateComponents="2024-01-02" activeEnergyBurned="512.3" activeEnergyBurnedGoal="500" activeEnergyBurnedUnit="Cal" appleMoveTime="0" appleMoveTimeGoal="0" appleExerciseTime="34" appleExerciseTimeGoal="30" appleStandHours="11" appleStandHoursGoal="12"/>

            """
        let gpx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1">
              <trk><name>Route</name><trkseg>
                <trkpt lon="2.350000" lat="48.850000"><ele>35.5</ele><time>2024-01-02T06:00:05Z</time><extensions><speed>2.9</speed><course>10.5</course><hAcc>3.2</hAcc><vAcc>2.1</vAcc></extensions></trkpt>
                <trkpt lon="2.350100" lat="48.850100"><ele>35.7</ele><time>2024-01-02T06:00:06Z</time><extensions><speed>3.0</speed><course>11</course><hAcc>3.1</hAcc><vAcc>2.0</vAcc></extensions></trkpt>
              </trkseg></trk>
            </gpx>
            """
        let (out, manifest) = try run(body, extra: [("apple_health_export/workout-routes/route_2024-01-02_7.31am.gpx", gpx)])
        let workouts = try Support.readCSV(out + "/workouts.csv")
        #expect(workouts.header == OutputSchema.workouts.header(zones: .fromMaximum(171)))
        #expect(workouts.header.suffix(5) == ["zone_1_s", "zone_2_s", "zone_3_s", "zone_4_s", "zone_5_s"])
        // The one workout with heart rate gives the maximum: its statistic's 171 bpm.
        #expect(try Support.readCSV(out + "/heart_rate_zones.csv").rows.allSatisfy { $0[3] == "171" && $0[4] == "workout_maximum" })
        #expect(manifest.routes.zoneBasis == .workoutMaximum)
        #expect(
            workouts.rows == [
                [
                    "20160501T080000Z-walking", "walking", "2016-05-01T08:00:00Z", "2016-05-01T08:20:00Z", "+02:00", "1200", "Old Watch", "",
                    "", "", "", "", "", "", "1", "", "", "", "", "",
                    // From the two inline points: 1.9 m in 1 s; pace needs 10 m; no heart rate, so no
                    // figures and no time in any zone (empty, not 0).
                    "1.9", "1", "", "0", "0", "", "", "", "", "", "",
                ],
                // 3.1 mi = 4988.97 m; totals from the legacy attributes, heart rate from WorkoutStatistics.
                [
                    "20240102T060000Z-running", "running", "2024-01-02T06:00:00Z", "2024-01-02T06:31:00Z", "+01:00", "1830", "Alex’s Apple Watch",
                    "workout-routes/route_2024-01-02_7.31am.gpx", "4989", "300", "148", "171", "false", "Europe/Paris", "1",
                    "101", "workout", "45", "20", "56", "13.3", "1", "75.1", "0", "0", "", "", "", "", "", "",
                ],
            ])
        let points = try Support.readCSV(out + "/route_points.csv").rows
        #expect(
            points == [
                ["20160501T080000Z-walking", "2016-05-01T08:00:01Z", "48.1", "11.5", "520", "1.4", "5", "90", "3", "", "", "0", "active"],
                [
                    "20160501T080000Z-walking", "2016-05-01T08:00:02Z", "48.10001", "11.50002", "520.5", "1.5", "5", "91", "3", "", "", "1.9",
                    "active",
                ],
                [
                    "20240102T060000Z-running", "2024-01-02T06:00:05Z", "48.850000", "2.350000", "35.5", "2.9", "3.2", "10.5", "2.1", "", "", "0",
                    "active",
                ],
                [
                    "20240102T060000Z-running", "2024-01-02T06:00:06Z", "48.850100", "2.350100", "35.7", "3.0", "3.1", "11", "2.0", "", "", "13.3",
                    "active",
                ],
            ])
        #expect(manifest.routes.linkedByReference == 1)
        #expect(manifest.counts.inlineRoutePoints == 2)
        #expect(manifest.counts.routePoints == 4)
        #expect(
            try Support.readCSV(out + "/activity_summaries.csv").rows
                == [["2024-01-02", "512.3", "500", "Cal", "0", "0", "34", "30", "11", "12"]])
    }

    @Test func decodedWorkoutKeepsItsChildren() throws {
        let dir = Support.temporaryDirectory()
        let xml = Support.exportXML(
            """
             <Workout workoutActivityType="HKWorkoutActivityTypeTraditionalStrengthTraining" duration="45" durationUnit="min" sourceName="W" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:45:00 +0100">
              <MetadataEntry key="HKTimeZone" value="America/New_York"/>
              <WorkoutEvent type="HKWorkoutEventTypeSegment" date="2024-01-02 07:05:00 +0100" duration="5" durationUnit="min"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:45:00 +0100" sum="210.5" unit="kcal"/>
              <WorkoutActivity uuid="P1" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:20:00 +0100"/>
              <WorkoutActivity uuid="P2" startDate="2024-01-02 07:20:00 +0100" endDate="2024-01-02 07:45:00 +0100"/>
             </Workout>

            """)
        try xml.write(toFile: dir + "/export.xml", atomically: true, encoding: .utf8)
        let source = try openExportSource(path: dir + "/export.xml")
        let layout = try ExportLayout(source: source)
        let decoder = ExportDecoder(sink: nil, faults: FaultLog(file: dir, strict: false), fileName: dir, entryName: "export.xml")
        _ = try ExportRun.stream(layout.mainXML, of: source, into: decoder, progress: ProgressLine(totalBytes: 1, enabled: false))
        let w = try #require(decoder.workouts.first)
        #expect(w.activity == "traditional_strength_training")
        #expect(w.durationSeconds == 2700)
        #expect(w.metadataValue("HKTimeZone") == "America/New_York")
        #expect(w.events.first?.duration == Quantity(value: 5, unit: "min"))
        #expect(w.statistics.first?.sum == 210.5)
        #expect(w.activities.map(\.uuid) == ["P1", "P2"])
        #expect(decoder.me?.dateOfBirth == "1990-05-06")
    }

    @Test func placesHRVBeatsOnTheRecordsDay() throws {
        let body = """
             <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="W" unit="ms" startDate="2024-01-02 23:59:30 +0100" endDate="2024-01-03 00:00:30 +0100" value="48.5">
              <HeartRateVariabilityMetadataList>
               <InstantaneousBeatsPerMinute bpm="62" time="11:59:58.50 PM"/>
               <InstantaneousBeatsPerMinute bpm="63" time="00:00:01,20"/>
              </HeartRateVariabilityMetadataList>
             </Record>

            """
        let (out, manifest) = try run(body)
        #expect(
            try Support.readCSV(out + "/hrv_beats.csv").rows == [
                ["2024-01-02T22:59:58Z", "+01:00", "62", "W"],
                ["2024-01-02T23:00:01Z", "+01:00", "63", "W"],
            ])
        #expect(manifest.counts.hrvBeats == 2)
        #expect(try Support.readCSV(out + "/records/heart_rate_variability_sdnn.csv").rows.first?[3] == "48.5")
    }

    /// An HRV record at `0000-01-01 12:00:00 +1200` wrote `000/-12-31T14:57:51Z` into
    /// hrv_beats.csv: a date outside 1900–2200 is a counted `bad_date`, its beats go nowhere, and
    /// the same holds for a route point's GPX time.
    @Test func datesOutsideTheSupportedYearsAreCountedFaults() throws {
        let body = """
             <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="W" unit="ms" startDate="0000-01-01 12:00:00 +1200" endDate="0000-01-01 12:01:00 +1200" value="48.5">
              <HeartRateVariabilityMetadataList>
               <InstantaneousBeatsPerMinute bpm="62" time="14:57:51"/>
              </HeartRateVariabilityMetadataList>
             </Record>
             <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="W" unit="count/min" startDate="2201-01-01 00:00:00 +0000" endDate="2201-01-01 00:00:00 +0000" value="60"/>
             <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="W" unit="count/min" startDate="2024-01-02 08:00:00 +0100" endDate="2024-01-02 08:00:00 +0100" value="61"/>

            """
        let (out, manifest) = try run(body)
        #expect(try Support.readCSV(out + "/hrv_beats.csv").rows.isEmpty)
        #expect(try Support.readCSV(out + "/heart_rate.csv").rows.map { $0[0] } == ["2024-01-02T07:00:00Z"])
        #expect(manifest.faults.byKind == ["bad_date": 2])
        #expect(manifest.counts.hrvBeats == 0)

        let log = FaultLog(file: "export.zip", strict: false)
        let gpx = GPXDecoder(faults: log, fileName: "export.zip", entryName: "route.gpx", onPoint: nil)
        let document = Array(
            """
            <gpx><trk><trkseg>
            <trkpt lat="48.85" lon="2.35"><time>1899-12-31T23:59:59Z</time></trkpt>
            <trkpt lat="48.85" lon="2.35"><time>2024-06-01T08:00:00Z</time></trkpt>
            </trkseg></trk></gpx>
            """.utf8)
        try ByteSpan.withBytes(ofEach: document) { try gpx.feed($0) }
        try gpx.finish()
        #expect(gpx.points == 1)
        #expect(log.countsByKind == ["bad_date": 1])
    }

    @Test func malformedXMLNamesFileEntryAndLine() throws {
        let dir = Support.temporaryDirectory()
        let zip = dir + "/broken.zip"
        try Support.makeZip(zip, [("apple_health_export/export.xml", Support.prolog + " <Record type=\"X\" value=\"1\">\n <Oops>\n</HealthData>\n")])
        let error = #expect(throws: InputError.self) { try ExportRun.run(RunOptions(inputPath: zip, outputDirectory: dir + "/out")) }
        #expect(error?.file == zip)
        #expect(error?.entry == "apple_health_export/export.xml")
        #expect(error?.line != nil)
        #expect(error?.message.hasPrefix("malformed XML") == true)
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/heart_rate.csv"))
    }

    @Test func aFailedRunLeavesThePreviousOutputsUntouched() throws {
        let dir = Support.temporaryDirectory()
        let good = dir + "/good.zip", bad = dir + "/bad.zip", out = dir + "/out"
        try Support.makeZip(good, [("apple_health_export/export.xml", Support.exportXML(Support.heartRateRecords))])
        _ = try ExportRun.run(RunOptions(inputPath: good, outputDirectory: out))
        let before = try Support.snapshot(out)
        #expect(before.keys.contains("/heart_rate.csv"))

        // Truncate a copy of the good archive: the run must fail and change nothing.
        let data = try Data(contentsOf: URL(fileURLWithPath: good))
        try data.prefix(data.count - 40).write(to: URL(fileURLWithPath: bad))
        #expect(throws: InputError.self) { try ExportRun.run(RunOptions(inputPath: bad, outputDirectory: out)) }
        #expect(try Support.snapshot(out) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).allSatisfy { !$0.hasPrefix(".staging") })
    }

    /// A run killed between moving the old `records/` aside and moving the new one in leaves
    /// `.old-<pid>-records`: the next run must put it back, never delete the only copy.
    @Test func aFolderMovedAsideByAKilledRunIsRestored() throws {
        let dir = Support.temporaryDirectory()
        let zip = dir + "/export.zip"
        try Support.makeZip(
            zip,
            [
                (
                    "apple_health_export/export.xml",
                    Support.exportXML(
                        Support.heartRateRecords
                            + " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"P\" unit=\"count\" startDate=\"2024-01-02 08:00:00 +0100\" endDate=\"2024-01-02 08:10:00 +0100\" value=\"5\"/>\n"
                    )
                )
            ])
        let out = dir + "/out"
        _ = try ExportRun.run(RunOptions(inputPath: zip, outputDirectory: out))
        let records = try Support.snapshot(out + "/records")
        // A process that has exited: its pid is free.
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run(); gone.waitUntilExit()
        try FileManager.default.moveItem(atPath: out + "/records", toPath: out + "/.old-\(gone.processIdentifier)-records")
        _ = try OutputStaging(outputDirectory: out)   // what the next run does first
        #expect(try Support.snapshot(out + "/records") == records)
        #expect(!FileManager.default.fileExists(atPath: out + "/.old-\(gone.processIdentifier)-records"))
    }

    @Test func outputsAreOwnerOnly() throws {
        let (out, _) = try run(
            Support.heartRateRecords
                + " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"P\" unit=\"count\" startDate=\"2024-01-02 08:00:00 +0100\" endDate=\"2024-01-02 08:10:00 +0100\" value=\"5\"/>\n"
        )
        for path in [out, out + "/heart_rate.csv", out + "/records", out + "/manifest.json"] {
            let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0, "\(path) has mode \(String(mode, radix: 8))")
        }
    }

    @Test func externalEntitiesAreNeverLoaded() throws {
        // A GPX keeps its DTD (only export.xml's is dropped): a file-reading entity must not work.
        let dir = Support.temporaryDirectory()
        try "98765.4321".write(toFile: dir + "/secret.txt", atomically: true, encoding: .utf8)
        let gpx = """
            <?xml version="1.0"?>
            <!DOCTYPE gpx [ <!ENTITY leak SYSTEM "file://\(dir)/secret.txt"> ]>
            <gpx><trk><trkseg><trkpt lat="1" lon="2"><ele>&leak;</ele><time>2024-01-02T06:00:05Z</time></trkpt></trkseg></trk></gpx>
            """
        let outcome = Result { try run("", extra: [("apple_health_export/workout-routes/r.gpx", gpx)]) }
        if case .success(let (out, _)) = outcome {
            let text = try String(contentsOfFile: out + "/route_points.csv", encoding: .utf8)
            #expect(!text.contains("98765"))   // a number, so a leak would reach the CSV
        }
    }

    @Test func anUnwritableOutputFolderIsReportedBeforeAnythingIsRead() throws {
        let dir = Support.temporaryDirectory()
        let zip = dir + "/export.zip"
        try Support.makeZip(zip, [("apple_health_export/export.xml", Support.exportXML(Support.heartRateRecords))])
        try "not a folder".write(toFile: dir + "/file", atomically: true, encoding: .utf8)
        #expect {
            try ExportRun.run(RunOptions(inputPath: zip, outputDirectory: dir + "/file/out"))
        } throws: { "\($0)".contains(dir + "/file") }
    }
}
