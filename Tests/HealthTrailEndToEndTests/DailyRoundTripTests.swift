import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit
@testable import HealthTrailRun
@testable import HealthTrailSynth

/// Synthesized archives whose true daily figures and nights the generator states (computed from
/// its own plan, independently of HealthTrail): de-duplicated totals, nights and workout days
/// must equal them exactly.
@Suite struct DailyRoundTripTests {
    struct Outcome {
        var summary: SynthSummary
        var manifest: Manifest
        var daily: [String: [String: String]]
        var nights: [String: [String: String]]
    }

    func synthAndRun(days: Int, seed: UInt64) throws -> Outcome {
        let dir = Support.temporaryDirectory()
        let summary = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: days, seed: seed))
        let manifest = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out"))
        func keyed(_ file: String) throws -> [String: [String: String]] {
            let csv = try Support.readCSV(dir + "/out/" + file)
            return Dictionary(uniqueKeysWithValues: csv.rows.map { ($0[0], Dictionary(uniqueKeysWithValues: zip(csv.header, $0))) })
        }
        return Outcome(summary: summary, manifest: manifest, daily: try keyed("daily.csv"), nights: try keyed("sleep_nights.csv"))
    }

    func number(_ day: [String: String]?, _ column: String) -> Double? { day?[column].flatMap(Double.init) }

    @Test(arguments: [(12, UInt64(7)), (30, UInt64(2024))])
    func dailyTotalsAreTheWatchsFigures(days: Int, seed: UInt64) throws {
        let o = try synthAndRun(days: days, seed: seed)
        #expect(!o.summary.stepsByLocalDay.isEmpty)
        for (date, steps) in o.summary.stepsByLocalDay {
            #expect(number(o.daily[date], "steps") == Double(steps), "steps \(date)")
        }
        for (date, metres) in o.summary.distanceMetersByLocalDay {
            let got = try #require(number(o.daily[date], "distance_m"), "distance \(date)")
            #expect(abs(got - metres) <= 0.05, "distance \(date): \(got) vs \(metres)")
        }
        for (date, kcal) in o.summary.activeKcalByLocalDay {
            let got = try #require(number(o.daily[date], "active_kcal"), "kcal \(date)")
            #expect(abs(got - kcal) <= 0.05, "kcal \(date): \(got) vs \(kcal)")
        }
        for (date, flights) in o.summary.flightsByLocalDay {
            #expect(number(o.daily[date], "flights") == Double(flights), "flights \(date)")
        }
    }

    /// Forty days with four in New York: every day's steps, heart rate and energy are the
    /// person's own local day's, which on the trip differ from the export offset's by thousands
    /// of steps; the travel days name both zones.
    @Test func aTripAbroadIsDatedWhereThePersonWas() throws {
        let o = try synthAndRun(days: 40, seed: 11)
        let s = o.summary
        let tripDays = s.timeZoneByLocalDay.filter { $0.value == "America/New_York" }.keys.sorted()
        #expect(tripDays.count == 4)
        // The export offset's figures are wrong on the trip: the test could tell them apart.
        let moved = tripDays.filter { s.stepsByLocalDay[$0] != s.stepsByExportDay[$0] }
        #expect(!moved.isEmpty)
        for (date, steps) in s.stepsByLocalDay { #expect(number(o.daily[date], "steps") == Double(steps), "steps \(date)") }
        for (date, bpm) in s.heartRateMeanByLocalDay {
            let got = try #require(number(o.daily[date], "avg_hr"), "avg_hr \(date)")
            #expect(abs(got - bpm) <= 0.051, "avg_hr \(date): \(got) vs \(bpm)")
        }
        for (date, kcal) in s.basalKcalByLocalDay {
            let got = try #require(number(o.daily[date], "basal_kcal"), "basal \(date)")
            #expect(abs(got - kcal) <= 0.051, "basal \(date): \(got) vs \(kcal)")
        }
        for (date, zone) in s.timeZoneByLocalDay {
            #expect(o.daily[date]?["time_zone"] == OutputContractTests.DailyChecks.expectedZones(date, s), "time_zone \(date) in \(zone)")
        }
        let zones = o.manifest.normalisation.timeZones
        #expect(zones.zones == 2 && zones.stays == 3 && zones.quarterHoursOnStampedOffset == 0)
        #expect(zones.routeContradictions == 0 && zones.unknownNames == 0)
    }

    @Test(arguments: [(12, UInt64(7)), (30, UInt64(2024))])
    func nightsAreExactToTheMinute(days: Int, seed: UInt64) throws {
        let o = try synthAndRun(days: days, seed: seed)
        #expect(Set(o.nights.keys) == Set(o.summary.asleepMinutesByNight.keys))
        for (date, minutes) in o.summary.asleepMinutesByNight {
            #expect(number(o.nights[date], "asleep_min") == Double(minutes), "asleep \(date)")
            #expect(number(o.daily[date], "sleep_asleep_min") == Double(minutes), "daily asleep \(date)")
        }
        for (date, minutes) in o.summary.inBedMinutesByNight {
            #expect(number(o.nights[date], "in_bed_min") == Double(minutes), "in bed \(date)")
        }
        #expect(o.manifest.normalisation.naps == o.summary.napMinutesByDay.count)
        // One night has a third-party app (Sleep Cycle) overlapping the Watch: it is still one night.
        #expect(o.nights.values.contains { $0["sources"]?.contains("Sleep Cycle") == true })
    }

    @Test func workoutsFallOnTheirOwnTimeZonesDay() throws {
        let o = try synthAndRun(days: 30, seed: 2024)
        var expected: [String: Int] = [:]
        for (_, date) in o.summary.workoutLocalDates { expected[date, default: 0] += 1 }
        let got = o.daily.compactMapValues { Int($0["workouts"] ?? "") }.filter { $0.value > 0 }
        #expect(got == expected)
    }
}
