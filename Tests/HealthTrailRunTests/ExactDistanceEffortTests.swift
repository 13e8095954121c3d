import Foundation
import HealthTrailTestSupport
import HealthTrailWrite
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailRun

/// Splits, best efforts and split markers of runs whose distances are exact: straight lines north
/// at 4:00 per kilometre (1000 / 240 m/s), a fix a second, the positions written with 9 decimals
/// and placed so that the haversine sum of the steps (the documented sphere) falls a hair short of
/// each leg's whole distance, as the sum of a real exact-distance run does. Every expected figure
/// is worked by hand from the legs; the pipeline runs in-process, end to end from an export.zip.
@Suite struct ExactDistanceEffortTests {
    typealias R = RouteCleaningTests

    /// A fix with its position as the GPX writes it (9 decimals).
    struct Fix {
        var t: Int64
        var lat: Double
        var lon = 2.35
        static func nineDecimals(_ v: Double) -> Double { Double(String(format: "%.9f", v))! }
    }

    /// One leg of a track: `seconds` one-second steps covering `metres` (0: standing still).
    struct Leg {
        var seconds: Int64
        var metres: Double
    }

    /// Metres of the step from `a` to `b` as the pipeline counts it.
    static func metres(_ a: Fix, _ b: Fix) -> Double {
        RouteGeometry.haversine(
            RoutePoint(time: a.t, latitude: a.lat, longitude: a.lon), RoutePoint(time: b.t, latitude: b.lat, longitude: b.lon))
    }

    /// Fixes at `start`, then a fix a second through `legs`, heading north from 48.85° N. Each
    /// moving leg's steps are even in latitude, and its last fix is the last 9-decimal latitude
    /// at which the summed steps so far are still short of the legs' total metres (by less than
    /// the 0.11 mm a nanodegree is).
    static func track(_ start: Int64, _ legs: [Leg]) -> [Fix] {
        let degreesPerMetre = 180 / Double.pi / RouteGeometry.earthRadius
        var fixes = [Fix(t: start, lat: 48.85)]
        var sum = 0.0, target = 0.0
        for leg in legs {
            let from = fixes[fixes.count - 1]
            target += leg.metres
            guard leg.metres > 0 else {
                for i in 1...leg.seconds { fixes.append(Fix(t: from.t + i, lat: from.lat)) }
                continue
            }
            var end = Fix.nineDecimals(48.85 + target * degreesPerMetre) + 2e-9
            var steps: [Fix] = [], total = 0.0
            repeat {
                end = Fix.nineDecimals(end - 1e-9)
                steps = (1...leg.seconds).map { i in
                    Fix(t: from.t + i, lat: Fix.nineDecimals(from.lat + (end - from.lat) * Double(i) / Double(leg.seconds)))
                }
                // Added step by step from the start, as the pipeline adds them.
                total = sum
                for (a, b) in zip([from] + steps, steps) { total += metres(a, b) }
            } while total >= target
            sum = total
            fixes += steps
        }
        #expect(sum < target && sum > target - 1e-3, "\(sum) m for \(target) m")
        return fixes
    }

    static func gpx(_ fixes: [Fix]) -> String { R.gpx(fixes.map { ($0.t, $0.lat, $0.lon, nil) }, decimals: 9) }

    /// A running workout from the first fix to the last of its files (one route file each).
    struct Run {
        var files: [[Fix]]
        var children = ""
        var start: Int64 { files[0][0].t }
        var end: Int64 { files[files.count - 1].last!.t }
    }

    /// Runs an export of `runs`; returns the output folder and the workouts' ids in start order.
    static func run(_ runs: [Run], _ name: String = #function) throws -> (out: String, ids: [String]) {
        let (out, _) = try R.runExport(
            runs.map { R.GeneratedWorkout(start: $0.start, end: $0.end, children: $0.children, gpx: $0.files.map(gpx)) }, name)
        let workouts = try EffortOutputTests.rows(out + "/workouts.csv").sorted { $0["start_utc"]! < $1["start_utc"]! }
        return (out, workouts.map { $0["workout_id"]! })
    }

    /// The workout rows of best_efforts.csv of `id`, by effort name.
    static func efforts(_ out: String, _ id: String) throws -> [String: [String: String]] {
        let rows = try EffortOutputTests.rows(out + "/best_efforts.csv").filter { $0["scope"] == "workout" && $0["workout_id"] == id }
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["effort"]!, $0) })
    }

    static func seconds(_ row: [String: String]?, _ column: String) -> Double? { row?[column].flatMap { Double($0) } }

    /// The split markers of workout `id`'s map: how many circles, and their labels in order.
    static func markers(_ out: String, _ id: String) throws -> (circles: Int, labels: [String]) {
        let svg = try String(contentsOfFile: out + "/svg/workouts/\(id).svg", encoding: .utf8)
        let labels = svg.components(separatedBy: "class=\"split-label\"").dropFirst().map { text in
            String(text.drop { $0 != ">" }.dropFirst().prefix { $0 != "<" })
        }
        return (svg.components(separatedBy: "class=\"split-mark\"").count - 1, labels)
    }

    /// 10.000 km in 2,400 s, its sum a hair short: ten full splits of 240 s, the tenth ending at
    /// the last fix; a 10 km effort of 2,400 s and a 5 km one of 1,200 s; ten split markers on
    /// the map. Read as two route files (the second repeating the first's last fix) the same: the
    /// first file ends on the fifth boundary, and its piece of the map has the fifth marker.
    @Test func anExactTenKilometreRunHasTenFullSplitsAndATenKilometreEffort() throws {
        let fixes = Self.track(R.t0, [Leg(seconds: 2400, metres: 10_000)])
        let twoFiles = [Array(fixes[0...1200]), Array(fixes[1200...])]
        let (out, ids) = try Self.run([Run(files: [fixes]), Run(files: twoFiles.map { $0.map { f in Fix(t: f.t + 86_400, lat: f.lat) } })])
        for id in ids {
            let splits = try EffortOutputTests.rows(out + "/splits.csv").filter { $0["workout_id"] == id }
            #expect(splits.count == 10, "\(id)")
            #expect(splits.allSatisfy { $0["partial"] == "false" }, "\(id)")
            #expect(splits.allSatisfy { abs(Self.seconds($0, "elapsed_s")! - 240) <= 0.1 && abs(Self.seconds($0, "distance_m")! - 1000) <= 0.1 })
            let workout = try #require(try EffortOutputTests.rows(out + "/workouts.csv").first { $0["workout_id"] == id })
            #expect(splits.last?["end_utc"] == workout["end_utc"], "the tenth split ends at the last fix")
            let efforts = try Self.efforts(out, id)
            #expect(Set(efforts.keys) == ["400 m", "1 km", "1 mile", "5 km", "10 km"])
            #expect(abs(try #require(Self.seconds(efforts["10 km"], "elapsed_s")) - 2400) <= 0.1)
            #expect(abs(try #require(Self.seconds(efforts["10 km"], "active_s")) - 2400) <= 0.1)
            #expect(abs(try #require(Self.seconds(efforts["5 km"], "elapsed_s")) - 1200) <= 0.1)
            #expect(abs(try #require(Self.seconds(efforts["5 km"], "pace_s_per_km")) - 240) <= 0.1)
            let markers = try Self.markers(out, id)
            #expect(markers.circles == 10 && markers.labels == (1...10).map(String.init), "\(id): \(markers)")
        }
    }

    /// 5 km, standing 300 s at one position (a fix a second, no pause: active time), 5 km: the
    /// fastest 5 km is either half, 1,200 s, not 1,500 s across the stand.
    @Test func standingStillAtHalfwayIsNotPartOfTheFiveKilometreEffort() throws {
        let fixes = Self.track(R.t0, [Leg(seconds: 1200, metres: 5000), Leg(seconds: 300, metres: 0), Leg(seconds: 1200, metres: 5000)])
        let (out, ids) = try Self.run([Run(files: [fixes])])
        let efforts = try Self.efforts(out, ids[0])
        #expect(abs(try #require(Self.seconds(efforts["5 km"], "elapsed_s")) - 1200) <= 0.1)
        #expect(abs(try #require(Self.seconds(efforts["5 km"], "active_s")) - 1200) <= 0.1)
        // The whole run: 2,400 s running and the 300 s stand, all of it active.
        #expect(abs(try #require(Self.seconds(efforts["10 km"], "elapsed_s")) - 2700) <= 0.1)
        #expect(abs(try #require(Self.seconds(efforts["10 km"], "active_s")) - 2700) <= 0.1)
        // The stand is in the fifth split, which ends when the runner leaves 5 km.
        let splits = try EffortOutputTests.rows(out + "/splits.csv")
        #expect(splits.count == 10 && splits.allSatisfy { $0["partial"] == "false" })
        #expect(abs(try #require(Self.seconds(splits[4], "elapsed_s")) - 540) <= 0.1)
        #expect(splits[4]["end_utc"] == R.utc(R.t0 + 1500))
    }

    /// 6 km with the watch paused at 3 km: 3 km in 720 s, standing there from 720 s to 1,020 s
    /// (paused from 721 s, resumed at 1,020 s: the fixes in between are paused), 3 km more. Every
    /// 5 km stretch holds the stop: by the clock the fastest takes 1,500 s (from the start to
    /// 5 km, reached 480 s after the resume), of which 1,200 s active; its pace is 300 s/km.
    @Test func aPausedStretchCountsByTheClock() throws {
        let fixes = Self.track(R.t0, [Leg(seconds: 720, metres: 3000), Leg(seconds: 300, metres: 0), Leg(seconds: 720, metres: 3000)])
        let pause = R.event("Pause", R.t0 + 721) + R.event("Resume", R.t0 + 1020)
        let (out, ids) = try Self.run([Run(files: [fixes], children: pause)])
        let efforts = try Self.efforts(out, ids[0])
        let five = try #require(efforts["5 km"])
        #expect(abs(try #require(Self.seconds(five, "elapsed_s")) - 1500) <= 0.1)
        #expect(abs(try #require(Self.seconds(five, "active_s")) - 1200) <= 0.1)
        #expect(abs(try #require(Self.seconds(five, "pace_s_per_km")) - 300) <= 0.1)
        // Any start in the first kilometre ties (to rounding); the ends are 1,500 s apart.
        let (s, e) = (try #require(Timestamp.parse(five["start_utc"]!)), try #require(Timestamp.parse(five["end_utc"]!)))
        #expect(e.utcSeconds - s.utcSeconds == 1500 && s.utcSeconds >= R.t0 && s.utcSeconds <= R.t0 + 240)
        // The fastest kilometre is one without the stop: 240 s both ways.
        #expect(abs(try #require(Self.seconds(efforts["1 km"], "elapsed_s")) - 240) <= 0.1)
        #expect(abs(try #require(Self.seconds(efforts["1 km"], "active_s")) - 240) <= 0.1)
    }

    /// Three 5.1 km runs: 2023-06-01 at 5:00/km, 2023-12-31 23:30 UTC at 4:00/km (01:30 on New
    /// Year's Day at the workout's +02:00), 2024-06-01 at 4:30/km. By local year: 2023's fastest
    /// are the June run's, 2024's the New Year run's (in UTC it would be 2023's, and 2024's the
    /// June run's). All time: the New Year run's.
    @Test func yearRowsTakeTheFastestOfEachLocalYear() throws {
        func day(_ y: Int, _ m: Int, _ d: Int) -> Int64 { Timestamp.daysFromCivil(year: y, month: m, day: d) * 86_400 }
        let june2023 = day(2023, 6, 1) + 6 * 3600, newYear = day(2023, 12, 31) + 23 * 3600 + 1800, june2024 = day(2024, 6, 1) + 6 * 3600
        let (out, ids) = try Self.run([
            Run(files: [Self.track(june2023, [Leg(seconds: 1530, metres: 5100)])]),   // 300 s/km
            Run(files: [Self.track(newYear, [Leg(seconds: 1224, metres: 5100)])]),   // 240 s/km
            Run(files: [Self.track(june2024, [Leg(seconds: 1377, metres: 5100)])]),   // 270 s/km
        ])
        let rows = try EffortOutputTests.rows(out + "/best_efforts.csv")
        #expect(
            rows.map { $0["scope"]! } == Array(repeating: "workout", count: 12) + Array(repeating: "year", count: 8)
                + Array(repeating: "all_time", count: 4))
        let names = ["400 m", "1 km", "1 mile", "5 km"], metres = [400, 1000, 1609.344, 5000]
        func expected(_ year: String, _ id: String, secondsPerKilometre: Double) -> [String] {
            zip(names, metres).map { "\(year) \(id) running \($0) \(String(format: "%.1f", $1 / 1000 * secondsPerKilometre))" }
        }
        let written = rows.dropFirst(12).map {
            "\($0["year"]!) \($0["workout_id"]!) \($0["activity"]!) \($0["effort"]!) \(String(format: "%.1f", Double($0["elapsed_s"]!)!))"
        }
        #expect(
            written
                == expected("2023", ids[0], secondsPerKilometre: 300) + expected("2024", ids[1], secondsPerKilometre: 240)
                + expected("", ids[1], secondsPerKilometre: 240))
        #expect(rows.prefix(12).allSatisfy { $0["year"] == "" })
    }
}

/// `EffortRows.writeBestEfforts` on efforts given directly: which workout a year or all-time
/// row names, and in which year an effort falls, worked by hand.
@Suite struct EffortRowsYearTests {
    static func figures(_ id: String, start: Double, seconds: Double) -> WorkoutEffortFigures {
        WorkoutEffortFigures(
            workoutID: id, activity: "running", splits: [],
            bestEfforts: [("5 km", BestEffort(distance: 5000, active: seconds, start: start, end: start + seconds))])
    }

    static func rows(_ workouts: [WorkoutEffortFigures], offsets: [String: Int32]) throws -> [[String: String]] {
        let path = Support.temporaryDirectory() + "/best_efforts.csv"
        let out = try CSVWriter(path: path, header: OutputSchema.bestEfforts.names)
        EffortRows.writeBestEfforts(workouts, offsets: offsets, to: out)
        try out.close()
        return try EffortOutputTests.rows(path)
    }

    @Test func aTieGoesToTheEarlierWorkoutWhateverTheOrderRead() throws {
        // Two 1,200 s efforts, the later workout read first: the year and all-time rows name the
        // earlier one. A third, at 2024-01-01T03:00Z by a person at −05:00, is 22:00 on
        // New Year's Eve: a 2023 effort, the only one of 2023 though it is the fastest of all.
        let june = Double(Timestamp.daysFromCivil(year: 2024, month: 6, day: 1) * 86_400)
        let newYear = Double(Timestamp.daysFromCivil(year: 2024, month: 1, day: 1) * 86_400 + 3 * 3600)
        let rows = try Self.rows(
            [
                Self.figures("later", start: june + 86_400, seconds: 1200), Self.figures("earlier", start: june, seconds: 1200),
                Self.figures("eve", start: newYear, seconds: 1100),
            ],
            offsets: ["later": 120, "earlier": 120, "eve": -300])
        #expect(
            rows.map { "\($0["scope"]!) \($0["year"]!) \($0["workout_id"]!) \($0["elapsed_s"]!)" } == [
                "workout  later 1200", "workout  earlier 1200", "workout  eve 1100", "year 2023 eve 1100", "year 2024 earlier 1200",
                "all_time  eve 1100",
            ])
    }
}
