import Foundation
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailKit

extension OutputContractTests {
    /// A split computed the plain way: every step of the track cut at each kilometre it
    /// crosses, its parts added to the split they fall in.
    struct ReferenceSplit {
        var distance = 0.0, elapsed = 0.0, moving = 0.0, climb = 0.0
        var bpmSeconds = 0.0, bpmWeight = 0.0
        var endTime = 0.0
        var meanBPM: Double? { bpmWeight > 0 ? bpmSeconds / bpmWeight : nil }
    }

    static func referenceSplits(_ route: ReferenceRoute, unit: Double) -> [ReferenceSplit] {
        let track = route.track
        guard track.count >= 2 else { return [] }
        var splits: [ReferenceSplit] = [], current = ReferenceSplit()
        var upper = track[0].distance + unit
        for (a, b) in zip(track, track.dropFirst()) {
            let stepBPM: Double? =
                switch (a.bpm, b.bpm) {
                case let (x?, y?): (x + y) / 2
                case let (x?, nil): x
                case let (nil, y?): y
                default: nil
                }
            func add(_ from: Double, _ to: Double) {
                let share = to - from
                current.distance += share * (b.distance - a.distance)
                current.elapsed += share * (b.elapsed - a.elapsed)
                current.moving += share * (b.moving - a.moving)
                current.climb += share * (b.climb - a.climb)
                if let stepBPM {
                    current.bpmSeconds += stepBPM * share * (b.elapsed - a.elapsed)
                    current.bpmWeight += share * (b.elapsed - a.elapsed)
                }
                current.endTime = Double(a.time) + to * Double(b.time - a.time)
            }
            var from = 0.0
            while b.distance >= upper && a.distance < upper {
                let to = (upper - a.distance) / (b.distance - a.distance)
                add(from, to)
                splits.append(current)
                current = ReferenceSplit()
                from = to
                upper += unit
            }
            add(from, 1)
        }
        if current.distance >= 1 {
            splits.append(current)
        } else if !splits.isEmpty {
            splits[splits.count - 1].distance += current.distance
            splits[splits.count - 1].elapsed += current.elapsed
            splits[splits.count - 1].moving += current.moving
            splits[splits.count - 1].climb += current.climb
        }
        return splits
    }

    /// The fastest stretch of `distance` metres by the clock, by trying every point as its start
    /// and as its end, the other end interpolated: its wall-clock and its active seconds.
    static func referenceBestEffort(_ route: ReferenceRoute, distance target: Double) -> (elapsed: Double, active: Double)? {
        let track = route.track
        let tolerance = 0.001   // docs/outputs.md: a distance within 1 mm is reached
        var best: (elapsed: Double, active: Double)?
        func keep(_ e: (elapsed: Double, active: Double)) {
            if best.map({ e.elapsed < $0.elapsed }) ?? true { best = e }
        }
        // Wall-clock and active seconds at distance `d` inside the step from point `a`.
        func at(_ d: Double, _ a: Int) -> (time: Double, active: Double) {
            let (p, q) = (track[a], track[a + 1])
            let f = (d - p.distance) / (q.distance - p.distance)
            return (Double(p.time) + f * Double(q.time - p.time), p.elapsed + f * (q.elapsed - p.elapsed))
        }
        guard let last = track.last?.distance, let first = track.first?.distance else { return nil }
        for i in track.indices {
            // As the start (the last point at its distance): the end is the first moment the
            // track reaches distance + target, or its end when that is within the tolerance.
            if i + 1 == track.count || track[i + 1].distance != track[i].distance, last - track[i].distance >= target - tolerance,
                i + 1 < track.count
            {
                let d = min(track[i].distance + target, last)
                var j = i
                while j + 1 < track.count && track[j + 1].distance < d { j += 1 }
                let e = track[j + 1].distance == d ? (Double(track[j + 1].time), track[j + 1].elapsed) : at(d, j)
                keep((e.time - Double(track[i].time), e.active - track[i].elapsed))
            }
            // As the end: the start is the last moment the track is at distance − target.
            guard track[i].distance - first >= target - tolerance else { continue }
            let d = max(track[i].distance - target, first)
            var k = i
            while k > 0 && track[k].distance > d { k -= 1 }
            let s = track[k].distance == d ? (Double(track[k].time), track[k].elapsed) : at(d, k)
            keep((Double(track[i].time) - s.time, track[i].elapsed - s.active))
        }
        return best
    }

    /// splits.csv: each workout's splits against `referenceSplits` of its active points.
    enum SplitChecks {
        static func rows(_ t: Table) -> [String: [[String: String]]] {
            Dictionary(grouping: t.records, by: { $0["workout_id"]! })
        }

        /// A column against the reference split's figure.
        static func figure(_ column: String, _ pick: @escaping @Sendable (ReferenceSplit) -> Double?) -> Check {
            { f, t in
                let references = referenceRoutes(f)
                var compared = 0
                for (workout, splits) in rows(t) {
                    let expected = referenceSplits(try #require(references[workout]), unit: 1000)
                    #expect(splits.count == expected.count, "\(workout): \(splits.count) splits for \(expected.count)")
                    for (row, reference) in zip(splits, expected) {
                        expectClose(row[column], pick(reference), within: 0.051 + 1e-6 * abs(pick(reference) ?? 0), "\(workout) \(column)")
                        compared += 1
                    }
                }
                #expect(compared > 50, "\(column): \(compared) splits compared")
            }
        }

        static let all: [String: Check] = [
            "workout_id": { f, t in
                // Every workout with a route and at least a metre of active track has splits.
                let withTrack = Set(referenceRoutes(f).filter { $0.value.distance >= 1 }.keys)
                #expect(Set(rows(t).keys) == withTrack)
            },
            "activity": { f, t in
                let activity = Dictionary(uniqueKeysWithValues: f.table("workouts.csv").records.map { ($0["workout_id"]!, $0["activity"]!) })
                for r in t.records { #expect(r["activity"] == activity[r["workout_id"]!]) }
            },
            "unit": { _, t in expectEvery(t, "unit", "km by default") { $0 == "km" } },
            "split": { _, t in
                for (workout, splits) in rows(t) { #expect(splits.map { $0["split"]! } == (1...splits.count).map(String.init), "\(workout)") }
            },
            "distance_m": figure("distance_m") { $0.distance },
            "elapsed_s": figure("elapsed_s") { $0.elapsed },
            "moving_s": figure("moving_s") { $0.moving },
            "pace_s_per_km": figure("pace_s_per_km") { $0.distance >= 10 && $0.moving > 0 ? $0.moving / ($0.distance / 1000) : nil },
            "pace_s_per_mi": figure("pace_s_per_mi") { $0.distance >= 10 && $0.moving > 0 ? $0.moving / ($0.distance / 1609.344) : nil },
            "avg_hr": figure("avg_hr") { $0.meanBPM },
            "hr_zone": { f, t in
                for r in t.records {
                    if let bpm = Double(r["avg_hr"]!) {
                        // avg_hr is written to 0.1 bpm: a mean within 0.05 of a whole-bpm zone
                        // bound may be written on the bound's other side.
                        let zones = Set([bpm - 0.05, bpm + 0.05].map { f.zones.zones[zoneIndex($0, f.zones)].name })
                        #expect(zones.contains(r["hr_zone"]!), "\(bpm) bpm in \(r["hr_zone"]!)")
                    } else {
                        #expect(r["hr_zone"] == "")
                    }
                }
            },
            "elevation_gain_m": figure("elevation_gain_m") { $0.climb },
            "end_utc": { f, t in
                let references = referenceRoutes(f)
                for (workout, splits) in rows(t) {
                    let expected = referenceSplits(try #require(references[workout]), unit: 1000)
                    for (row, reference) in zip(splits, expected) {
                        let time = try #require(utcSeconds(row["end_utc"]))
                        #expect(abs(Double(time) - reference.endTime) <= 0.5 + 1e-6, "\(workout) end_utc")
                    }
                }
            },
            "partial": { _, t in
                var partials = 0
                for (workout, splits) in rows(t) {
                    for (k, row) in splits.enumerated() {
                        let expected = k == splits.count - 1 && (Double(row["distance_m"]!) ?? 0) < 999.95
                        #expect(row["partial"] == (expected ? "true" : "false"), "\(workout) split \(k + 1)")
                        if expected { partials += 1 }
                    }
                }
                #expect(partials > 0)
            },
        ]
    }

    /// best_efforts.csv: each running and cycling workout's efforts against
    /// `referenceBestEffort`, and the all-time rows against the workouts' rows.
    enum BestEffortChecks {
        static let targets: [String: [(String, Double)]] = [
            "running": [
                ("400 m", 400), ("1 km", 1000), ("1 mile", 1609.344), ("5 km", 5000), ("10 km", 10_000),
                ("half marathon", 21_097.5), ("marathon", 42_195),
            ],
            "cycling": [("5 km", 5000), ("10 km", 10_000), ("20 km", 20_000), ("40 km", 40_000)],
        ]

        static func expected(_ f: Fixture) -> [(workout: String, activity: String, effort: String, metres: Double, elapsed: Double, active: Double)] {
            let references = referenceRoutes(f)
            var out: [(String, String, String, Double, Double, Double)] = []
            for w in f.table("workouts.csv").records {
                guard let route = references[w["workout_id"]!], let list = targets[w["activity"]!] else { continue }
                for (name, metres) in list {
                    if let e = referenceBestEffort(route, distance: metres) {
                        out.append((w["workout_id"]!, w["activity"]!, name, metres, e.elapsed, e.active))
                    }
                }
            }
            return out
        }

        static func workoutRows(_ t: Table) -> [[String: String]] { t.records.filter { $0["scope"] == "workout" } }

        /// The local calendar year of a workout row's start: its workout's `utc_offset` added.
        static func localYear(_ row: [String: String], offsets: [String: String]) throws -> Int {
            let start = try #require(utcSeconds(row["start_utc"]))
            let offset = try #require(offsets[row["workout_id"]!])
            let sign: Int64 = offset.hasPrefix("-") ? -1 : 1
            let digits = offset.dropFirst().split(separator: ":").compactMap { Int64($0) }
            let seconds = start + sign * ((digits.first ?? 0) * 3600 + (digits.dropFirst().first ?? 0) * 60)
            var utc = Calendar(identifier: .gregorian)
            utc.timeZone = TimeZone(identifier: "UTC")!
            return utc.component(.year, from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        }

        /// The `year` rows expected from the workout rows, in their order: per local year
        /// (ascending), activity (running first) and effort (in the targets' order), the fastest
        /// `elapsed_s` and the workouts whose rows of that year have it (written to 0.1 s,
        /// efforts a hair apart may tie).
        static func expectedYearRows(_ f: Fixture, _ t: Table) throws -> [(row: String, workouts: Set<String>)] {
            let offsets = Dictionary(uniqueKeysWithValues: f.table("workouts.csv").records.map { ($0["workout_id"]!, $0["utc_offset"]!) })
            var rows: [Int: [String: [[String: String]]]] = [:]
            for r in workoutRows(t) {
                rows[try localYear(r, offsets: offsets), default: [:]][r["activity"]! + " " + r["effort"]!, default: []].append(r)
            }
            var out: [(String, Set<String>)] = []
            for year in rows.keys.sorted() {
                for activity in ["running", "cycling"] {
                    for (name, _) in targets[activity]! {
                        guard let same = rows[year]![activity + " " + name] else { continue }
                        let fastest = same.map { Double($0["elapsed_s"]!)! }.min()!
                        let tied = same.filter { Double($0["elapsed_s"]!)! == fastest }
                        out.append(("\(year) \(activity) \(name) \(tied[0]["elapsed_s"]!)", Set(tied.map { $0["workout_id"]! })))
                    }
                }
            }
            return out
        }

        static let all: [String: Check] = [
            "scope": { _, t in
                expectEvery(t, "scope", "workout, year or all_time") { ["workout", "year", "all_time"].contains($0) }
                #expect(t.records.contains { $0["scope"] == "all_time" } && t.records.contains { $0["scope"] == "year" })
                // Workout rows, then year rows, then all-time rows.
                let order = t.records.map { ["workout": 0, "year": 1, "all_time": 2][$0["scope"]!] ?? 3 }
                #expect(order == order.sorted())
            },
            "year": { f, t in
                for r in t.records where r["scope"] != "year" { #expect(r["year"] == "", "\(r["scope"]!) row with a year") }
                let rows = t.records.filter { $0["scope"] == "year" }
                let expected = try expectedYearRows(f, t)
                #expect(rows.map { "\($0["year"]!) \($0["activity"]!) \($0["effort"]!) \($0["elapsed_s"]!)" } == expected.map(\.row))
                for (row, e) in zip(rows, expected) { #expect(e.workouts.contains(row["workout_id"]!), "\(e.row): \(row["workout_id"]!)") }
                // The year row's workout has that effort with the same figures.
                for row in rows {
                    #expect(
                        workoutRows(t).contains {
                            $0["workout_id"] == row["workout_id"] && $0["effort"] == row["effort"] && $0["active_s"] == row["active_s"]
                                && $0["start_utc"] == row["start_utc"]
                        }, "\(row)")
                }
            },
            "workout_id": { f, t in
                let expected = expected(f)
                #expect(workoutRows(t).map { $0["workout_id"]! + " " + $0["effort"]! } == expected.map { $0.workout + " " + $0.effort })
                // All time: the fastest workout row of its activity and effort.
                for r in t.records where r["scope"] == "all_time" {
                    let same = workoutRows(t).filter { $0["activity"] == r["activity"] && $0["effort"] == r["effort"] }
                    let fastest = same.min { Double($0["elapsed_s"]!)! < Double($1["elapsed_s"]!)! }
                    #expect(fastest?["elapsed_s"] == r["elapsed_s"], "all_time \(r["activity"]!) \(r["effort"]!)")
                    #expect(same.contains { $0["workout_id"] == r["workout_id"] && $0["elapsed_s"] == r["elapsed_s"] })
                }
                let pairs = Set(workoutRows(t).map { $0["activity"]! + " " + $0["effort"]! })
                #expect(t.records.filter { $0["scope"] == "all_time" }.count == pairs.count)
            },
            "activity": { _, t in expectEvery(t, "activity", "running or cycling") { $0 == "running" || $0 == "cycling" } },
            "effort": { _, t in
                for r in t.records { #expect(targets[r["activity"]!]?.contains { $0.0 == r["effort"] } == true, "\(r["effort"]!)") }
            },
            "distance_m": { _, t in
                for r in t.records {
                    let metres = targets[r["activity"]!]?.first { $0.0 == r["effort"] }?.1
                    expectClose(r["distance_m"], metres, within: 0.051, "\(r["effort"]!) distance_m")
                }
            },
            "elapsed_s": { f, t in
                for (row, e) in zip(workoutRows(t), expected(f)) {
                    expectClose(row["elapsed_s"], e.elapsed, within: 0.051 + 1e-6 * e.elapsed, "\(e.workout) \(e.effort)")
                }
            },
            "active_s": { f, t in
                for (row, e) in zip(workoutRows(t), expected(f)) {
                    expectClose(row["active_s"], e.active, within: 0.051 + 1e-6 * e.active, "\(e.workout) \(e.effort) active_s")
                }
                for r in t.records { #expect(Double(r["active_s"]!)! <= Double(r["elapsed_s"]!)! + 0.1, "\(r["workout_id"]!) \(r["effort"]!)") }
            },
            "pace_s_per_km": { _, t in
                for r in t.records {
                    guard let e = Double(r["elapsed_s"]!), let d = Double(r["distance_m"]!) else { continue }
                    expectClose(r["pace_s_per_km"], e / (d / 1000), within: 0.051 + 0.06 / (d / 1000), "\(r["effort"]!) pace")
                }
            },
            "start_utc": { _, t in
                for r in t.records {
                    let (s, e) = (try #require(utcSeconds(r["start_utc"])), try #require(utcSeconds(r["end_utc"])))
                    // The effort's wall-clock seconds apart, each end rounded to the second.
                    #expect(abs(Double(e - s) - Double(r["elapsed_s"]!)!) <= 1.05, "\(r["workout_id"]!) \(r["effort"]!)")
                }
            },
            "end_utc": { f, t in
                let ends = Dictionary(uniqueKeysWithValues: f.table("workouts.csv").records.map { ($0["workout_id"]!, $0) })
                for r in t.records {
                    let w = try #require(ends[r["workout_id"]!])
                    let (e, s) = (try #require(utcSeconds(r["end_utc"])), try #require(utcSeconds(r["start_utc"])))
                    #expect(utcSeconds(w["start_utc"])! <= s && e <= utcSeconds(w["end_utc"])!, "inside \(r["workout_id"]!)")
                }
            },
        ]
    }
}
