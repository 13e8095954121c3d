import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailRun

/// Route files whose clock jumps: a fix stamped hours late or early, a track whose times run
/// backwards, fixes that share one second. Each case is a run beside a good reference run, read
/// back from the pipeline's files and checked against a plain computation over the fixes known
/// to be good: splits add up to the counted distance, no split or effort takes no time, and a
/// track with no usable clock takes no `all_time` row.
@Suite struct RouteClockTests {
    typealias R = RouteCleaningTests

    /// 3,400 fixes, one a second, at 3 m/s: 10,197 m. The workout's span reaches two hours and
    /// more either side, so that a fix stamped two hours off is still inside it.
    static let (start, last): (Int64, Int64) = (R.t0, R.t0 + 3399)
    static let span = (start - 7300)...(last + 7300)
    /// The reference: a good run the next day, 10,250 m at 2.5 m/s.
    static let reference = R.track(R.t0 + 86_400, R.t0 + 86_400 + 4100, speed: 2.5)

    /// Runs the workout of `fixes` over `span` and the reference run; returns the output folder,
    /// the manifest and the two workouts' ids (the case's first).
    static func run(_ fixes: [R.Fix], _ name: String = #function) throws -> (out: String, manifest: Manifest, ids: [String]) {
        let dir = Support.temporaryDirectory(name)
        var body = ""
        for (k, (from, to)) in [(span.lowerBound, span.upperBound), (reference[0].t, reference.last!.t)].enumerated() {
            body += """
                 <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="W" startDate="\(R.exportDate(from))" endDate="\(R.exportDate(to))">
                  <WorkoutRoute sourceName="W"><FileReference path="/workout-routes/route_\(k).gpx"/></WorkoutRoute>
                 </Workout>

                """
        }
        try Support.makeZip(
            dir + "/export.zip",
            [
                ("apple_health_export/export.xml", Support.exportXML(body)),
                ("apple_health_export/workout-routes/route_0.gpx", R.gpx(fixes)),
                ("apple_health_export/workout-routes/route_1.gpx", R.gpx(reference)),
            ])
        let manifest = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out"))
        let workouts = try EffortOutputTests.rows(dir + "/out/workouts.csv").sorted { $0["start_utc"]! < $1["start_utc"]! }
        return (dir + "/out", manifest, workouts.map { $0["workout_id"]! })
    }

    /// The `state` column of workout `id`'s rows of route_points.csv, in order.
    static func states(_ out: String, _ id: String) throws -> [String] {
        try EffortOutputTests.rows(out + "/route_points.csv").filter { $0["workout_id"] == id }.map { $0["state"]! }
    }

    /// Metres along `fixes` stepping from each to the next.
    static func length(_ fixes: [R.Fix]) -> Double {
        zip(fixes, fixes.dropFirst()).reduce(0) { $0 + R.metres($1.0, $1.1) }
    }

    /// What every workout's splits and efforts must be: splits adding up to `route_distance_m`
    /// (each written to 0.1 m), every split and effort taking time.
    static func checkInvariants(_ out: String, _ label: String = "") throws {
        let splits = try EffortOutputTests.rows(out + "/splits.csv")
        for workout in try EffortOutputTests.rows(out + "/workouts.csv") {
            let own = splits.filter { $0["workout_id"] == workout["workout_id"] }
            let sum = own.reduce(0) { $0 + Double($1["distance_m"]!)! }
            let distance = Double(workout["route_distance_m"]!) ?? 0
            #expect(abs(sum - distance) <= 0.05 * Double(own.count + 1), "\(label): splits \(sum) m, route \(distance) m")
        }
        #expect(splits.allSatisfy { Double($0["elapsed_s"]!)! > 0 }, "\(label)")
        let efforts = try EffortOutputTests.rows(out + "/best_efforts.csv")
        #expect(efforts.allSatisfy { Double($0["elapsed_s"]!)! > 0 }, "\(label)")
    }

    /// The fix at `index` stamped two hours late or early (in the middle of the track, or its
    /// first fix): a glitch. The track counts as if it had never been recorded: the step over the
    /// glitch (2 s, 6 m) counts, the rest is a steady 3 m/s, so the ten-kilometre effort takes
    /// 10,000 / 3 s and every effort is the fastest of both runs.
    @Test(arguments: [(500, 7200), (500, -7200), (0, 7200)])
    func aFixStampedHoursOffIsAGlitch(_ index: Int, _ shift: Int64) throws {
        var fixes = R.track(Self.start, Self.last, speed: 3)
        fixes[index].t += shift
        let (out, manifest, ids) = try Self.run(fixes, "shift\(index)_\(shift)")
        let states = try Self.states(out, ids[0])
        #expect(states.count == fixes.count)
        #expect(states.enumerated().allSatisfy { $0.element == ($0.offset == index ? "glitch" : "active") })
        #expect(manifest.routes.pointsByState?["glitch"] == 1)

        var good = fixes
        good.remove(at: index)
        let row = try #require(try EffortOutputTests.rows(out + "/workouts.csv").first { $0["workout_id"] == ids[0] })
        let distance = Self.length(good)
        #expect(abs(Double(row["route_distance_m"]!)! - distance) < 0.06)
        #expect(row["moving_time_s"] == String(good.last!.t - good.first!.t))
        #expect(row["flags"] == "glitch")

        let splits = try EffortOutputTests.rows(out + "/splits.csv").filter { $0["workout_id"] == ids[0] }
        #expect(splits.count == Int(distance / 1000) + 1)
        #expect(abs(splits.reduce(0) { $0 + Double($1["distance_m"]!)! } - distance) < 0.6)

        let efforts = try EffortOutputTests.rows(out + "/best_efforts.csv")
        let own = efforts.filter { $0["scope"] == "workout" && $0["workout_id"] == ids[0] }
        #expect(own.map { $0["effort"]! } == ["400 m", "1 km", "1 mile", "5 km", "10 km"])
        for effort in own {
            let metres = Double(effort["distance_m"]!)!
            #expect(abs(Double(effort["elapsed_s"]!)! - metres / 3) < 0.15, "\(effort)")
        }
        let allTime = efforts.filter { $0["scope"] == "all_time" }
        #expect(allTime.map { $0["workout_id"]! } == Array(repeating: ids[0], count: 5))
        try Self.checkInvariants(out, "shift \(shift) at \(index)")
    }

    /// Times that run backwards from the first fix to the last, and 3,000 fixes in one second: no
    /// clock to time a step by. The first leaves one active fix (the earliest), the second two
    /// (a second may hold two); no distance, no split, no effort, and the reference run keeps
    /// every `all_time` row.
    @Test(arguments: ["backwards", "one second"])
    func aTrackWithNoClockCountsNothing(_ kind: String) throws {
        var fixes = R.track(Self.start, kind == "backwards" ? Self.last : Self.start + 2999, speed: 3)
        for k in fixes.indices { fixes[k].t = kind == "backwards" ? Self.last - Int64(k) : Self.start }
        let (out, manifest, ids) = try Self.run(fixes, kind == "backwards" ? "backwards" : "oneSecond")
        let states = try Self.states(out, ids[0])
        #expect(states.count == fixes.count)
        let active = kind == "backwards" ? [fixes.count - 1] : [0, 1]
        #expect(states.enumerated().allSatisfy { $0.element == (active.contains($0.offset) ? "active" : "glitch") })
        #expect(manifest.routes.pointsByState?["glitch"] == fixes.count - active.count)

        let row = try #require(try EffortOutputTests.rows(out + "/workouts.csv").first { $0["workout_id"] == ids[0] })
        #expect(Double(row["route_distance_m"]!) == 0)
        #expect(Double(row["moving_time_s"]!) == 0)
        #expect(row["pace_s_per_km"] == "")
        #expect(try EffortOutputTests.rows(out + "/splits.csv").allSatisfy { $0["workout_id"] == ids[1] })

        let efforts = try EffortOutputTests.rows(out + "/best_efforts.csv")
        #expect(efforts.allSatisfy { $0["workout_id"] == ids[1] })
        let allTime = efforts.filter { $0["scope"] == "all_time" }
        #expect(allTime.count == 5)
        for effort in allTime {
            #expect(abs(Double(effort["elapsed_s"]!)! - Double(effort["distance_m"]!)! / 2.5) < 0.15, "\(effort)")
        }
        try Self.checkInvariants(out, kind)
    }

    /// What a clock does that is no glitch: two fixes in one second beside a skipped one (real
    /// files have them), and the signal lost for five minutes. Every fix counts; the step across
    /// the gap adds its straight line, and its time is moving: 3 m/s is a running pace.
    @Test func twoFixesInOneSecondAndAGapAreReal() throws {
        var fixes = R.track(Self.start, Self.start + 1800, speed: 3)
        fixes[200].t -= 1   // the second of fix 199, and none at fix 200's
        fixes.removeSubrange(1000..<1300)
        let (out, manifest, ids) = try Self.run(fixes, "realClock")
        #expect(try R.states(out).allSatisfy { $0 == "active" })
        #expect(manifest.routes.pointsByState?["glitch"] == 0)
        let row = try #require(try EffortOutputTests.rows(out + "/workouts.csv").first { $0["workout_id"] == ids[0] })
        #expect(abs(Double(row["route_distance_m"]!)! - Self.length(fixes)) < 0.06)
        #expect(row["moving_time_s"] == "1800")
        try Self.checkInvariants(out, "real clock")
    }

    /// A step in which the clock does not move adds its distance with the next step that takes
    /// time, and none when its chain ends there: no metre is covered in no time.
    @Test func aStepWithNoTimeCountsWithTheNext() {
        typealias G = RouteGeometryTests
        var stats = RouteStats(zoneCount: 0)
        for p in [G.north(0, at: 0), G.north(2, at: 0), G.north(5, at: 1)] { stats.add(p, zones: .fourBands) }
        #expect(abs(stats.distance - 5) < 1e-6)
        #expect(stats.elapsed == 1 && stats.movingTime == 1)
        stats.add(G.north(9, at: 1), zones: .fourBands)
        #expect(abs(stats.distance - 5) < 1e-6)
        stats.add(G.north(20, at: 3), zones: .fourBands, continuing: false)
        stats.add(G.north(26, at: 5), zones: .fourBands)
        #expect(abs(stats.distance - 11) < 1e-6)
        #expect(stats.elapsed == 3)
    }

    /// The real route files, each as a run: splits add up to the counted distance and every
    /// split and effort takes time.
    @Test(.enabled(if: Support.hasRealFixtures, "../shared/fixtures/real is absent"))
    func realRoutesKeepTheInvariants() throws {
        let folder = Support.fixture("applehealth-gpx")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".gpx") }.sorted()
        #expect(names.count == 7)
        for name in names {
            let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            let times = text.components(separatedBy: "<time>").dropFirst(2).compactMap {
                ByteSpan.withUTF8(String($0.prefix(20))) { Timestamp.parse($0) }?.utcSeconds
            }
            let (first, last) = (try #require(times.min()), try #require(times.max()))
            let dir = Support.temporaryDirectory("real-\(name)")
            let body = """
                 <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="W" startDate="\(R.exportDate(first))" endDate="\(R.exportDate(last))">
                  <WorkoutRoute sourceName="W"><FileReference path="/workout-routes/\(name)"/></WorkoutRoute>
                 </Workout>

                """
            try Support.makeZip(
                dir + "/export.zip",
                [("apple_health_export/export.xml", Support.exportXML(body)), ("apple_health_export/workout-routes/\(name)", text)])
            _ = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out"))
            #expect(try R.states(dir + "/out").allSatisfy { $0 == "active" }, "\(name)")
            let distance = Double(try R.workout(dir + "/out")["route_distance_m"]!)!
            #expect(distance > 0, "\(name)")
            try Self.checkInvariants(dir + "/out", name)
        }
    }
}
