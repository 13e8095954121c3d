import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailDecode
@testable import HealthTrailKit

/// File names made from text in the data (record types, workout activity types) are bounded and
/// ASCII, so that no record can fail a run as a file name: a 264-byte `records/` name and a
/// 5,000-character activity in a workout's map name both ended in exit 1, "File name too long",
/// with the type in the message.
@Suite struct DataFileNameTests {
    static let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_-")

    static func isSafe(_ name: String, maxBytes: Int = DataFileName.maxBytes) -> Bool {
        name.utf8.count <= maxBytes && !name.isEmpty && name.allSatisfy { allowed.contains($0) }
    }

    @Test func recordTypeFileNamesAreBoundedAndDistinct() throws {
        // HealthKit's names are unchanged.
        #expect(RecordType.fileName(for: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN") == "heart_rate_variability_sdnn")
        #expect(RecordType.fileName(for: "HKCategoryTypeIdentifierSleepAnalysis") == "sleep_analysis")
        #expect(RecordType.fileName(for: "HKDataTypeSleepDurationGoal") == "sleep_duration_goal")
        // 88 × "aB" is 264 bytes as a file name: shortened, with a hash that keeps apart two
        // names sharing their first 100 bytes.
        let long = "HKQuantityTypeIdentifier" + String(repeating: "aB", count: 88)
        let other = "HKQuantityTypeIdentifier" + String(repeating: "aB", count: 87) + "cD"
        let a = try #require(RecordType.fileName(for: long)), b = try #require(RecordType.fileName(for: other))
        #expect(Self.isSafe(a) && Self.isSafe(b), "\(a) \(b)")
        #expect(a != b && a.hasPrefix("a_ba_b") && a.utf8.count == DataFileName.maxBytes)
        // Letters outside ASCII, punctuation and controls never reach a file name.
        #expect(RecordType.fileName(for: "HKQuantityTypeIdentifierÄpfel/../x\u{0}y") == "_pfel____x_y")
        // No letter or digit: no file name (a bad_type fault).
        for name in ["", "HKQuantityTypeIdentifier", "HKQuantityTypeIdentifier/..", "HKQuantityTypeIdentifierÄÖ", "___"] {
            #expect(RecordType.fileName(for: name) == nil, "\(name)")
        }
    }

    @Test func activityNamesAreBounded() {
        let raw = "HKWorkoutActivityType" + String(repeating: "Zq", count: 2_500)
        let (name, known) = ActivityCatalog.name(for: raw)
        #expect(!known && Self.isSafe(name, maxBytes: ActivityCatalog.maxNameBytes) && name.hasPrefix("zq_zq"), "\(name)")
        #expect(ActivityCatalog.name(for: raw + "X").name != name)
        #expect(ActivityCatalog.name(for: "HKWorkoutActivityTypeHighIntensityIntervalTraining") == ("high_intensity_interval_training", true))
        #expect(ActivityCatalog.name(for: "HKWorkoutActivityTypeZorbing") == ("zorbing", false))
    }

    static let route = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
        <trkpt lon="11.5" lat="48.1"><ele>500</ele><time>2024-01-02T06:00:01Z</time></trkpt>
        <trkpt lon="11.501" lat="48.101"><ele>500</ele><time>2024-01-02T06:00:11Z</time></trkpt>
        <trkpt lon="11.502" lat="48.102"><ele>500</ele><time>2024-01-02T06:00:21Z</time></trkpt>
        </trkseg></trk></gpx>

        """

    static func record(_ type: String) -> String {
        " <Record type=\"\(type)\" sourceName=\"Watch\" unit=\"count\" startDate=\"2024-01-01 10:00:00 +0000\" endDate=\"2024-01-01 10:01:00 +0000\" value=\"12\"/>\n"
    }

    /// The whole run: a record of a 200-byte type, records whose type cannot name a file, and a
    /// workout with a route whose activity type is 5,000 characters long.
    @Test func oddTypeNamesNeverFailTheRun() throws {
        let dir = Support.temporaryDirectory()
        let longType = "HKQuantityTypeIdentifier" + String(repeating: "aB", count: 88)
        let longActivity = "HKWorkoutActivityType" + String(repeating: "Zq", count: 2_500)
        let body =
            Self.record("HKQuantityTypeIdentifierStepCount") + Self.record(longType)
            + Self.record("HKQuantityTypeIdentifier--") + Self.record("HKQuantityTypeIdentifierÄÖ") + """
                 <Workout workoutActivityType="\(longActivity)" duration="10" durationUnit="min" sourceName="Watch" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:10:00 +0100">
                  <WorkoutRoute sourceName="Watch" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:10:00 +0100">
                   <FileReference path="/workout-routes/route_1.gpx"/>
                  </WorkoutRoute>
                 </Workout>

                """
        try Support.makeZip(
            dir + "/export.zip",
            [
                ("apple_health_export/export.xml", Support.exportXML(body)),
                ("apple_health_export/workout-routes/route_1.gpx", Self.route),
            ])
        let run = try Support.runCLI(["run", dir + "/export.zip", "--out", dir + "/out", "--quiet"])
        #expect(run.status == 0, "\(run.stderr.prefix(300))")
        #expect(!run.stderr.contains("aBaB") && !run.stderr.contains("a_ba_b") && !run.stderr.lowercased().contains("zqzq"))

        let records = try FileManager.default.contentsOfDirectory(atPath: dir + "/out/records").sorted()
        #expect(records.count == 2 && records.contains("step_count.csv"), "\(records)")
        for file in records { #expect(Self.isSafe(String(file.dropLast(4))), "\(file)") }
        let maps = try FileManager.default.contentsOfDirectory(atPath: dir + "/out/svg/workouts")
        #expect(maps.count == 1)
        // A workout id: its start (`20240102T060000Z`, the only capitals) and its activity.
        for file in maps { #expect(Self.isSafe(String(file.dropLast(4)).lowercased()), "\(file)") }

        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/out/manifest.json"))) as? [String: Any])
        let faults = try #require(json["faults"] as? [String: Any])
        #expect(faults["by_kind"] as? [String: Int] == ["bad_type": 2])
        let workouts = try Support.readCSV(dir + "/out/workouts.csv").rows
        #expect(workouts.count == 1 && workouts[0][1].utf8.count <= ActivityCatalog.maxNameBytes)
    }
}
