import Foundation
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailArchive
@testable import HealthTrailDecode

/// The person's time-zone timeline (`TimeZoneTimeline`), checked against dates worked out by
/// hand from the zones' published offsets.
@Suite struct TimeZoneTimelineTests {
    /// UTC seconds of a wall-clock time at a fixed offset (hours east).
    static func utc(_ y: Int, _ m: Int, _ d: Int, _ hour: Int, _ minute: Int = 0, offset: Int) -> Int64 {
        Timestamp.daysFromCivil(year: y, month: m, day: d) * 86_400 + Int64(hour * 3_600 + minute * 60 - offset * 3_600)
    }

    static func date(_ day: Int64) -> String { Timestamp(utcSeconds: day * 86_400).localDateString }

    /// The date the timeline gives an instant.
    static func localDate(_ timeline: inout TimeZoneTimeline, _ t: Int64) -> String? {
        guard let o = timeline.offset(at: t) else { return nil }
        return date(CumulativeSeries.localDay(t, Int16(o.minutes)))
    }

    /// Paris until the evening of 9 January 2023, New York from the night after (a flight west),
    /// back in Paris from the morning of 14 January (a flight east), as sleep samples and
    /// workouts would show it. Winter: Paris +1, New York −5.
    static func trip() -> TimeZoneSightings {
        var s = TimeZoneSightings()
        s.add("Europe/Paris", start: utc(2023, 1, 8, 23, offset: 1), end: utc(2023, 1, 9, 7, offset: 1))   // night
        s.add("Europe/Paris", start: utc(2023, 1, 9, 18, offset: 1), end: utc(2023, 1, 9, 19, offset: 1))   // evening run
        s.add("America/New_York", start: utc(2023, 1, 9, 23, offset: -5), end: utc(2023, 1, 10, 7, offset: -5))
        s.add("America/New_York", start: utc(2023, 1, 12, 23, offset: -5), end: utc(2023, 1, 13, 7, offset: -5))
        s.add("America/New_York", start: utc(2023, 1, 13, 18, offset: -5), end: utc(2023, 1, 13, 19, offset: -5))
        s.add("Europe/Paris", start: utc(2023, 1, 14, 10, offset: 1), end: utc(2023, 1, 14, 11, offset: 1))   // first walk home
        s.add("Europe/Paris", start: utc(2023, 1, 14, 23, offset: 1), end: utc(2023, 1, 15, 7, offset: 1))
        return s
    }

    @Test func noSightingMeansNoTimeline() {
        var timeline = TimeZoneTimeline(TimeZoneSightings())
        #expect(timeline.isEmpty)
        #expect(timeline.offset(at: 1_700_000_000) == nil)
    }

    @Test func staysRunFromFirstToLastSightingOfAZone() {
        let timeline = TimeZoneTimeline(Self.trip())
        #expect(timeline.names == ["Europe/Paris", "America/New_York"])
        #expect(timeline.stays.map(\.zone) == [0, 1, 0])
        #expect(timeline.stays[0].end == Self.utc(2023, 1, 9, 19, offset: 1))
        #expect(timeline.stays[1].start == Self.utc(2023, 1, 9, 23, offset: -5))
        #expect(timeline.stays[1].end == Self.utc(2023, 1, 13, 19, offset: -5))
        // A night's samples, within six hours of each other, are one sighting.
        var s = TimeZoneSightings()
        for h in 0..<8 { s.add("Europe/Paris", start: Self.utc(2023, 1, 2, h, offset: 1), end: Self.utc(2023, 1, 2, h, 30, offset: 1)) }
        #expect(s.sightings.count == 1)
    }

    @Test func flyingWestTheLastDayAtHomeLastsUntilMidnightAtTheDestination() {
        var timeline = TimeZoneTimeline(Self.trip())
        // 23:30 in Paris (17:30 in New York) after the last Paris sighting: still the 9th.
        #expect(Self.localDate(&timeline, Self.utc(2023, 1, 9, 23, 30, offset: 1)) == "2023-01-09")
        #expect(timeline.offset(at: Self.utc(2023, 1, 9, 23, 30, offset: 1))?.zone == 0)   // Paris, last seen
        // 03:00 in Paris is 21:00 the 9th in New York: the journey keeps the earlier date.
        #expect(Self.localDate(&timeline, Self.utc(2023, 1, 10, 3, offset: 1)) == "2023-01-09")
        #expect(timeline.offset(at: Self.utc(2023, 1, 10, 3, offset: 1))?.zone == 1)
        // In New York: its own dates.
        #expect(Self.localDate(&timeline, Self.utc(2023, 1, 9, 23, 59, offset: -5)) == "2023-01-09")
        #expect(Self.localDate(&timeline, Self.utc(2023, 1, 10, 0, 1, offset: -5)) == "2023-01-10")
        #expect(Self.localDate(&timeline, Self.utc(2023, 1, 11, 21, offset: -5)) == "2023-01-11")
    }

    @Test func flyingEastTheFirstDayHomeStartsAtMidnightWhereThePersonCameFrom() {
        var timeline = TimeZoneTimeline(Self.trip())
        // 22:30 in New York after the last sighting there is 04:30 the 14th in Paris: the 13th.
        #expect(Self.localDate(&timeline, Self.utc(2023, 1, 13, 22, 30, offset: -5)) == "2023-01-13")
        // New York, last seen, holds until the first sighting at home.
        #expect(timeline.offset(at: Self.utc(2023, 1, 14, 9, offset: 1))?.minutes == -300)
        // Past midnight in New York, the 14th in both zones.
        #expect(Self.localDate(&timeline, Self.utc(2023, 1, 14, 0, 30, offset: -5)) == "2023-01-14")
        // Home: Paris dates, also late in the evening.
        #expect(Self.localDate(&timeline, Self.utc(2023, 1, 14, 23, 30, offset: 1)) == "2023-01-14")
        #expect(timeline.offset(at: Self.utc(2023, 1, 14, 12, offset: 1))?.minutes == 60)
    }

    @Test func beforeTheFirstAndAfterTheLastSightingTheNearestZoneHolds() {
        var timeline = TimeZoneTimeline(Self.trip())
        #expect(timeline.offset(at: Self.utc(2022, 12, 1, 12, offset: 0))?.zone == 0)
        #expect(timeline.offset(at: Self.utc(2023, 3, 1, 12, offset: 0))?.zone == 0)
    }

    @Test func daylightSavingTimeFollowsTheZoneInAnyQueryOrder() {
        var s = TimeZoneSightings()
        s.add("Europe/Paris", start: Self.utc(2023, 1, 1, 0, offset: 0), end: Self.utc(2023, 12, 31, 0, offset: 0))
        var timeline = TimeZoneTimeline(s)
        // EU rules: +2 from 26 March 01:00 UTC to 29 October 01:00 UTC.
        let probes: [(Int64, Int32)] = [
            (Self.utc(2023, 7, 1, 12, offset: 0), 120), (Self.utc(2023, 2, 1, 12, offset: 0), 60),
            (Self.utc(2023, 3, 26, 0, 59, offset: 0), 60), (Self.utc(2023, 3, 26, 1, 0, offset: 0), 120),
            (Self.utc(2023, 10, 29, 0, 59, offset: 0), 120), (Self.utc(2023, 10, 29, 1, 0, offset: 0), 60),
            (Self.utc(2023, 5, 1, 12, offset: 0), 120), (Self.utc(2023, 11, 30, 12, offset: 0), 60),
        ]
        for (t, minutes) in probes { #expect(timeline.offset(at: t)?.minutes == minutes) }
    }

    @Test func unknownZoneNamesAreCountedNotUsed() {
        var s = TimeZoneSightings()
        s.add("Mars/Olympus_Mons", start: 0, end: 60)
        ByteSpan.withUTF8("Europe/Paris") { s.add($0, start: 100, end: 200) }
        ByteSpan.withUTF8("Europe/Paris") { s.add($0, start: 300, end: 400) }
        #expect(s.unknownNames == 1)
        #expect(s.names == ["Europe/Paris"])
        #expect(s.sightings == [.init(start: 100, end: 400, zone: 0)])
    }

    @Test func aRouteFarFromItsZoneContradictsIt() throws {
        let t = Self.utc(2023, 7, 1, 12, offset: 0)
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        #expect(!TimeZoneSightings.routeContradicts(paris, at: t, longitude: 2.34))
        #expect(!TimeZoneSightings.routeContradicts(paris, at: t, longitude: -8.5))   // Spain keeps Paris time
        #expect(TimeZoneSightings.routeContradicts(paris, at: t, longitude: -73.97))   // a run in Central Park
        // Across the date line: Kiritimati is +14 at 157° W.
        let kiritimati = try #require(TimeZone(identifier: "Pacific/Kiritimati"))
        #expect(!TimeZoneSightings.routeContradicts(kiritimati, at: t, longitude: -157.4))
    }
}
