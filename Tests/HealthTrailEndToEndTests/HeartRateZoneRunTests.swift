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

    /// The run's outputs: the route's row of workouts.csv, the rows of heart_rate_zones.csv, the
    /// manifest's `routes` and its whole text, the map.
    static func run(_ arguments: [String] = [], statistics: Bool = true, _ name: String = #function) throws
        -> (header: [String], row: [String: String], zones: [[String]], routes: [String: Any], manifest: String, map: String)
    {
        let dir = Support.temporaryDirectory(name)
        let archive = try export(statistics: statistics, in: dir)
        let result = try Support.runCLI(["run", archive, "--out", dir + "/out"] + arguments)
        try #require(result.status == 0, "\(result.stderr)")
        let workouts = try Support.readCSV(dir + "/out/workouts.csv")
        let row = try #require(
            workouts.rows.map { Dictionary(uniqueKeysWithValues: zip(workouts.header, $0)) }
                .first { $0["workout_id"] == "20240110T080000Z-running" })
        let zones = try Support.readCSV(dir + "/out/heart_rate_zones.csv")
        #expect(zones.header == ["zone", "lower_bpm", "upper_bpm", "maximum_bpm", "basis"])
        let manifestText = try String(contentsOfFile: dir + "/out/manifest.json", encoding: .utf8)
        let manifest = try JSONSerialization.jsonObject(with: Data(manifestText.utf8))
        let routes = try #require((manifest as? [String: Any])?["routes"] as? [String: Any])
        let map = try String(contentsOfFile: dir + "/out/svg/workouts/20240110T080000Z-running.svg", encoding: .utf8)
        return (workouts.header, row, zones.rows, routes, manifestText, map)
    }

    /// Whether `text` holds `number` as a JSON number (`150`, `150.0`), not as part of another
    /// one (`1150`, `0.150`, `150.5`).
    static func holdsNumber(_ text: String, _ number: Int) -> Bool {
        text.range(of: "(?<![0-9.])\(number)(\\.0+)?(?![0-9.])", options: .regularExpression) != nil
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
        #expect(
            run.zones == [
                ["1", "94", "113", "188", "workout_maximum"], ["2", "113", "132", "188", "workout_maximum"],
                ["3", "132", "150", "188", "workout_maximum"], ["4", "150", "169", "188", "workout_maximum"],
                ["5", "169", "", "188", "workout_maximum"],
            ])
        #expect(run.routes["zone_basis"] as? String == "workout_maximum")
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
        #expect(run.zones.map { $0[1] } == ["80", "96", "112", "128", "144"])
        #expect(run.zones.allSatisfy { $0[3] == "160" && $0[4] == "max_hr" })
        #expect(run.routes["zone_basis"] as? String == "max_hr")
        #expect(Self.seconds(run.row) == [0, 100, 99, 100, 101])
        #expect(run.map.contains("Z5 ≥144 bpm"))
    }

    /// `--max-hr-from-birth-date`: born 1990-05-06, 33 on the export date 2024-03-01, so 187.
    @Test func birthDateOptionKeepsTheColumns() throws {
        let run = try Self.run(["--max-hr-from-birth-date"])
        #expect(Array(run.header.suffix(5)) == Self.zoneColumns)
        #expect(run.zones.map { $0[1] } == ["94", "112", "131", "150", "168"])
        #expect(run.zones.allSatisfy { $0[3] == "187" && $0[4] == "date_of_birth" })
        #expect(run.routes["zone_basis"] as? String == "date_of_birth")
    }

    /// Without statistics the route's workout still has heart rate: its highest joined sample,
    /// 165 bpm, is the only workout maximum, and the zones come from it.
    @Test func workoutsWithoutStatisticsUseTheirJoinedHeartRate() throws {
        let run = try Self.run(statistics: false)
        #expect(run.zones.allSatisfy { $0[3] == "165" && $0[4] == "workout_maximum" })
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
        let zones = try Support.readCSV(dir + "/out/heart_rate_zones.csv")
        #expect(zones.rows.map { $0[1] } == ["100", "120", "140", "160", "180"])
        #expect(zones.rows.allSatisfy { $0[3] == "200" && $0[4] == "fixed" })
        #expect(Array(try Support.readCSV(dir + "/out/workouts.csv").header.suffix(5)) == Self.zoneColumns)
    }

    /// The manifest names where the maximum came from, never the maximum or a bound: each is a
    /// health value, kept in the owner-only heart_rate_zones.csv. 188 and its bounds 94, 113, 132,
    /// 150, 169 (and 160's with `--max-hr 160`: 80, 96, 112, 128, 144) appear nowhere in it, as
    /// numbers or under any key, once the timings (seconds, which could hold any digits) are left out.
    @Test(arguments: [[], ["--max-hr", "160"]])
    func manifestHoldsNoZoneBound(_ arguments: [String]) throws {
        let run = try Self.run(arguments, "manifestHoldsNoZoneBound\(arguments.count)")
        let values = arguments.isEmpty ? [188, 94, 113, 132, 150, 169] : [160, 80, 96, 112, 128, 144]
        #expect(run.zones.map { Int($0[1])! } == Array(values.dropFirst()))
        var manifest = try #require(try JSONSerialization.jsonObject(with: Data(run.manifest.utf8)) as? [String: Any])
        manifest["timings"] = nil
        let text = String(decoding: try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys]), as: UTF8.self)
        #expect(text.contains("\"zone_basis\""))
        for value in values { #expect(!Self.holdsNumber(text, value), "manifest.json holds \(value)") }
        #expect(!text.contains("bpm"))
    }
}
