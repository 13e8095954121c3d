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

    /// The fastest stretch of `distance` metres, by trying every point as its start and as its
    /// end, the other end interpolated.
    static func referenceBestEffort(_ route: ReferenceRoute, distance target: Double) -> Double? {
        let track = route.track
        var best: Double?
        func at(_ d: Double, _ a: Int) -> Double {
            let (p, q) = (track[a], track[a + 1])
            return p.elapsed + (d - p.distance) / (q.distance - p.distance) * (q.elapsed - p.elapsed)
        }
        for i in track.indices {
            // As the start: the end is the first moment the track reaches distance + target.
            var j = i
            while j + 1 < track.count && track[j + 1].distance < track[i].distance + target { j += 1 }
            if j + 1 < track.count {
                let e = at(track[i].distance + target, j) - track[i].elapsed
                best = min(best ?? e, e)
            }
            // As the end: the start is the last moment the track is at distance − target.
            let d = track[i].distance - target
            guard d >= track[0].distance else { continue }
            var k = i
            while k > 0 && track[k].distance > d { k -= 1 }
            let s = track[k].distance == d ? track[k].elapsed : at(d, k)
            best = min(best ?? track[i].elapsed - s, track[i].elapsed - s)
        }
        return best
    }

    /// splits.csv: each workout's splits against `referenceSplits` of its active points.
    enum SplitChecks {
        static func rows(_ t: Table) -> [String: [[String: String]]] {
            Dictionary(grouping: t.records, by: { $0["workout_id"]! })
        }

        /// A column against the reference split's figure.
        static func figure(_ column: String, _ pick: @escaping (ReferenceSplit) -> Double?) -> Check {
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
                        #expect(r["hr_zone"] == f.zones.zones[zoneIndex(bpm, f.zones)].name)
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

        static func expected(_ f: Fixture) -> [(workout: String, activity: String, effort: String, metres: Double, elapsed: Double)] {
            let references = referenceRoutes(f)
            var out: [(String, String, String, Double, Double)] = []
            for w in f.table("workouts.csv").records {
                guard let route = references[w["workout_id"]!], let list = targets[w["activity"]!] else { continue }
                for (name, metres) in list {
                    if let e = referenceBestEffort(route, distance: metres) { out.append((w["workout_id"]!, w["activity"]!, name, metres, e)) }
                }
            }
            return out
        }

        static func workoutRows(_ t: Table) -> [[String: String]] { t.records.filter { $0["scope"] == "workout" } }

        static let all: [String: Check] = [
            "scope": { _, t in
                expectEvery(t, "scope", "workout or all_time") { $0 == "workout" || $0 == "all_time" }
                #expect(t.records.contains { $0["scope"] == "all_time" })
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
            "pace_s_per_km": { _, t in
                for r in t.records {
                    guard let e = Double(r["elapsed_s"]!), let d = Double(r["distance_m"]!) else { continue }
                    expectClose(r["pace_s_per_km"], e / (d / 1000), within: 0.051 + 0.06 / (d / 1000), "\(r["effort"]!) pace")
                }
            },
            "start_utc": { _, t in
                for r in t.records {
                    let (s, e) = (try #require(utcSeconds(r["start_utc"])), try #require(utcSeconds(r["end_utc"])))
                    // At least the effort's active seconds apart (more when it spans a pause).
                    #expect(Double(e - s) >= Double(r["elapsed_s"]!)! - 1, "\(r["workout_id"]!) \(r["effort"]!)")
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
