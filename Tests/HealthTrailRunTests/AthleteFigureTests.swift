import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailDecode

/// Workout figures as athletes count them, each case a known answer worked by hand: a straight
/// line north at 4:00/km on the documented sphere (`RouteGeometry.earthRadius`), one fix a
/// second, written with nine decimals so that a run of 5 km measures 5,000 m to the micrometre.
/// Every case goes through the pipeline and is read back from workouts.csv, splits.csv and
/// route_points.csv.
@Suite struct AthleteFigureTests {
    typealias R = RouteCleaningTests

    /// 4:00 per kilometre.
    static let pace = 1000.0 / 240

    /// A fix: time, metres north of the start, elevation.
    struct Fix {
        var t: Int64
        var metres: Double
        var elevation: Double
    }

    /// A track built leg by leg.
    struct Track {
        var fixes: [Fix]
        init(at t: Int64 = R.t0) { fixes = [Fix(t: t, metres: 0, elevation: 100)] }
        var last: Fix { fixes.last! }

        /// `seconds` at `speed`, a fix every `every` seconds (none when `recorded` is false),
        /// climbing `climb` metres evenly.
        mutating func go(_ seconds: Int64, _ speed: Double, every: Int64 = 1, climb: Double = 0, recorded: Bool = true) {
            let start = last, steps = seconds / every
            var here = start
            for k in 1...steps {
                here = Fix(
                    t: start.t + k * every, metres: start.metres + speed * Double(k * every),
                    elevation: start.elevation + climb * Double(k) / Double(steps))
                if recorded { fixes.append(here) }
            }
            if !recorded { fixes.append(here) }   // the signal comes back at the far end
        }
    }

    static func gpx(_ fixes: [Fix]) -> String {
        R.gpx(fixes.map { ($0.t, 48.85 + $0.metres / RouteGeometry.earthRadius * 180 / .pi, 2.35, $0.elevation) }, decimals: 9)
    }

    /// Runs one workout of `activity` over its files' span with `children` (events); returns
    /// its workouts.csv row, the states of its points and the output folder.
    static func run(
        _ files: [[Fix]], activity: String = "Running", children: String = "", _ name: String = #function
    ) throws -> (row: [String: String], states: [String: Int], out: String) {
        let (start, end) = (files.map { $0[0].t }.min()!, files.map { $0.last!.t }.max()!)
        let workout = R.GeneratedWorkout(activity: activity, start: start, end: end, children: children, gpx: files.map(gpx))
        let (out, _) = try R.runExport([workout], name)
        let states = try R.states(out).reduce(into: [:]) { $0[$1, default: 0] += 1 }
        return (try R.workout(out), states, out)
    }

    static func number(_ row: [String: String], _ column: String) -> Double { Double(row[column] ?? "") ?? .nan }

    /// Run 5 km, pause 300 s, run 2.5 km, drive 180 s at 15 m/s, run 2.5 km: 10,000 m in
    /// 2,400 s. The drive's 179 inner fixes are the vehicle's; the fixes where it starts and
    /// stops are reached or left on foot and stay active. Climbing 200 m in the car gains
    /// nothing.
    @Test(arguments: [0.0, 200.0])
    func aDriveTakesOnlyItself(_ driveClimb: Double) throws {
        var track = Track()
        track.go(1200, Self.pace)
        let pause = (track.last.t, track.last.t + 300)
        var rest = Track(at: pause.1)
        rest.fixes[0].metres = track.last.metres
        rest.go(600, Self.pace)
        rest.go(180, 15, climb: driveClimb)
        rest.go(600, Self.pace)
        let children = R.event("Pause", pause.0 + 1) + R.event("Resume", pause.1 - 1)
        let (row, states, _) = try Self.run([track.fixes + rest.fixes], children: children, "drive\(Int(driveClimb))")
        #expect(abs(Self.number(row, "route_distance_m") - 10_000) <= 0.05, "\(row)")
        #expect(row["moving_time_s"] == "2400")
        #expect(states["vehicle"] == 179)
        #expect(row["flags"] == "vehicle")
        #expect(row["elevation_gain_m"] == "0")
    }

    /// A walk nobody ended, driven home: the track ends in the car, and its last fix is the
    /// car's too.
    @Test func aTrackEndingInACarEndsInTheVehicle() throws {
        var track = Track()
        track.go(1200, 1.4)
        track.go(300, 15)
        let (row, states, _) = try Self.run([track.fixes], activity: "Walking")
        #expect(states["vehicle"] == 300 && states["active"] == 1201)
        #expect(abs(Self.number(row, "route_distance_m") - 1680) <= 0.05)
    }

    /// Fixes five minutes apart at 10 m/s between two runs of 2.5 km: every fix the car reaches
    /// is the vehicle's. The run after the drive starts from its last one, so its first step
    /// goes too: 5,000 m less one second of running.
    @Test func aSparseDriveIsAVehicle() throws {
        var track = Track()
        track.go(600, Self.pace)
        track.go(1800, 10, every: 300)
        track.go(600, Self.pace)
        let (row, states, _) = try Self.run([track.fixes])
        #expect(states["vehicle"] == 6)
        #expect(abs(Self.number(row, "route_distance_m") - (5000 - Self.pace)) <= 0.05, "\(row)")
        #expect(row["moving_time_s"] == "1199")
    }

    /// 10 km at 4:00/km with 120 s and no fix at 5 km (a tunnel), crossed at the same pace: the
    /// gap is moving time, and its split's pace is the run's. A gap crossed standing still
    /// (2 m in 120 s) is not.
    @Test(arguments: [true, false])
    func aGapCrossedAtPaceIsMovingTime(_ atPace: Bool) throws {
        var track = Track()
        track.go(1200, Self.pace)
        track.go(120, atPace ? Self.pace : 2.0 / 120, recorded: false)
        track.go(atPace ? 1080 : 1200, Self.pace)
        let (row, _, out) = try Self.run([track.fixes], "gap\(atPace)")
        // Standing, the 120 s are not moving: 2,400 s of running either way.
        #expect(row["moving_time_s"] == "2400", "\(row)")
        #expect(abs(Self.number(row, "route_distance_m") - (atPace ? 10_000 : 10_002)) <= 0.05)
        if atPace {
            let splits = try EffortOutputTests.rows(out + "/splits.csv")
            #expect(splits.count == 10)
            #expect(splits.allSatisfy { abs(Double($0["pace_s_per_km"]!)! - 240) <= 0.05 }, "\(splits)")
        }
    }

    /// A 200 m climb while paused gains nothing; the same climb running gains 200 m.
    @Test(arguments: [true, false])
    func onlyActiveStretchesClimb(_ paused: Bool) throws {
        var track = Track()
        track.go(1200, Self.pace)
        let (from, to) = (track.last.t, track.last.t + 600)
        track.go(600, paused ? 0 : Self.pace, climb: 200)
        track.go(1200, Self.pace)
        let children = paused ? R.event("Pause", from + 1) + R.event("Resume", to - 1) : ""
        let (row, _, _) = try Self.run([track.fixes], children: children, "climb\(paused)")
        #expect(abs(Self.number(row, "elevation_gain_m") - (paused ? 0 : 200)) <= 0.05, "\(row)")
    }

    /// Each row of the moving-speed table: 300 s at 5 % above the activity's moving speed, then
    /// 300 s at 5 % below: 300 moving seconds.
    @Test(arguments: [("Running", 0.89), ("Walking", 0.5), ("Hiking", 0.5), ("Cycling", 1.0), ("Swimming", 0.3), ("Golf", 0.5)])
    func movingTimeStopsBelowTheActivitysSpeed(_ activity: String, _ speed: Double) throws {
        var track = Track()
        track.go(300, speed * 1.05)
        track.go(300, speed * 0.95)
        let (row, states, _) = try Self.run([track.fixes], activity: activity, activity)
        #expect(states == ["active": 601])
        #expect(row["moving_time_s"] == "300", "\(activity): \(row)")
    }

    /// The table in docs/outputs.md is the one the code uses, activity by activity.
    @Test func theMovingSpeedTableIsDocumented() throws {
        let docs = try String(contentsOf: Support.packageRoot.appendingPathComponent("docs/outputs.md"), encoding: .utf8)
        let lines = docs.split(separator: "\n", omittingEmptySubsequences: false)
        let header = try #require(lines.firstIndex { $0.hasPrefix("| activities | moving speed |") })
        let rows = lines[(header + 2)...].prefix { $0.hasPrefix("|") }
        #expect(rows.count == 5, "\(rows)")
        var named = 0
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let activities = cells[0].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["`"]) }
            let moving = try #require(Double(cells[1].replacingOccurrences(of: " m/s", with: "")))
            for activity in activities where activity != "anything else" {
                #expect(RouteSpeedLimits.forActivity(activity).movingSpeed == moving, "\(activity)")
                named += 1
            }
        }
        #expect(named >= 14)
        #expect(RouteSpeedLimits.forActivity("golf").movingSpeed == 0.5)
    }

    /// The same 10 km recorded by two devices, one file each: counted once. Every fix of the
    /// second file but its last (at the first's last second) is stamped before the first
    /// file's last fix.
    @Test func twoDevicesRecordingOneRunCountItOnce() throws {
        var watch = Track()
        watch.go(2400, Self.pace)
        var phone = watch
        for k in phone.fixes.indices { phone.fixes[k].metres += 2 }
        let (row, states, _) = try Self.run([watch.fixes, phone.fixes])
        #expect(abs(Self.number(row, "route_distance_m") - 10_000) <= 0.05, "\(row)")
        #expect(row["moving_time_s"] == "2400")
        #expect(states["glitch"] == 2400 && states["active"] == 2402)
    }

    /// A fix stamped two hours off, outside the workout's span by its own time: a glitch, and
    /// the step over it counts.
    @Test(arguments: [Int64(7200), -7200])
    func aFixStampedOutsideTheWorkoutIsAGlitch(_ shift: Int64) throws {
        var track = Track()
        track.go(2400, Self.pace)
        track.fixes[1000].t += shift
        let (row, states, _) = try Self.run([track.fixes], "shift\(shift)")
        #expect(states == ["active": 2400, "glitch": 1])
        #expect(abs(Self.number(row, "route_distance_m") - 10_000) <= 0.05, "\(row)")
        #expect(row["moving_time_s"] == "2400")
    }
}
