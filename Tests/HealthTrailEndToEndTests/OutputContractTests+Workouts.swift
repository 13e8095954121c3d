import Foundation
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailKit
@testable import HealthTrailRun
@testable import HealthTrailSynth

extension OutputContractTests {
    /// workouts.csv: each row is the generator's workout (`SynthSummary.workoutTruths`, keyed by
    /// start), totals converted from the unit they were written in, route figures equal to the
    /// plain computation over the route's points (`ReferenceRoute`).
    enum WorkoutChecks {
        /// Each row with its generator truth; records an issue when the sets of starts differ.
        static func pairs(_ f: Fixture, _ t: Table) -> [(row: [String: String], truth: WorkoutTruth)] {
            let rows = t.rows(by: "start_utc")
            #expect(Set(rows.keys) == Set(f.summary.workoutTruths.keys), "workouts.csv starts against the generator's")
            return f.summary.workoutTruths.sorted { $0.key < $1.key }.compactMap { start, truth in
                rows[start].map { ($0, truth) }
            }
        }

        /// A column equal to the truth's figure within the written rounding (one decimal).
        static func figure(_ column: String, _ value: @escaping @Sendable (WorkoutTruth) -> Double?) -> Check {
            { f, t in
                for (row, truth) in pairs(f, t) {
                    expectClose(row[column], value(truth), within: 0.051, "\(row["workout_id"]!) \(column)")
                }
            }
        }

        /// A column equal to the truth's text.
        static func text(_ column: String, _ value: @escaping @Sendable (WorkoutTruth) -> String) -> Check {
            { f, t in
                for (row, truth) in pairs(f, t) { #expect(row[column] == value(truth), "\(row["workout_id"]!) \(column)") }
            }
        }

        /// A route column equal to the reference figure, empty for workouts without a route.
        static func route(
            _ column: String, slack: @escaping @Sendable (ReferenceRoute) -> Double = { _ in 0 },
            _ value: @escaping @Sendable (ReferenceRoute) -> Double?
        ) -> Check {
            { f, t in
                let references = referenceRoutes(f)
                var compared = 0
                for (row, _) in pairs(f, t) {
                    let reference = references[row["workout_id"]!]
                    if reference != nil { compared += 1 }
                    let expected = reference.flatMap(value)
                    let tolerance = 0.051 + 1e-9 * abs(expected ?? 0) + (reference.map(slack) ?? 0)
                    expectClose(row[column], expected, within: tolerance, "\(row["workout_id"]!) \(column)")
                }
                #expect(compared == f.summary.workoutsWithRoutes, "\(column): \(compared) workouts with a route compared")
            }
        }

        /// HealthKit's activity type in HealthTrail's snake case: `HKWorkoutActivityTypeTraditionalStrengthTraining` →
        /// `traditional_strength_training` (the test's own conversion).
        static func activityName(_ type: String) -> String {
            var out = ""
            for c in type.dropFirst("HKWorkoutActivityType".count) {
                if c.isUppercase, !out.isEmpty { out += "_" }
                out += c.lowercased()
            }
            return out
        }

        /// The expected heart-rate figures: the export's, else the joined route's, else none.
        static func heartRate(_ f: Fixture, _ row: [String: String], _ truth: WorkoutTruth)
            -> (average: Double?, maximum: Double?, minimum: Double?, source: String, tolerance: Double)
        {
            if truth.averageBPM != nil || truth.maximumBPM != nil || truth.minimumBPM != nil {
                return (truth.averageBPM, truth.maximumBPM, truth.minimumBPM, "workout", 0.051)
            }
            // Only the active points count (`state`).
            let bpms = f.table("route_points.csv").records.filter { $0["workout_id"] == row["workout_id"] && $0["state"] == "active" }
                .compactMap { Double($0["hr_bpm"]!) }
            guard !bpms.isEmpty else { return (nil, nil, nil, "", 0) }
            // Each point's bpm is written to 0.1: the mean of the written values is within 0.05 of the true mean.
            return (bpms.reduce(0, +) / Double(bpms.count), bpms.max(), bpms.min(), "route", 0.101)
        }

        static func heartRateCheck(_ column: String, _ pick: @escaping @Sendable ((Double?, Double?, Double?, String, Double)) -> Double?) -> Check {
            { f, t in
                for (row, truth) in pairs(f, t) {
                    let expected = heartRate(f, row, truth)
                    expectClose(row[column], pick(expected), within: expected.tolerance, "\(row["workout_id"]!) \(column)")
                }
            }
        }

        /// Distance as the export wrote it, in metres.
        static func writtenDistance(_ w: WorkoutTruth) -> Double? {
            guard let written = w.distanceAsWritten else { return nil }
            return written * (w.distanceUnit == "mi" ? 1609.344 : 1000)
        }

        /// Energy as the export wrote it, in kcal.
        static func writtenEnergy(_ w: WorkoutTruth) -> Double {
            w.energyUnit == "kJ" ? w.energyAsWritten / 4.184 : w.energyAsWritten
        }

        static let all: [String: Check] = {
            var checks: [String: Check] = [
                "workout_id": { f, t in
                    #expect(t.rows.count == f.summary.workouts)
                    for (row, truth) in pairs(f, t) {
                        let compact = row["start_utc"]!.filter { $0 != "-" && $0 != ":" }
                        #expect(row["workout_id"] == "\(compact)-\(activityName(truth.activityType))")
                    }
                },
                "activity": text("activity") { activityName($0.activityType) },
                "start_utc": { f, t in _ = pairs(f, t) },
                "end_utc": text("end_utc") { $0.endUTC },
                "utc_offset": text("utc_offset") { offsetText($0.utcOffsetMinutes) },
                "duration_s": figure("duration_s") { $0.durationSeconds },
                "source": text("source") { _ in "Alex’s Apple Watch" },
                "route_files": text("route_files") { $0.routeMissing ? "" : $0.routeFile ?? "" },
                // Totals in every unit the generator writes them in, legacy attributes or
                // WorkoutStatistics; the written value is rounded, so the truth is within that too.
                "distance_m": { f, t in
                    var units: Set<String> = []
                    for (row, truth) in pairs(f, t) {
                        expectClose(row["distance_m"], writtenDistance(truth), within: 0.051, "\(row["workout_id"]!) distance_m")
                        if let d = truth.distanceMeters, let written = writtenDistance(truth) {
                            #expect(abs(d - written) < 0.1, "generator: \(d) m written as \(written) m")
                            units.insert("\(truth.distanceUnit) \(truth.legacyTotals ? "legacy" : "statistics")")
                        }
                    }
                    #expect(units == ["km legacy", "mi legacy", "km statistics", "mi statistics"], "distance units covered: \(units)")
                },
                "energy_kcal": { f, t in
                    var units: Set<String> = []
                    for (row, truth) in pairs(f, t) {
                        expectClose(row["energy_kcal"], writtenEnergy(truth), within: 0.051, "\(row["workout_id"]!) energy_kcal")
                        #expect(abs(truth.energyKcal - writtenEnergy(truth)) < 0.01)
                        units.insert("\(truth.energyUnit) \(truth.legacyTotals ? "legacy" : "statistics")")
                    }
                    #expect(
                        units == ["kcal legacy", "Cal legacy", "kJ legacy", "kcal statistics", "Cal statistics"],
                        "energy units covered: \(units)")
                },
                "avg_hr": heartRateCheck("avg_hr") { $0.0 },
                "max_hr": heartRateCheck("max_hr") { $0.1 },
                "min_hr": heartRateCheck("min_hr") { $0.2 },
                "hr_source": { f, t in
                    var seen: Set<String> = []
                    for (row, truth) in pairs(f, t) {
                        let expected = heartRate(f, row, truth).source
                        seen.insert(expected)
                        #expect(row["hr_source"] == expected, "\(row["workout_id"]!) hr_source")
                    }
                    #expect(seen.isSuperset(of: ["workout", "route"]), "hr_source cases covered: \(seen)")
                },
                "indoor": text("indoor") { $0.indoor.map { $0 ? "true" : "false" } ?? "" },
                "time_zone": text("time_zone") { $0.timeZone },
                "parts": text("parts") { String($0.parts) },
                "elevation_ascended_m": figure("elevation_ascended_m") { $0.elevationAscendedMeters },
                "weather_temp_c": figure("weather_temp_c") { $0.temperatureC },
                "weather_humidity_pct": figure("weather_humidity_pct") { $0.humidityPercent },
                "route_distance_m": route("route_distance_m") { $0.distance },
                "moving_time_s": route("moving_time_s") { $0.moving },
                "pace_s_per_km": route("pace_s_per_km") { $0.distance >= 10 ? $0.moving / ($0.distance / 1000) : nil },
                "elevation_gain_m": route("elevation_gain_m") { $0.gain },
                "trimmed_distance_m": route("trimmed_distance_m") { $0.allPointsDistance - $0.distance },
                "flags": { f, t in
                    for r in t.records {
                        guard let truth = truth(f, r["workout_id"]!) else { continue }
                        let expected = [truth.glitchPoints > 0 ? "glitch" : nil, truth.drivePoints > 0 ? "vehicle" : nil]
                        #expect(r["flags"] == expected.compactMap { $0 }.joined(separator: ";"), "\(r["workout_id"]!) flags")
                    }
                },
            ]
            // Seconds per zone, empty when no point of the route has a heart rate. The reference
            // reads each point's bpm as written (0.1 bpm): a step whose mean lies within 0.05 bpm
            // of a zone bound may fall on the other side, so a zone may differ by a few such
            // seconds (2 s plus 0.5 % of the time in zones); their sum may not.
            let fiveZones = HeartRateZones.fromMaximum(HeartRateZones.fixedMaximum).zones   // names only: the bounds are the run's
            for (i, zone) in fiveZones.enumerated() {
                checks[OutputSchema.zoneColumn(zone.name)] = route(
                    OutputSchema.zoneColumn(zone.name),
                    slack: { 2 + 0.005 * $0.zoneSeconds.reduce(0, +) }
                ) {
                    $0.hasHeartRate ? $0.zoneSeconds[i] : nil
                }
            }
            let zoneColumns = fiveZones.map { OutputSchema.zoneColumn($0.name) }
            let first = checks[zoneColumns[0]]!
            checks[zoneColumns[0]] = { f, t in
                try first(f, t)
                let references = referenceRoutes(f)
                for r in t.records {
                    guard let reference = references[r["workout_id"]!], reference.hasHeartRate else { continue }
                    let total = zoneColumns.compactMap { Double(r[$0]!) }.reduce(0, +)
                    #expect(abs(total - reference.zoneSeconds.reduce(0, +)) < 0.2, "\(r["workout_id"]!): seconds in zones")
                }
            }
            return checks
        }()
    }
}
