import Foundation
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailKit
@testable import HealthTrailSynth

extension OutputContractTests {
    /// A route's figures computed the plain way from its points, as the README defines them:
    /// only `active` points count, and a step only between two active points with nothing but
    /// glitches between them and no pause across it; distance by haversine on a 6 371 008.8 m
    /// sphere; moving time from steps at the activity's moving speed or more (docs/outputs.md's
    /// table), a step over 30 s only up to its vehicle speed or ceiling; elevation gain over a
    /// 15-point trailing mean with 3 m hysteresis, started afresh at every break; time in zone
    /// per step of at most 30 s, at the mean of its ends' heart rates.
    struct ReferenceRoute {
        struct Point {
            var time: Int64; var lat: Double; var lon: Double; var ele: Double?; var bpm: Double?
            var state = "active"
        }

        var cumulative: [Double] = []
        var distance = 0.0, moving = 0.0, gain = 0.0, elapsed = 0.0
        /// The running totals at each active point, for the splits and best efforts.
        var track: [(time: Int64, distance: Double, elapsed: Double, moving: Double, climb: Double, bpm: Double?)] = []
        /// Metres between consecutive points of every state.
        var allPointsDistance = 0.0
        var zoneSeconds: [Double]
        var hasHeartRate = false

        /// Moving speed and the fastest a gap may be crossed, m/s, by activity (docs/outputs.md).
        static func speeds(_ activity: String) -> (moving: Double, gap: Double) {
            switch activity {
            case "running": (0.89, 8.5)
            case "walking", "hiking": (0.5, 8.5)
            case "cycling": (1, 35)
            case "swimming": (0.3, 4)
            default: (0.5, 70)
            }
        }

        /// - Parameter pause: the workout's pause (start, resume), UTC seconds.
        init(_ points: [Point], zones: HeartRateZones, pause: [Int]? = nil, activity: String = "") {
            let speeds = Self.speeds(activity)
            zoneSeconds = Array(repeating: 0, count: zones.zones.count)
            var previous: Point?
            var window: [Double] = []
            var low: Double?, high = 0.0, climbing = false
            var lastOfAny: Point?
            for p in points {
                if let a = lastOfAny { allPointsDistance += Self.haversine(a, p) }
                lastOfAny = p
                if p.state == "glitch" { cumulative.append(distance); continue }
                guard p.state == "active" else { previous = nil; cumulative.append(distance); continue }
                if let a = previous, let pause, a.time < Int64(pause[1]), p.time >= Int64(pause[1]) { previous = nil }
                if previous == nil { (window, low, high, climbing) = ([], nil, 0, false) }
                if p.bpm != nil { hasHeartRate = true }
                if let e = p.ele {
                    window.append(e)
                    if window.count > 15 { window.removeFirst() }
                    let smooth = window.reduce(0, +) / Double(window.count)
                    if let l = low {
                        if climbing {
                            if smooth > high { gain += smooth - high; high = smooth } else if high - smooth >= 3 { climbing = false; low = smooth }
                        } else if smooth < l {
                            low = smooth
                        } else if smooth - l >= 3 {
                            climbing = true; gain += smooth - l; high = smooth
                        }
                    } else {
                        low = smooth; high = smooth
                    }
                }
                if let a = previous {
                    let step = Self.haversine(a, p)
                    distance += step
                    let dt = Double(p.time - a.time)
                    if dt > 0 { elapsed += dt }
                    if dt > 30, step / dt >= speeds.moving, step / dt <= speeds.gap { moving += dt }
                    if dt > 0, dt <= 30 {
                        if step / dt >= speeds.moving { moving += dt }
                        let bpm: Double? =
                            switch (a.bpm, p.bpm) {
                            case let (x?, y?): (x + y) / 2
                            case let (x?, nil): x
                            case let (nil, y?): y
                            default: nil
                            }
                        if let bpm { zoneSeconds[OutputContractTests.zoneIndex(bpm, zones)] += dt }
                    }
                }
                cumulative.append(distance)
                track.append((p.time, distance, elapsed, moving, gain, p.bpm))
                previous = p
            }
        }

        static func haversine(_ a: Point, _ p: Point) -> Double {
            let r = Double.pi / 180
            let h = pow(sin((p.lat - a.lat) * r / 2), 2) + cos(a.lat * r) * cos(p.lat * r) * pow(sin((p.lon - a.lon) * r / 2), 2)
            return 2 * 6_371_008.8 * asin(min(1, sqrt(h)))
        }
    }

    /// The zone of a bpm, read off the zones' bounds (the first zone takes everything below).
    static func zoneIndex(_ bpm: Double, _ zones: HeartRateZones) -> Int {
        zones.zones.lastIndex { bpm >= $0.lower } ?? 0
    }

    /// Route point rows of a workout, in file order, with their GPX points alongside.
    static func routeRows(_ f: Fixture) -> [(workout: String, rows: [[String: String]], gpx: [[String: String]])] {
        let byWorkout = Dictionary(grouping: f.table("route_points.csv").records, by: { $0["workout_id"]! })
        return f.table("workouts.csv").records.compactMap { w in
            let files = w["route_files"]!.split(separator: ";").map(String.init)
            guard !files.isEmpty, let rows = byWorkout[w["workout_id"]!] else { return nil }
            return (w["workout_id"]!, rows, files.flatMap { f.gpxPoints[$0] ?? [] })
        }
    }

    /// The reference figures of each workout's route, from its rows (positions, times and the
    /// heart rate as written).
    static func referenceRoutes(_ f: Fixture) -> [String: ReferenceRoute] {
        var out: [String: ReferenceRoute] = [:]
        for (workout, rows, _) in routeRows(f) {
            let points = rows.map { r in
                ReferenceRoute.Point(
                    time: utcSeconds(r["time_utc"]) ?? 0, lat: Double(r["lat"]!) ?? 0, lon: Double(r["lon"]!) ?? 0,
                    ele: Double(r["ele_m"]!), bpm: Double(r["hr_bpm"]!), state: r["state"]!)
            }
            let activity = f.table("workouts.csv").records.first { $0["workout_id"] == workout }?["activity"] ?? ""
            out[workout] = ReferenceRoute(points, zones: f.zones, pause: truth(f, workout)?.pause, activity: activity)
        }
        return out
    }

    /// The generator's truth of the workout with this id (keyed by its start).
    static func truth(_ f: Fixture, _ workoutID: String) -> WorkoutTruth? {
        guard let start = f.table("workouts.csv").records.first(where: { $0["workout_id"] == workoutID })?["start_utc"] else { return nil }
        return f.summary.workoutTruths[start]
    }

    /// Heart-rate samples (time, bpm) from heart_rate.csv, sorted by time.
    static func heartRateSamples(_ f: Fixture) -> [(time: Int64, bpm: Double)] {
        f.table("heart_rate.csv").records.compactMap { r in
            guard let t = utcSeconds(r["time_utc"]), let b = Double(r["bpm"]!) else { return nil }
            return (t, b)
        }.sorted { $0.time < $1.time }
    }

    /// route_points.csv: each point is its GPX point, read back from the zip by Python.
    enum RoutePointChecks {
        /// A column copied from the GPX point's `key`: equal as numbers (or times).
        static func fromGPX(_ column: String, _ key: String) -> Check {
            { f, _ in
                var compared = 0
                for (workout, rows, gpx) in routeRows(f) {
                    #expect(rows.count == gpx.count, "\(workout): \(rows.count) rows for \(gpx.count) GPX points")
                    for (row, point) in zip(rows, gpx) {
                        compared += 1
                        if key == "time" {
                            #expect(utcSeconds(row[column]) == utcSeconds(point[key]), "\(workout) \(column)")
                        } else {
                            #expect(
                                Double(row[column]!) == Double(point[key] ?? ""),
                                "\(workout) \(column): \(row[column]!) against GPX \(point[key] ?? "nil")")
                        }
                    }
                }
                #expect(compared == f.summary.routePoints, "\(column): \(compared) points compared")
            }
        }

        static let all: [String: Check] = [
            "workout_id": { f, t in
                // Every point under a workout that lists route files, as many as the generator wrote.
                let routed = Set(routeRows(f).map(\.workout))
                expectEvery(t, "workout_id", "workouts with a route") { routed.contains($0) }
                #expect(t.rows.count == f.summary.routePoints)
            },
            "time_utc": fromGPX("time_utc", "time"),
            "lat": fromGPX("lat", "lat"), "lon": fromGPX("lon", "lon"), "ele_m": fromGPX("ele_m", "ele"),
            "speed_mps": fromGPX("speed_mps", "speed"), "h_acc_m": fromGPX("h_acc_m", "hAcc"),
            "course_deg": fromGPX("course_deg", "course"), "v_acc_m": fromGPX("v_acc_m", "vAcc"),
            "hr_bpm": { f, t in
                // Within the samples of heart_rate.csv 15 s either side (the join's tolerance),
                // and present exactly when there is such a sample.
                let samples = heartRateSamples(f)
                let times = samples.map(\.time)
                for r in t.records {
                    guard let time = utcSeconds(r["time_utc"]) else { continue }
                    var i = times.partitionPoint { $0 < time - 15 }
                    var near: [Double] = []
                    while i < samples.count, samples[i].time <= time + 15 { near.append(samples[i].bpm); i += 1 }
                    let bpm = r["hr_bpm"]!
                    if near.isEmpty {
                        #expect(bpm.isEmpty, "\(r["workout_id"]!) at \(r["time_utc"]!): hr_bpm \(bpm) with no sample within 15 s")
                    } else if let v = number(bpm, "hr_bpm") {
                        #expect(v >= near.min()! - 0.05 && v <= near.max()! + 0.05, "\(r["workout_id"]!) at \(r["time_utc"]!): \(v) outside \(near)")
                    } else {
                        Issue.record("\(r["workout_id"]!) at \(r["time_utc"]!): empty hr_bpm with samples \(near) within 15 s")
                    }
                }
            },
            "hr_zone": { f, t in
                for r in t.records {
                    if let bpm = Double(r["hr_bpm"]!) {
                        #expect(r["hr_zone"] == f.zones.zones[zoneIndex(bpm, f.zones)].name, "\(bpm) bpm in \(r["hr_zone"]!)")
                    } else {
                        #expect(r["hr_zone"] == "")
                    }
                }
            },
            "state": { f, t in
                // The generator's glitches are found exactly; its drive to within two fixes
                // (its edges are found by each step's speed, and it goes on while its steps stay
                // fast, turns included); nothing else is taken out, since it writes no point
                // while paused or outside.
                var seen: Set<String> = []
                for (workout, rows, _) in routeRows(f) {
                    let truth = try #require(OutputContractTests.truth(f, workout))
                    let states = Dictionary(grouping: rows, by: { $0["state"]! }).mapValues(\.count)
                    seen.formUnion(states.keys)
                    #expect(states["glitch", default: 0] == truth.glitchPoints, "\(workout): glitches \(states)")
                    let vehicle = states["vehicle", default: 0]
                    #expect(
                        truth.drivePoints == 0
                            ? vehicle == 0 : (truth.drivePoints - 2...truth.drivePoints + 2).contains(vehicle),
                        "\(workout): \(vehicle) vehicle points for a drive of \(truth.drivePoints)")
                    #expect(states["paused", default: 0] + states["outside", default: 0] == 0, "\(workout): \(states)")
                }
                #expect(seen.isSuperset(of: ["active", "glitch", "vehicle"]), "states covered: \(seen)")
                expectEvery(t, "state", "a documented state") { PointState.allCases.map(\.name).contains($0) }
            },
            "distance_m": { f, _ in
                let references = referenceRoutes(f)
                for (workout, rows, _) in routeRows(f) where rows.count > 1 {
                    let reference = references[workout]!
                    for (row, expected) in zip(rows, reference.cumulative) {
                        expectClose(row["distance_m"], expected, within: 0.051 + expected * 1e-9, "\(workout) distance_m")
                    }
                }
            },
        ]
    }
}

extension Array {
    /// The first index whose element is not `belowTarget` (the array partitioned by it).
    func partitionPoint(_ belowTarget: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if belowTarget(self[mid]) { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
