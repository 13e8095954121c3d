import Foundation
import HealthTrailTestSupport
import Testing

/// Heart-rate zones as the shipped binary chooses them: five zones from the workouts' maximum by
/// default, from `--max-hr` or the date of birth when asked, always in `zone_1_s` … `zone_5_s`.
@Suite struct HeartRateZoneRunTests {
    /// 2024-01-10T08:00:00Z, the start of the run with a route.
    static let start = "2024-01-10 08:00"

    /// One second of the run's heart rate, `t` seconds in: 100, 120, 140, then 165 bpm, 100 s each.
    static func bpm(_ t: Int) -> Int { [100, 120, 140, 165][min(3, t / 100)] }

    static func clock(_ t: Int) -> String { String(format: "%02d:%02d", t / 60, t % 60) }

    /// Four workouts whose heart-rate statistics say 188, 205, 231 and 115 bpm, the first with a
    /// 400 s route and a heart-rate sample every second of it. Without any statistics (`statistics:
    /// false`) the workouts give no maximum of their own, and no sample lies outside the route.
    static func export(statistics: Bool = true, in dir: String) throws -> String {
        func workout(_ activity: String, day: Int, maximum: Int, route: Bool = false) -> String {
            let span = "startDate=\"2024-01-\(day) 08:00:00 +0000\" endDate=\"2024-01-\(day) 08:06:40 +0000\""
            var xml = " <Workout workoutActivityType=\"HKWorkoutActivityType\(activity)\" sourceName=\"Watch\" \(span)>\n"
            if statistics {
                xml +=
                    "  <WorkoutStatistics type=\"HKQuantityTypeIdentifierHeartRate\" \(span) average=\"130\" minimum=\"90\" maximum=\"\(maximum)\" unit=\"count/min\"/>\n"
            }
            if route {
                xml +=
                    "  <WorkoutRoute sourceName=\"Watch\" \(span)>\n   <FileReference path=\"/workout-routes/route_2024-01-10_8.06am.gpx\"/>\n  </WorkoutRoute>\n"
            }
            return xml + " </Workout>\n"
        }
        var body = ""
        for t in 0...400 {
            let date = "2024-01-10 08:\(clock(t)) +0000"
            body +=
                " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Watch\" unit=\"count/min\" startDate=\"\(date)\" endDate=\"\(date)\" value=\"\(bpm(t))\"/>\n"
        }
        body += workout("Running", day: 10, maximum: 188, route: true)
        body += workout("Running", day: 11, maximum: 205)
        body += workout("Running", day: 12, maximum: 231)
        body += workout("Walking", day: 13, maximum: 115)
        var gpx =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"Apple Health Export\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n"
        for t in 0...400 {
            gpx +=
                "<trkpt lon=\"2.350000\" lat=\"\(String(format: "%.6f", 48.85 + Double(t) * 0.000027))\"><ele>35.0</ele><time>2024-01-10T08:\(clock(t))Z</time><extensions><speed>3.0</speed></extensions></trkpt>\n"
        }
        gpx += "</trkseg></trk></gpx>\n"
        let zip = dir + "/export.zip"
        try Support.makeZip(
            zip,
            [
                ("apple_health_export/export.xml", Support.exportXML(body)),
                ("apple_health_export/workout-routes/route_2024-01-10_8.06am.gpx", gpx),
            ])
        return zip
    }

    /// The run's outputs: the route's row of workouts.csv, the manifest's `routes`, the map.
    static func run(_ arguments: [String] = [], statistics: Bool = true, _ name: String = #function) throws
        -> (header: [String], row: [String: String], routes: [String: Any], map: String)
    {
        let dir = Support.temporaryDirectory(name)
        let archive = try export(statistics: statistics, in: dir)
        let result = try Support.runCLI(["run", archive, "--out", dir + "/out"] + arguments)
        try #require(result.status == 0, "\(result.stderr)")
        let workouts = try Support.readCSV(dir + "/out/workouts.csv")
        let row = try #require(
            workouts.rows.map { Dictionary(uniqueKeysWithValues: zip(workouts.header, $0)) }
                .first { $0["workout_id"] == "20240110T080000Z-running" })
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/out/manifest.json")))
        let routes = try #require((manifest as? [String: Any])?["routes"] as? [String: Any])
        let map = try String(contentsOfFile: dir + "/out/svg/workouts/20240110T080000Z-running.svg", encoding: .utf8)
        return (workouts.header, row, routes, map)
    }

    static let zoneColumns = ["zone_1_s", "zone_2_s", "zone_3_s", "zone_4_s", "zone_5_s"]

    static func seconds(_ row: [String: String]) -> [Double?] { zoneColumns.map { row[$0].flatMap(Double.init) } }

    /// By default the maximum is the second-highest credible workout maximum: 231 is above
    /// 220 and 115 below 120, and of 205 and 188 the second is 188. Its zones' lower bounds are
    /// 94, 113, 132, 150 and 169 bpm (50 … 90 % of 188, rounded). Each second-long step counts in
    /// the zone of its mean: 100 s at 100 bpm (the step to 120 averages 110, zone 1), 100 s at
    /// 120 (the step to 140 averages 130, zone 2), 99 s at 140 in zone 3, the step to 165
    /// (152.5) and 100 s at 165 in zone 4.
    @Test func defaultZonesComeFromTheSecondHighestCredibleWorkoutMaximum() throws {
        let run = try Self.run()
        #expect(run.routes["zone_maximum_bpm"] as? Double == 188)
        #expect(run.routes["zone_basis"] as? String == "workout_maximum")
        #expect(run.routes["zone_lower_bounds_bpm"] as? [Double] == [94, 113, 132, 150, 169])
        #expect(Array(run.header.suffix(5)) == Self.zoneColumns)
        #expect(Self.seconds(run.row) == [100, 100, 99, 101, 0])
        // The legend lists every zone's bpm range.
        for label in ["Z1 &lt;113 bpm", "Z2 113–131 bpm", "Z3 132–149 bpm", "Z4 150–168 bpm", "Z5 ≥169 bpm"] {
            #expect(run.map.contains(label), "\(label) missing from the legend")
        }
    }

    /// `--max-hr 160` keeps the columns and moves the time: bounds 80, 96, 112, 128, 144; 100 bpm
    /// is zone 2, 120 zone 3, 140 zone 4, 165 zone 5; the steps between average 110 (zone 2), 130
    /// (zone 4) and 152.5 (zone 5).
    @Test func maxHROptionKeepsTheColumns() throws {
        let run = try Self.run(["--max-hr", "160"])
        #expect(Array(run.header.suffix(5)) == Self.zoneColumns)
        #expect(run.routes["zone_maximum_bpm"] as? Double == 160)
        #expect(run.routes["zone_basis"] as? String == "max_hr")
        #expect(Self.seconds(run.row) == [0, 100, 99, 100, 101])
        #expect(run.map.contains("Z5 ≥144 bpm"))
    }

    /// `--max-hr-from-birth-date`: born 1990-05-06, 33 on the export date 2024-03-01, so 187.
    @Test func birthDateOptionKeepsTheColumns() throws {
        let run = try Self.run(["--max-hr-from-birth-date"])
        #expect(Array(run.header.suffix(5)) == Self.zoneColumns)
        #expect(run.routes["zone_maximum_bpm"] as? Double == 187)
        #expect(run.routes["zone_basis"] as? String == "date_of_birth")
    }

    /// Without statistics the route's workout still has heart rate: its highest joined sample,
    /// 165 bpm, is the only workout maximum, and the zones come from it.
    @Test func workoutsWithoutStatisticsUseTheirJoinedHeartRate() throws {
        let run = try Self.run(statistics: false)
        #expect(run.routes["zone_maximum_bpm"] as? Double == 165)
        #expect(run.routes["zone_basis"] as? String == "workout_maximum")
        #expect(Array(run.header.suffix(5)) == Self.zoneColumns)
    }

    /// A real export with no Workout element and no `Me` (k0rventen's, see the fixtures'
    /// README): no workout maximum and no date of birth, so the fixed 200 bpm, and still the
    /// five columns. Its two routes are orphans with no heart-rate sample in their windows.
    @Test(.enabled(if: Support.hasRealFixtures, "../shared/fixtures/real is absent"))
    func realExportWithoutWorkoutsFallsBackToTheFixedMaximum() throws {
        let dir = Support.temporaryDirectory()
        let result = try Support.runCLI(["run", Support.fixture("k0rventen/test-export.zip"), "--out", dir + "/out"])
        try #require(result.status == 0, "\(result.stderr)")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/out/manifest.json")))
        let routes = try #require((manifest as? [String: Any])?["routes"] as? [String: Any])
        #expect(routes["zone_basis"] as? String == "fixed")
        #expect(routes["zone_lower_bounds_bpm"] as? [Double] == [100, 120, 140, 160, 180])
        #expect(Array(try Support.readCSV(dir + "/out/workouts.csv").header.suffix(5)) == Self.zoneColumns)
    }
}
