import Foundation
import Testing

@testable import HealthTrailKit
@testable import HealthTrailSynth

extension OutputContractTests {
    /// daily.csv: per local date, the generator's de-duplicated totals and means.
    enum DailyChecks {
        /// A column equal to `truth` on every day the generator has a figure for, within the
        /// written rounding; `otherDays` says what the other rows hold (nil: not checked).
        static func perDay(
            _ column: String, within tolerance: Double, otherDays: String? = nil,
            _ truth: @escaping @Sendable (SynthSummary) -> [String: Double]
        ) -> Check {
            { f, t in
                let expected = truth(f.summary)
                #expect(!expected.isEmpty, "\(column): the generator has no figure")
                let rows = t.rows(by: "date")
                for (day, value) in expected {
                    expectClose(rows[day]?[column], value, within: tolerance, "daily \(day) \(column)")
                }
                if let otherDays {
                    for (day, row) in rows where expected[day] == nil {
                        #expect(row[column] == otherDays, "daily \(day) \(column): `\(row[column]!)` on a day without")
                    }
                }
            }
        }

        static func ints(_ m: [String: Int]) -> [String: Double] { m.mapValues(Double.init) }

        static let all: [String: Check] = [
            "date": { f, t in
                let dates = t.values("date")
                #expect(dates == dates.sorted() && Set(dates).count == dates.count, "one row per date, in order")
                #expect(Set(f.summary.stepsByLocalDay.keys).isSubset(of: Set(dates)))
            },
            "steps": perDay("steps", within: 0.5) { ints($0.stepsByLocalDay) },
            "distance_m": perDay("distance_m", within: 0.051) { $0.distanceMetersByLocalDay },
            "active_kcal": perDay("active_kcal", within: 0.051) { $0.activeKcalByLocalDay },
            "flights": perDay("flights", within: 0.5) { ints($0.flightsByLocalDay) },
            "basal_kcal": perDay("basal_kcal", within: 0.051) { $0.basalKcalByLocalDay },
            "exercise_min": perDay("exercise_min", within: 0.051) { $0.exerciseMinutesBySummaryDay },
            "stand_hours": perDay("stand_hours", within: 0.5) { $0.standHoursBySummaryDay },
            "resting_hr": perDay("resting_hr", within: 0.051) { $0.restingHRByLocalDay },
            "avg_hr": perDay("avg_hr", within: 0.051) { $0.heartRateMeanByLocalDay },
            "hrv_sdnn_ms": perDay("hrv_sdnn_ms", within: 0.051) { $0.hrvSDNNByLocalDay },
            "sleep_asleep_min": perDay("sleep_asleep_min", within: 0.051) { ints($0.asleepMinutesByNight) },
            // A day without workouts has 0 of both, not empty.
            "workouts": perDay("workouts", within: 0.5, otherDays: "0") { ints($0.workoutsByLocalDay) },
            "workout_min": perDay("workout_min", within: 0.051, otherDays: "0") { $0.workoutMinutesByLocalDay },
            "time_zone": timeZoneCheck,
        ]

        /// The zone of the generator's day plan, and on the two days of each journey the zone
        /// travelled from or to as well, in the order lived: the evening before a flight west
        /// goes on in New York (Paris's day lasts until midnight there), and the first day home
        /// from a flight east starts on New York's clock. Days outside the plan are at home.
        static func expectedZones(_ date: String, _ s: SynthSummary) -> String {
            guard let here = s.timeZoneByLocalDay[date] else { return "Europe/Paris" }
            let dates = s.timeZoneByLocalDay.keys.sorted()
            let i = dates.firstIndex(of: date)!
            let previous = i > 0 ? s.timeZoneByLocalDay[dates[i - 1]]! : here
            let next = i + 1 < dates.count ? s.timeZoneByLocalDay[dates[i + 1]]! : here
            if here == "Europe/Paris" && next == "America/New_York" { return "Europe/Paris;America/New_York" }
            if here == "Europe/Paris" && previous == "America/New_York" { return "America/New_York;Europe/Paris" }
            return here
        }

        static let timeZoneCheck: Check = { f, t in
            #expect(f.summary.timeZoneByLocalDay.values.contains("America/New_York"), "the archive has a trip")
            for r in t.records {
                #expect(r["time_zone"] == expectedZones(r["date"]!, f.summary), "daily \(r["date"]!) time_zone")
            }
        }
    }

    /// sleep_nights.csv: the generator's nights; where it has no figure of its own (bed and wake
    /// times, latency, awakenings, sources), the plain computation over sleep_samples.csv.
    enum SleepNightChecks {
        typealias Sample = (start: Int64, end: Int64, stage: String, source: String)

        /// The night's samples: every sample of sleep_samples.csv between its bed start and wake end.
        static func samples(_ f: Fixture, _ night: [String: String]) -> [Sample] {
            guard let bed = utcSeconds(night["bed_start_utc"]), let wake = utcSeconds(night["wake_end_utc"]) else { return [] }
            return f.table("sleep_samples.csv").records.compactMap { r in
                guard let s = utcSeconds(r["start_utc"]), let e = utcSeconds(r["end_utc"]), e >= bed, s <= wake else { return nil }
                return (s, e, r["stage"]!, r["source"]!)
            }
        }

        static let asleepStages: Set<String> = ["asleep", "core", "deep", "rem"]
        static let watch = "Alex’s Apple Watch"

        /// The Watch's asleep spans of the night, merged (it is the best-ranked source, so its
        /// stages are the night's).
        static func watchAsleep(_ samples: [Sample]) -> [(Int64, Int64)] {
            var merged: [(Int64, Int64)] = []
            for s in samples.filter({ $0.source == watch && asleepStages.contains($0.stage) }).sorted(by: { $0.start < $1.start }) {
                if let last = merged.last, s.start <= last.1 {
                    merged[merged.count - 1].1 = max(last.1, s.end)
                } else {
                    merged.append((s.start, s.end))
                }
            }
            return merged
        }

        static func perNight(_ column: String, within tolerance: Double, _ truth: @escaping @Sendable (SynthSummary) -> [String: Double]) -> Check {
            { f, t in
                let expected = truth(f.summary)
                let rows = t.rows(by: "date")
                for (night, value) in expected { expectClose(rows[night]?[column], value, within: tolerance, "night \(night) \(column)") }
            }
        }

        /// A stage's minutes: the generator's on staged nights, empty on legacy nights.
        static func stage(_ column: String, _ truth: @escaping @Sendable (SynthSummary) -> [String: Int]) -> Check {
            { f, t in
                let expected = truth(f.summary)
                #expect(!expected.isEmpty && expected.count < f.summary.asleepMinutesByNight.count, "staged and legacy nights")
                for r in t.records {
                    expectClose(r[column], expected[r["date"]!].map(Double.init), within: 0.051, "night \(r["date"]!) \(column)")
                }
            }
        }

        static let all: [String: Check] = [
            "date": { f, t in #expect(Set(t.values("date")) == Set(f.summary.asleepMinutesByNight.keys)) },
            "in_bed_min": perNight("in_bed_min", within: 0.051) { $0.inBedMinutesByNight.mapValues(Double.init) },
            "asleep_min": perNight("asleep_min", within: 0.051) { $0.asleepMinutesByNight.mapValues(Double.init) },
            "efficiency": perNight("efficiency", within: 0.00051) { s in
                s.asleepMinutesByNight.reduce(into: [:]) { out, night in
                    if let bed = s.inBedMinutesByNight[night.key], bed > 0 { out[night.key] = min(1, Double(night.value) / Double(bed)) }
                }
            },
            "core_min": stage("core_min") { $0.coreMinutesByNight },
            "deep_min": stage("deep_min") { $0.deepMinutesByNight },
            "rem_min": stage("rem_min") { $0.remMinutesByNight },
            // The person's own offset at waking: the plan's zone that morning (the generator's
            // own daylight-saving rules), not the offset the export stamped.
            "utc_offset": { f, t in
                for r in t.records {
                    guard let wake = utcSeconds(r["wake_end_utc"]), let name = f.summary.timeZoneByLocalDay[r["date"]!] else {
                        Issue.record("night \(r["date"]!): no wake time or plan day")
                        continue
                    }
                    let zone: SynthTimeZone = name == "America/New_York" ? .newYork : .paris
                    #expect(r["utc_offset"] == offsetText(zone.offset(utc: Int(wake)) / 60), "night \(r["date"]!) utc_offset")
                }
            },
            // The night spans its samples: none of them starts before it or ends after it.
            "bed_start_utc": { f, t in
                for r in t.records {
                    let s = samples(f, r)
                    #expect(s.map(\.start).min() == utcSeconds(r["bed_start_utc"]), "night \(r["date"]!) bed_start_utc")
                }
            },
            "wake_end_utc": { f, t in
                for r in t.records {
                    let s = samples(f, r)
                    #expect(s.map(\.end).max() == utcSeconds(r["wake_end_utc"]), "night \(r["date"]!) wake_end_utc")
                    #expect(localDate(utcSeconds(r["wake_end_utc"])!, offsetMinutes: exportOffsetMinutes) == r["date"], "dated by its morning")
                }
            },
            // From bed to the Watch's first asleep moment.
            "latency_min": { f, t in
                for r in t.records {
                    guard let first = watchAsleep(samples(f, r)).first, let bed = utcSeconds(r["bed_start_utc"]) else { continue }
                    expectClose(r["latency_min"], Double(first.0 - bed) / 60, within: 0.051, "night \(r["date"]!) latency_min")
                }
            },
            // Gaps between the Watch's asleep spans (every sample is on whole minutes, so every
            // gap is at least a minute long).
            "awakenings": { f, t in
                for r in t.records {
                    let spans = watchAsleep(samples(f, r))
                    #expect(r["awakenings"] == String(max(0, spans.count - 1)), "night \(r["date"]!) awakenings")
                }
            },
            // The Watch (its stages win), then every source with an in-bed sample, by rank.
            "sources": { f, t in
                for r in t.records {
                    let s = samples(f, r)
                    let inBed = Set(s.filter { $0.stage == "in_bed" }.map(\.source))
                    let others = inBed.subtracting([watch, "Alex’s iPhone"]).sorted()
                    let expected = [watch, "Alex’s iPhone"].filter { $0 == watch || inBed.contains($0) } + others
                    #expect(r["sources"] == expected.joined(separator: ";"), "night \(r["date"]!) sources")
                }
            },
        ]
    }
}
