import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailRun

/// Route points told apart by their workout's windows and the glitch filter: each case is a
/// workout built here, run through the binary's pipeline, and checked against a plain
/// computation over the same points.
@Suite struct RouteCleaningTests {
    static let t0: Int64 = Timestamp.daysFromCivil(year: 2024, month: 6, day: 1) * 86_400 + 8 * 3600

    /// A point of a generated track: time, position (to the 6 decimals the GPX holds).
    struct Fix {
        var t: Int64
        var lat: Double { didSet { lat = Self.sixDecimals(lat) } }
        var lon: Double { didSet { lon = Self.sixDecimals(lon) } }
        init(t: Int64, lat: Double, lon: Double) {
            self.t = t
            self.lat = Self.sixDecimals(lat)
            self.lon = Self.sixDecimals(lon)
        }
        static func sixDecimals(_ v: Double) -> Double { (v * 1e6).rounded() / 1e6 }
    }

    static func utc(_ t: Int64) -> String { Timestamp(utcSeconds: t).utcString }
    /// `2024-06-01 10:00:00 +0200`, as export.xml writes dates.
    static func exportDate(_ t: Int64) -> String {
        let s = utc(t + 7200)   // 2024-06-01T10:00:00Z read as local +02:00
        return s.prefix(10) + " " + s.dropFirst(11).prefix(8) + " +0200"
    }

    static func gpx(_ fixes: [Fix]) -> String { gpx(fixes.map { ($0.t, $0.lat, $0.lon, nil) }, decimals: 6) }

    /// A route file of `points` (time, position, elevation), positions written with `decimals`
    /// decimals, each fix 3 m accurate.
    static func gpx(_ points: [(t: Int64, lat: Double, lon: Double, ele: Double?)], decimals: Int) -> String {
        var text = "<gpx><trk><trkseg>\n"
        let format = "%.\(decimals)f"
        for p in points {
            let ele = p.ele.map { "<ele>\(String(format: "%.3f", $0))</ele>" } ?? ""
            text +=
                "<trkpt lat=\"\(String(format: format, p.lat))\" lon=\"\(String(format: format, p.lon))\">\(ele)<time>\(utc(p.t))</time><extensions><hAcc>3.0</hAcc></extensions></trkpt>\n"
        }
        return text + "</trkseg></trk></gpx>\n"
    }

    /// A track heading north at `speed` m/s, a fix a second, from `from` to `to` (inclusive).
    static func track(_ from: Int64, _ to: Int64, speed: Double, lat: Double = 48.85, lon: Double = 2.35) -> [Fix] {
        (from...to).map { t in Fix(t: t, lat: lat + Double(t - from) * speed / 111_195, lon: lon) }
    }

    static func metres(_ a: Fix, _ b: Fix) -> Double {
        RouteGeometry.haversine(
            RoutePoint(time: a.t, latitude: a.lat, longitude: a.lon), RoutePoint(time: b.t, latitude: b.lat, longitude: b.lon))
    }

    /// Runs a workout of `activity` from `start` to `end` with `children` (events, parts) and
    /// one route file per element of `files`; returns the output folder and the manifest.
    static func run(
        activity: String = "Running", start: Int64, end: Int64, children: String = "", files: [[Fix]],
        _ name: String = #function
    ) throws -> (String, Manifest) {
        try runExport([GeneratedWorkout(activity: activity, start: start, end: end, children: children, gpx: files.map(gpx))], name)
    }

    /// A workout of a generated export: its activity (`Running`), span, children (events,
    /// parts) and route files' text.
    struct GeneratedWorkout {
        var activity = "Running"
        var start: Int64
        var end: Int64
        var children = ""
        var gpx: [String]
    }

    /// Writes an export.zip of `workouts` (route files `route_<workout>_<file>.gpx`, the first
    /// workout's `route_<file>.gpx`), runs it in-process; returns the output folder and the manifest.
    static func runExport(_ workouts: [GeneratedWorkout], _ name: String) throws -> (String, Manifest) {
        let dir = Support.temporaryDirectory(name)
        var body = "", entries: [(String, String)] = []
        for (w, workout) in workouts.enumerated() {
            var references = ""
            for (k, text) in workout.gpx.enumerated() {
                let file = w == 0 ? "route_\(k).gpx" : "route_\(w)_\(k).gpx"
                references += "   <FileReference path=\"/workout-routes/\(file)\"/>\n"
                entries.append(("apple_health_export/workout-routes/\(file)", text))
            }
            let (start, end) = (exportDate(workout.start), exportDate(workout.end))
            body += """
                 <Workout workoutActivityType="HKWorkoutActivityType\(workout.activity)" sourceName="W" startDate="\(start)" endDate="\(end)">
                \(workout.children)  <WorkoutRoute sourceName="W" startDate="\(start)" endDate="\(end)">
                \(references)  </WorkoutRoute>
                 </Workout>

                """
        }
        try Support.makeZip(dir + "/export.zip", [("apple_health_export/export.xml", Support.exportXML(body))] + entries)
        let manifest = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out"))
        return (dir + "/out", manifest)
    }

    static func event(_ type: String, _ t: Int64) -> String {
        "  <WorkoutEvent type=\"HKWorkoutEventType\(type)\" date=\"\(exportDate(t))\"/>\n"
    }

    static func part(_ s: Int64, _ e: Int64) -> String {
        "  <WorkoutActivity uuid=\"P\(s)\" startDate=\"\(exportDate(s))\" endDate=\"\(exportDate(e))\"/>\n"
    }

    /// workouts.csv's only row, by column name.
    static func workout(_ out: String) throws -> [String: String] {
        let csv = try Support.readCSV(out + "/workouts.csv")
        let row = try #require(csv.rows.first)
        return Dictionary(uniqueKeysWithValues: zip(csv.header, row))
    }

    static func states(_ out: String) throws -> [String] {
        let csv = try Support.readCSV(out + "/route_points.csv")
        let column = try #require(csv.header.firstIndex(of: "state"))
        return csv.rows.map { $0[column] }
    }

    @Test func windowsCutTheSpanToPartsAndLeaveOutPauses() {
        var w = Workout(
            id: "w", activity: "running", activityType: "HKWorkoutActivityTypeRunning", start: Timestamp(utcSeconds: 0),
            end: Timestamp(utcSeconds: 1000), source: "W", line: 1)
        w.events = [
            WorkoutEvent(type: "HKWorkoutEventTypeResume", date: Timestamp(utcSeconds: 200)),
            WorkoutEvent(type: "HKWorkoutEventTypePause", date: Timestamp(utcSeconds: 100)),
            WorkoutEvent(type: "HKWorkoutEventTypeMotionPaused", date: Timestamp(utcSeconds: 500)),
            WorkoutEvent(type: "HKWorkoutEventTypeMotionResumed", date: Timestamp(utcSeconds: 551)),
            WorkoutEvent(type: "HKWorkoutEventTypePause", date: Timestamp(utcSeconds: 900)),   // never resumed
        ]
        w.activities = [
            WorkoutActivity(uuid: "a", start: Timestamp(utcSeconds: 0), end: Timestamp(utcSeconds: 400)),
            WorkoutActivity(uuid: "b", start: Timestamp(utcSeconds: 450), end: Timestamp(utcSeconds: 1000)),
        ]
        let windows = WorkoutWindows(w)
        #expect(windows.active == [0...99, 200...400, 450...499, 551...899])
        #expect(windows.paused == [100...199, 500...550, 900...1000])
        #expect(windows.locate(-1).state == .outside)
        #expect(windows.locate(0) == (.active, 0))
        #expect(windows.locate(150).state == .paused)
        #expect(windows.locate(200) == (.active, 1))
        #expect(windows.locate(420).state == .outside)   // between the parts
        #expect(windows.locate(551) == (.active, 3))
        #expect(windows.locate(950).state == .paused)
        #expect(windows.locate(1001).state == .outside)
        #expect(WorkoutWindows.unbounded.locate(.min + 1) == (.active, 0))
    }

    /// Points before the start, during a pause (standing still, then walking to the next
    /// corner) and after the end count in no figure; the step across the pause neither.
    @Test func aPausedRunCountsOnlyItsActivePoints() throws {
        let (start, pause, resume, end) = (Self.t0, Self.t0 + 600, Self.t0 + 900, Self.t0 + 1500)
        let fixes = Self.track(start - 20, end + 20, speed: 3)
        let (out, manifest) = try Self.run(
            start: start, end: end, children: Self.event("Pause", pause) + Self.event("Resume", resume), files: [fixes])
        func expected(_ t: Int64) -> String {
            t < start || t > end ? "outside" : (t >= pause && t < resume ? "paused" : "active")
        }
        #expect(try Self.states(out) == fixes.map { expected($0.t) })
        var distance = 0.0, all = 0.0
        for (a, b) in zip(fixes, fixes.dropFirst()) {
            all += Self.metres(a, b)
            if expected(a.t) == "active" && expected(b.t) == "active" { distance += Self.metres(a, b) }
        }
        let row = try Self.workout(out)
        #expect(abs(Double(row["route_distance_m"]!)! - distance) < 0.06)
        #expect(abs(Double(row["trimmed_distance_m"]!)! - (all - distance)) < 0.06)
        #expect(row["moving_time_s"] == String(Int(end - start) - Int(resume - pause) - 1))
        #expect(row["flags"] == "")
        #expect(manifest.routes.pointsByState == ["active": 1201, "paused": 300, "outside": 40, "glitch": 0, "vehicle": 0])

        // The map: no line across the pause (one dashed connector), the three stretches that
        // count for nothing greyed (before, paused, after), a marker per whole kilometre, and
        // the active time in the title.
        let svg = try String(contentsOfFile: out + "/svg/workouts/\(row["workout_id"]!).svg", encoding: .utf8)
        func count(_ s: String) -> Int { svg.components(separatedBy: s).count - 1 }
        #expect(count("class=\"gap\"") == 1)
        #expect(count("class=\"trimmed\"") == 3)
        #expect(count("class=\"split-mark\"") == Int(distance / 1000))
        #expect(svg.contains("· 0:19:59"))
    }

    /// Two part files sharing their boundary point: it is written once, and the parts' figures
    /// add up; a gap between two parts is outside.
    @Test func partsShareNoPointAndTheGapBetweenThemIsOutside() throws {
        let (start, middle, end) = (Self.t0, Self.t0 + 600, Self.t0 + 1200)
        let first = Self.track(start, middle, speed: 3)
        let second = Self.track(middle, end, speed: 3, lat: first.last!.lat)
        #expect(first.last!.t == second.first!.t && first.last!.lat == second.first!.lat)
        let (out, manifest) = try Self.run(
            start: start, end: end, children: Self.part(start, middle) + Self.part(middle, end), files: [second, first])
        #expect(try Self.states(out).count == first.count + second.count - 1)
        #expect(manifest.routes.duplicateBoundaryPoints == 1)
        #expect(manifest.counts.routePoints == first.count + second.count - 1)
        let row = try Self.workout(out)
        let expected = zip(first, first.dropFirst()).reduce(0) { $0 + Self.metres($1.0, $1.1) } * 2
        #expect(abs(Double(row["route_distance_m"]!)! - expected) < 0.06)

        // One line on the map: the parts touch, so no connector between them.
        let svg = try String(contentsOfFile: out + "/svg/workouts/\(row["workout_id"]!).svg", encoding: .utf8)
        #expect(!svg.contains("class=\"gap\""))

        let gap = Self.track(start, end, speed: 3)
        let (gapOut, _) = try Self.run(
            start: start, end: end, children: Self.part(start, middle) + Self.part(middle + 120, end), files: [gap], "gap")
        #expect(try Self.states(gapOut) == gap.map { $0.t > middle && $0.t < middle + 120 ? "outside" : "active" })
    }

    /// One fix 500 m off (a glitch), and later the signal coming back 400 m away (a jump): the
    /// fix is marked, the detour and the jump add nothing, the track after the jump counts.
    @Test func aGlitchAndAJumpAreSteppedOver() throws {
        let (start, end) = (Self.t0, Self.t0 + 600)
        var fixes = Self.track(start, end, speed: 3)
        fixes[100].lat += 500 / 111_195.0
        for k in 300..<fixes.count { fixes[k].lon += 400 / 73_000.0 }
        let (out, manifest) = try Self.run(start: start, end: end, files: [fixes])
        var expectedStates = Array(repeating: "active", count: fixes.count)
        expectedStates[100] = "glitch"
        #expect(try Self.states(out) == expectedStates)
        var distance = 0.0
        for k in 1..<fixes.count where k != 100 && k != 300 {
            distance += Self.metres(fixes[k == 101 ? 99 : k - 1], fixes[k])
        }
        let row = try Self.workout(out)
        #expect(abs(Double(row["route_distance_m"]!)! - distance) < 0.06)
        #expect(row["flags"] == "glitch")
        #expect(manifest.routes.flaggedWorkouts == ["glitch": 1, "vehicle": 0])
    }

    /// What real tracks do that is not a glitch: GPS noise of several metres on every fix of
    /// sprint intervals at 7 m/s: nothing taken out. A clock stepping back 200 s is no drive (the
    /// fixes it stamps before the last one counted are glitches: see RouteClockTests). A first
    /// fix far off is the glitch, not the run after it.
    @Test func noiseClockStepsAndABadFirstFixTakeNothingReal() throws {
        let start = Self.t0
        var fixes: [Fix] = []
        var lat = 48.85, state: UInt64 = 42
        func noise() -> Double {   // uniform in ±1, a fixed sequence
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 52) - 1
        }
        for t in start...(start + 990) {
            let speed = (t - start) % 165 < 75 ? 7.0 : 2.0
            lat += speed / 111_195
            fixes.append(Fix(t: t, lat: lat + 5 * noise() / 111_195, lon: 2.35 + 5 * noise() / 73_000))
        }
        let (out, _) = try Self.run(start: start, end: start + 1000, files: [fixes])
        #expect(try Self.states(out).allSatisfy { $0 == "active" })

        var stepped = Self.track(start, start + 600, speed: 3)
        for k in 300..<stepped.count { stepped[k].t -= 200 }
        let (steppedOut, _) = try Self.run(start: start - 300, end: start + 600, files: [stepped], "stepped")
        // Fixes 300 … 498 are stamped before fix 299; 499 shares its second, and the signal
        // comes back 600 m on from there: a jump.
        let steppedStates = try Self.states(steppedOut)
        #expect(!steppedStates.contains("vehicle"))
        #expect(steppedStates.enumerated().allSatisfy { $0.element == ((300...498).contains($0.offset) ? "glitch" : "active") })

        var badFirst = Self.track(start, start + 600, speed: 3)
        badFirst[0].lat -= 2000 / 111_195.0
        let (badOut, _) = try Self.run(start: start, end: start + 600, files: [badFirst], "badFirst")
        #expect(try Self.states(badOut) == ["glitch"] + Array(repeating: "active", count: 600))
        let expected = zip(badFirst.dropFirst(), badFirst.dropFirst(2)).reduce(0) { $0 + Self.metres($1.0, $1.1) }
        #expect(abs(Double(try Self.workout(badOut)["route_distance_m"]!)! - expected) < 0.06)
    }

    /// A walk nobody ended, driven home: the drive is a vehicle's and counts for nothing; a
    /// sprint at 8 m/s for 40 s in a run is not.
    @Test func aForgottenStopIsAVehicleAndASprintIsNot() throws {
        let (start, end) = (Self.t0, Self.t0 + 1500)
        let walk = Self.track(start, start + 1200, speed: 1.4)
        let drive = Self.track(start + 1201, end, speed: 15, lat: walk.last!.lat + 15 / 111_195.0)
        let (out, _) = try Self.run(activity: "Walking", start: start, end: end, files: [walk + drive])
        let states = try Self.states(out)
        let vehicle = states.filter { $0 == "vehicle" }.count
        #expect(states.suffix(drive.count).allSatisfy { $0 == "vehicle" })
        #expect(vehicle >= drive.count && vehicle <= drive.count + 61)
        let row = try Self.workout(out)
        #expect(row["flags"] == "vehicle")
        let walked = zip(walk, walk.dropFirst()).reduce(0) { $0 + Self.metres($1.0, $1.1) }
        #expect(Double(row["route_distance_m"]!)! <= walked + 0.06)
        #expect(Double(row["route_distance_m"]!)! >= walked - 61 * 1.4 - 0.06)

        let run = Self.track(start, start + 600, speed: 3)
        let sprint = Self.track(start + 601, start + 640, speed: 8, lat: run.last!.lat + 8 / 111_195.0)
        let (sprintOut, _) = try Self.run(start: start, end: start + 700, files: [run + sprint], "sprint")
        #expect(try Self.states(sprintOut).allSatisfy { $0 == "active" })
    }

    /// The real route files, each as a run, a walk and a ride spanning its points: the filter
    /// takes nothing out of any.
    @Test(.enabled(if: Support.hasRealFixtures, "../shared/fixtures/real is absent"))
    func realRoutesLoseNoPoint() throws {
        let folder = Support.fixture("applehealth-gpx")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".gpx") }.sorted()
        #expect(names.count == 7)
        var points = 0
        for name in names {
            let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            let times = text.components(separatedBy: "<time>").dropFirst(2).compactMap {
                ByteSpan.withUTF8(String($0.prefix(20))) { Timestamp.parse($0) }?.utcSeconds
            }
            let (first, last) = (try #require(times.min()), try #require(times.max()))
            for activity in ["Running", "Walking", "Cycling"] {
                let dir = Support.temporaryDirectory("real-\(activity)")
                let body = """
                     <Workout workoutActivityType="HKWorkoutActivityType\(activity)" sourceName="W" startDate="\(Self.exportDate(first))" endDate="\(Self.exportDate(last))">
                      <WorkoutRoute sourceName="W"><FileReference path="/workout-routes/\(name)"/></WorkoutRoute>
                     </Workout>

                    """
                try Support.makeZip(
                    dir + "/export.zip",
                    [("apple_health_export/export.xml", Support.exportXML(body)), ("apple_health_export/workout-routes/\(name)", text)])
                let manifest = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out"))
                let states = try Self.states(dir + "/out")
                #expect(states.count == times.count, "\(name)")
                #expect(states.allSatisfy { $0 == "active" }, "\(name) as \(activity): \(manifest.routes.pointsByState ?? [:])")
                points += states.count
            }
        }
        #expect(points == 3 * 4077)
    }
}

/// splits.csv and best_efforts.csv on tracks whose answers are known.
@Suite struct EffortOutputTests {
    typealias R = RouteCleaningTests

    static func rows(_ path: String) throws -> [[String: String]] {
        let csv = try Support.readCSV(path)
        return csv.rows.map { Dictionary(uniqueKeysWithValues: zip(csv.header, $0)) }
    }

    /// 10 km at a constant 3.125 m/s (a fix a second, 3,200 s): ten splits of 320 s, no partial
    /// one; the 5 km best effort is half the run, the 1 km one a split, and per mile there are
    /// six miles and a partial one.
    @Test func aConstantPaceTenKilometresHasTenEqualSplits() throws {
        let start = R.t0
        // A hair over 10 km once the GPX has rounded the positions to 6 decimals: no partial split.
        let fixes = R.track(start, start + 3200, speed: 3.125 * 111_195 / 111_195.08 * (1 + 1e-5))
        let (out, _) = try R.run(start: start, end: start + 3200, files: [fixes])
        let splits = try Self.rows(out + "/splits.csv")
        #expect(splits.count == 10)
        for (k, s) in splits.enumerated() {
            #expect(s["split"] == String(k + 1) && s["unit"] == "km" && s["partial"] == "false")
            // The last split takes the 0.1 m left over the tenth kilometre.
            #expect(abs(Double(s["distance_m"]!)! - 1000) < 0.15, "\(s)")
            #expect(abs(Double(s["elapsed_s"]!)! - 320) < 0.06, "\(s)")
            #expect(abs(Double(s["pace_s_per_km"]!)! - 320) < 0.06, "\(s)")
        }
        let efforts = try Self.rows(out + "/best_efforts.csv")
        func elapsed(_ name: String, _ scope: String = "workout") -> Double? {
            efforts.first { $0["effort"] == name && $0["scope"] == scope }.flatMap { Double($0["elapsed_s"]!) }
        }
        #expect(abs(try #require(elapsed("5 km")) - 1600) < 0.06)
        #expect(abs(try #require(elapsed("1 km")) - 320) < 0.06)
        #expect(abs(try #require(elapsed("10 km")) - 3200) < 0.06)
        #expect(abs(try #require(elapsed("1 mile")) - 1609.344 / 3.125) < 0.06)
        #expect(elapsed("half marathon") == nil)
        #expect(abs(try #require(elapsed("5 km", "all_time")) - 1600) < 0.06)

        let dir = Support.temporaryDirectory()
        var options = RunOptions(inputPath: out + "/../export.zip", outputDirectory: dir + "/mi")
        options.splitUnit = .mi
        _ = try ExportRun.run(options)
        let miles = try Self.rows(dir + "/mi/splits.csv")
        #expect(miles.count == 7)
        #expect(miles.prefix(6).allSatisfy { abs(Double($0["elapsed_s"]!)! - 1609.344 / 3.125) < 0.06 && $0["unit"] == "mi" })
        #expect(miles.last?["partial"] == "true")
        #expect(abs(Double(miles.last!["distance_m"]!)! - (10_000 - 6 * 1609.344)) < 0.2)
    }

    /// A fast kilometre and a bit inside a steady run: the 1 km best effort lies inside it, and
    /// a ride gets the cycling distances only.
    @Test func theFastestKilometreIsFoundInsideTheFastStretch() throws {
        let start = R.t0
        let slow1 = R.track(start, start + 600, speed: 3)
        let fast = R.track(start + 601, start + 840, speed: 5, lat: slow1.last!.lat + 5 / 111_195.0)
        let slow2 = R.track(start + 841, start + 1400, speed: 3, lat: fast.last!.lat + 3 / 111_195.0)
        let (out, _) = try R.run(start: start, end: start + 1400, files: [slow1 + fast + slow2])
        let effort = try #require(try Self.rows(out + "/best_efforts.csv").first { $0["effort"] == "1 km" })
        #expect(abs(Double(effort["elapsed_s"]!)! - 200) < 0.1)
        let (s, e) = (try #require(Timestamp.parse(effort["start_utc"]!)), try #require(Timestamp.parse(effort["end_utc"]!)))
        #expect(s.utcSeconds >= start + 600 && e.utcSeconds <= start + 841)

        // 11.2 km ridden: the 5 and 10 km efforts, none of running's.
        let (ride, _) = try R.run(activity: "Cycling", start: start, end: start + 1400, files: [R.track(start, start + 1400, speed: 8)], "ride")
        #expect(try Self.rows(ride + "/best_efforts.csv").filter { $0["scope"] == "workout" }.map { $0["effort"]! } == ["5 km", "10 km"])
    }
}
