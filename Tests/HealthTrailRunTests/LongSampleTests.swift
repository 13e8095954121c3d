import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailDecode

/// A sample's length is no evidence: one record from 2000 to 2099 neither re-dates a life nor
/// makes a 99-year night. The expected dates and offsets are worked out by hand from the nights
/// written here.
@Suite struct LongSampleTests {
    static func utc(_ y: Int, _ m: Int, _ d: Int, _ hour: Int, _ minute: Int = 0, offset: Int) -> Int64 {
        TimeZoneTimelineTests.utc(y, m, d, hour, minute, offset: offset)
    }

    /// Ten nights in Paris (bed 23:00, up 07:00, +01:00 in January), a flight, ten in New York.
    static func twentyNights() -> String {
        var body = ""
        for k in 0..<10 {
            body += TimeZoneRunTests.night(utc(2024, 1, 10 + k, 23, 0, offset: 1), utc(2024, 1, 11 + k, 7, 0, offset: 1), zone: "Europe/Paris")
            body += TimeZoneRunTests.night(
                utc(2024, 1, 21 + k, 23, 0, offset: -5), utc(2024, 1, 22 + k, 7, 0, offset: -5), zone: "America/New_York")
        }
        return body
    }

    static let parisNights = (11...20).map { String(format: "2024-01-%02d", $0) }
    static let newYorkNights = (22...31).map { String(format: "2024-01-%02d", $0) }

    /// An InBed sample from 2000 to 2099 in Tokyo, beside the twenty nights.
    @Test func aCenturyLongSleepSampleIsAFaultNotANight() throws {
        let body =
            Self.twentyNights()
            + TimeZoneRunTests.night(Self.utc(2000, 1, 1, 22, 0, offset: 9), Self.utc(2099, 1, 1, 7, 0, offset: 9), zone: "Asia/Tokyo")
        let (_, manifest, dir) = try TimeZoneRunTests().run(body)
        let nights = try Support.readCSV(dir + "/out/sleep_nights.csv")
        let offset = nights.header.firstIndex(of: "utc_offset")!
        #expect(nights.rows.map { $0[0] } == Self.parisNights + Self.newYorkNights)
        #expect(nights.rows.prefix(10).allSatisfy { $0[offset] == "+01:00" })
        #expect(nights.rows.suffix(10).allSatisfy { $0[offset] == "-05:00" })
        #expect(nights.rows.allSatisfy { Double($0[nights.header.firstIndex(of: "in_bed_min")!]) == 480 })
        #expect(manifest.faults.byKind["overlong_sample"] == 1)
        #expect(manifest.normalisation.timeZones.contradictedSightings == 0)
        #expect(manifest.normalisation.timeZones.zones == 2)
    }

    /// A body-mass record from 2000 to 2099 naming Tokyo is a sighting of its first day only:
    /// the nights after it keep their own zones, and so do the days.
    @Test func aCenturyLongSightingWeighsOneDay() throws {
        let d = (TimeZoneRunTests.stamped(Self.utc(2000, 1, 1, 8, 0, offset: 9)), TimeZoneRunTests.stamped(Self.utc(2099, 1, 1, 8, 0, offset: 9)))
        var body = Self.twentyNights()
        body += """
             <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Scale" unit="kg" startDate="\(d.0)" endDate="\(d.1)" value="70">
              <MetadataEntry key="HKTimeZone" value="Asia/Tokyo"/>
             </Record>

            """
        // Noon in Paris and noon in New York: on their own days whatever the stamped offset.
        body += TimeZoneRunTests.heartRate(Self.utc(2024, 1, 15, 12, 0, offset: 1), 61)
        body += TimeZoneRunTests.heartRate(Self.utc(2024, 1, 25, 21, 30, offset: -5), 62)
        let (daily, manifest, dir) = try TimeZoneRunTests().run(body)
        let nights = try Support.readCSV(dir + "/out/sleep_nights.csv")
        #expect(nights.rows.map { $0[0] } == Self.parisNights + Self.newYorkNights)
        #expect(manifest.normalisation.timeZones.contradictedSightings == 0)
        #expect(manifest.normalisation.timeZones.zones == 3)
        #expect(daily["2024-01-15"]?["time_zone"] == "Europe/Paris")
        #expect(daily["2024-01-15"]?["avg_hr"] == "61")
        // 21:30 in New York is 03:30 the next day in Paris and 11:30 in Tokyo.
        #expect(daily["2024-01-25"]?["time_zone"] == "America/New_York")
        #expect(daily["2024-01-25"]?["avg_hr"] == "62")
    }

    @Test func aSightingCoversItsFirstDayAtMost() {
        var sightings = TimeZoneSightings()
        let start = Self.utc(2000, 1, 1, 0, 0, offset: 0)
        sightings.add("Asia/Tokyo", start: start, end: Self.utc(2099, 1, 1, 0, 0, offset: 0))
        sightings.add("Europe/Paris", start: start + 3_600, end: start + 7_200)
        #expect(sightings.sightings.map(\.end) == [start + 86_400, start + 7_200])
    }

    /// Samples of 20 hours chained half an hour apart: a session takes samples that start within
    /// 24 hours of its first, so three samples make two sessions (no 61-hour sleep). The first,
    /// 1 March 20:00 to 3 March 12:30 UTC, has its middle at 16:15 on 2 March: a nap. The second,
    /// 3 March 13:00 to 4 March 09:00, has its middle at 23:00: the night of 4 March, 20 hours in
    /// bed. (As one session, the three were a night of 60 hours in bed and no nap.)
    @Test func aSessionTakesSamplesStartingWithinADayOfItsFirst() {
        let t0 = Self.utc(2024, 3, 1, 20, 0, offset: 0)
        let hour: Int64 = 3_600
        let samples = [0, 20 * hour + 1_800, 41 * hour].map { start in
            SleepSample(
                start: Timestamp(utcSeconds: t0 + start, offsetMinutes: 0), end: Timestamp(utcSeconds: t0 + start + 20 * hour, offsetMinutes: 0),
                stage: .inBed, source: "Phone", sourceRank: 0)
        }
        let (nights, naps) = SleepAnalysis.nights(from: samples)
        #expect(nights.map(\.date) == ["2024-03-04"])
        #expect(naps == 1)
        #expect(abs((nights.first?.inBedMinutes ?? 0) - 1_200) < 1e-9)
    }
}
