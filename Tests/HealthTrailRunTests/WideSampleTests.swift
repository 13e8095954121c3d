import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailArchive
@testable import HealthTrailDecode

/// A cumulative sample costs the same however long it lasts: its whole quarter hours are one
/// stored entry, handed out quarter hour by quarter hour when the days are dated. The daily
/// figures expected here are worked out by hand from the samples' spans.
@Suite struct WideSampleTests {
    static func utc(_ y: Int, _ m: Int, _ d: Int, _ hour: Int, _ minute: Int = 0, offset: Int) -> Int64 {
        TimeZoneTimelineTests.utc(y, m, d, hour, minute, offset: offset)
    }

    static func steps(_ start: Int64, _ end: Int64, _ value: Int, offsetMinutes: Int32 = 60, source: String = "Alex’s iPhone") -> String {
        let (a, b) = (TimeZoneRunTests.stamped(start, offsetMinutes: offsetMinutes), TimeZoneRunTests.stamped(end, offsetMinutes: offsetMinutes))
        return
            " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"\(source)\" unit=\"count\" startDate=\"\(a)\" endDate=\"\(b)\" value=\"\(value)\"/>\n"
    }

    /// Stretches and single quarter hours come back per quarter hour, in order, with the
    /// stretches covering a quarter hour added together per figure (and per stamped offset when
    /// asked). Sums by hand: see each line.
    @Test func stretchesAreHandedOutPerQuarterHour() throws {
        func drained(byStampedOffset: Bool) throws -> (sums: [String: Double], quarters: [Int64]) {
            let dir = Support.temporaryDirectory()
            let sums = QuarterSums(spillPath: dir + "/q.spill", runLength: 2)
            sums.add(0, quarter: 5, value: 1, stampedOffset: 60)
            sums.add(0, quarters: 4, from: 3, valuePerQuarter: 0.5, stampedOffset: 60)   // 3, 4, 5, 6
            sums.add(0, quarters: 3, from: 5, valuePerQuarter: 0.25, stampedOffset: 60)   // 5, 6, 7
            sums.add(0, quarters: 2, from: 4, valuePerQuarter: 2, stampedOffset: -300)   // 4, 5
            sums.add(1, quarters: 2, from: 6, valuePerQuarter: 8, stampedOffset: 60)   // 6, 7
            sums.add(0, quarters: 1, from: 9, valuePerQuarter: 3, stampedOffset: 60)   // 9, as a single sum
            var got: [String: Double] = [:]
            var quarters: [Int64] = []
            try sums.drain(byStampedOffset: byStampedOffset) { q in
                #expect(q.figure & QuarterSum.stretch == 0)
                got["\(q.quarter)/\(q.figure)/\(byStampedOffset ? q.stampedOffset : 0)", default: 0] += q.sum
                quarters.append(q.quarter)
            }
            return (got, quarters)
        }
        let apart = try drained(byStampedOffset: true)
        #expect(
            apart.sums == [
                "3/0/60": 0.5, "4/0/60": 0.5, "4/0/-300": 2, "5/0/60": 1 + 0.5 + 0.25, "5/0/-300": 2, "6/0/60": 0.5 + 0.25,
                "7/0/60": 0.25, "6/1/60": 8, "7/1/60": 8, "9/0/60": 3,
            ])
        #expect(apart.quarters == apart.quarters.sorted())
        let together = try drained(byStampedOffset: false)
        #expect(
            together.sums == [
                "3/0/0": 0.5, "4/0/0": 2.5, "5/0/0": 1 + 2.75, "6/0/0": 0.75, "7/0/0": 0.25, "6/1/0": 8, "7/1/0": 8, "9/0/0": 3,
            ])
    }

    /// Four stretches of 136 years each are four stored entries, not millions, and every
    /// quarter hour gets their shares back.
    @Test func aCenturyLongStretchIsOneEntryOnDisk() throws {
        let dir = Support.temporaryDirectory()
        let sums = QuarterSums(spillPath: dir + "/q.spill", runLength: 2)
        let quarters: Int64 = 49_673 * 96
        for k in 1...4 { sums.add(2, quarters: quarters, from: 0, valuePerQuarter: Double(k), stampedOffset: 0) }
        #expect(sums.storedSums == 4)
        var handedOut: Int64 = 0
        var expectedQuarter: Int64 = 0
        try sums.drain(byStampedOffset: false) { q in
            if q.quarter != expectedQuarter || q.sum != 10 || q.count != 4 { Issue.record("quarter \(q.quarter): \(q.sum)") }
            expectedQuarter += 1
            handedOut += 1
        }
        #expect(handedOut == quarters)
    }

    /// 100 StepCount samples from 1970 to 2106 (49,673 days), sample k of 49,673 × k steps:
    /// k steps a day each, 1 + 2 + … + 100 = 5,050 a day in all, every day, at the stamped +00:00.
    @Test func centuryLongSamplesGiveEachDayItsShare() throws {
        let start = Self.utc(1970, 1, 1, 0, offset: 0), end = Self.utc(2106, 1, 1, 0, offset: 0)
        let body = (1...100).map { Self.steps(start, end, 49_673 * $0, offsetMinutes: 0) }.joined()
        let (_, manifest, dir) = try TimeZoneRunTests().run(body)
        let daily = try Support.readCSV(dir + "/out/daily.csv")
        let steps = try #require(daily.header.firstIndex(of: "steps"))
        #expect(daily.rows.count == 49_673)
        #expect(daily.rows.first?[0] == "1970-01-01")
        #expect(daily.rows.last?[0] == "2105-12-31")
        #expect(daily.rows.allSatisfy { $0[steps] == "5050" })
        #expect(manifest.normalisation.timeZones.quarterHoursOnStampedOffset == 49_673 * 96)
    }

    /// One sample of 10 days, stamped +01:00 with no zone seen: 2,400 steps from 1 March 13:00
    /// to 11 March 13:00 local, 10 an hour: 110 on the 1st (11 hours), 240 on each day between,
    /// 130 on the 11th (13 hours).
    @Test func aSampleOfDaysIsSplitByLocalDay() throws {
        let start = Self.utc(2024, 3, 1, 13, offset: 1)
        let (daily, _, _) = try TimeZoneRunTests().run(Self.steps(start, start + 240 * 3_600, 2_400))
        #expect(daily["2024-02-29"]?["steps"] == nil)
        #expect(daily["2024-03-01"]?["steps"] == "110")
        for day in 2...10 { #expect(daily[String(format: "2024-03-%02d", day)]?["steps"] == "240") }
        #expect(daily["2024-03-11"]?["steps"] == "130")
        #expect(daily["2024-03-12"]?["steps"] == nil)
    }

    /// Ten nights in Paris, ten in New York (`LongSampleTests.twentyNights`), and one StepCount
    /// sample of 966 hours over both, 10 steps an hour: from 1 January 00:00 in Paris
    /// (31 December 23:00 UTC) to 10 February 00:00 in New York (05:00 UTC). The last Paris
    /// night ends 20 January 07:00 there; Paris holds until its midnight (23:00 UTC), when New
    /// York, still on the 20th, takes over until its own midnight. So 1 to 19 January are 24
    /// Paris hours (240 steps), 20 January is 24 Paris hours and 6 New York hours (300), and
    /// 21 January to 9 February are 24 New York hours (240); 19 × 24 + 30 + 20 × 24 = 966.
    @Test func aMonthLongSampleFollowsTheTimeZones() throws {
        let start = Self.utc(2024, 1, 1, 0, offset: 1), end = Self.utc(2024, 2, 10, 0, offset: -5)
        #expect(end - start == 966 * 3_600)
        let (daily, _, _) = try TimeZoneRunTests().run(LongSampleTests.twentyNights() + Self.steps(start, end, 9_660))
        var expected: [String: String] = [:]
        for day in 1...19 { expected[String(format: "2024-01-%02d", day)] = "240" }
        expected["2024-01-20"] = "300"
        for day in 21...31 { expected[String(format: "2024-01-%02d", day)] = "240" }
        for day in 1...9 { expected[String(format: "2024-02-%02d", day)] = "240" }
        let got = daily.compactMapValues { $0["steps"].flatMap { $0.isEmpty ? nil : $0 } }
        #expect(got == expected)
        #expect(daily["2024-01-20"]?["time_zone"] == "Europe/Paris;America/New_York")
    }
}
