import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailRun
@testable import HealthTrailWrite

/// The person's time-zone timeline (`TimeZoneTimeline`) and the daily figures it dates, checked
/// against dates worked out by hand from the zones' published offsets.
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

    /// Tokyo to New York (14 hours west): the last Tokyo morning keeps its date until midnight
    /// in Tokyo, New York's date then carries on, and no date comes twice or is skipped.
    @Test func aLongFlightWestNeverDatesBackwards() {
        var s = TimeZoneSightings()
        s.add("Asia/Tokyo", start: Self.utc(2023, 1, 9, 23, offset: 9), end: Self.utc(2023, 1, 10, 7, offset: 9))
        s.add("America/New_York", start: Self.utc(2023, 1, 10, 23, offset: -5), end: Self.utc(2023, 1, 11, 7, offset: -5))
        var timeline = TimeZoneTimeline(s)
        var previous = ""
        var dates: [String] = []
        for t in stride(from: Self.utc(2023, 1, 9, 23, offset: 9), to: Self.utc(2023, 1, 11, 7, offset: -5), by: 900) {
            let date = Self.localDate(&timeline, t)!
            #expect(date >= previous, "\(Timestamp(utcSeconds: t).utcString): \(date) after \(previous)")
            if date != previous { dates.append(date) }
            previous = date
        }
        #expect(dates == ["2023-01-09", "2023-01-10", "2023-01-11"])
        // Tokyo's morning after the last sighting, then New York from midnight in Tokyo.
        #expect(timeline.offset(at: Self.utc(2023, 1, 10, 12, offset: 9))?.minutes == 540)
        #expect(Self.localDate(&timeline, Self.utc(2023, 1, 10, 23, 59, offset: 9)) == "2023-01-10")
        #expect(timeline.offset(at: Self.utc(2023, 1, 11, 0, 0, offset: 9))?.minutes == -300)
        #expect(Self.localDate(&timeline, Self.utc(2023, 1, 11, 0, 0, offset: 9)) == "2023-01-10")
    }

    @Test func overlappingNestedAndEqualSightings() {
        // A New York sample inside a night in London: not used.
        var nested = TimeZoneSightings()
        nested.add("Europe/London", start: Self.utc(2023, 1, 1, 22, offset: 0), end: Self.utc(2023, 1, 2, 7, offset: 0))
        nested.add("America/New_York", start: Self.utc(2023, 1, 2, 1, offset: 0), end: Self.utc(2023, 1, 2, 1, 30, offset: 0))
        var timeline = TimeZoneTimeline(nested)
        #expect(timeline.contradictingSightings == 1)
        #expect(timeline.stays.count == 1)
        #expect(timeline.offset(at: Self.utc(2023, 1, 2, 3, offset: 0))?.zone == 0)
        // Overlapping: the later sighting's zone from its start on.
        var overlap = TimeZoneSightings()
        overlap.add("Europe/London", start: 0, end: 100)
        overlap.add("Europe/Paris", start: 50, end: 150)
        #expect(TimeZoneTimeline(overlap).stays == [.init(start: 0, end: 50, zone: 0), .init(start: 50, end: 150, zone: 1)])
        // Equal starts: the longer (later in order) wins; an instant sighting makes a stay of no length.
        var equal = TimeZoneSightings()
        equal.add("Europe/London", start: 0, end: 10)
        equal.add("Europe/Paris", start: 0, end: 100)
        equal.add("Europe/Paris", start: 200, end: 200)
        #expect(TimeZoneTimeline(equal).stays == [.init(start: 0, end: 200, zone: 1)])
    }

    /// Any order of queries gives what time order gives, across stays and journeys.
    @Test func queriesInAnyOrderAgreeWithTimeOrder() {
        var ordered = TimeZoneTimeline(Self.trip())
        let times = Array(stride(from: Self.utc(2023, 1, 7, 0, offset: 0), to: Self.utc(2023, 1, 17, 0, offset: 0), by: 1_800))
        let expected = times.map { ordered.offset(at: $0)!.minutes }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<3 {
            var shuffled = TimeZoneTimeline(Self.trip())
            for i in times.indices.shuffled(using: &rng) { #expect(shuffled.offset(at: times[i])?.minutes == expected[i]) }
        }
    }

    /// A sample is spread in at most three calls, however long: the part of its first quarter
    /// hour, its whole quarter hours at an equal share each, the part of its last. A century
    /// (a broken record) costs what an hour does, and nothing is lost.
    @Test func aSampleOfAnyLengthIsSpreadInThreeCallsAtMost() {
        var calls: [(first: Int64, quarters: Int64, value: Double)] = []
        let century: Int64 = 100 * 365 * 86_400
        CumulativeSeries.spread(1_000, over: 0, century, offsetMinutes: 0) { first, quarters, value, _ in
            calls.append((first, quarters, value))
        }
        // 1,000 over 3,504,000 quarter hours: 1,000 / 3,504,000 each.
        #expect(calls.count == 1)
        #expect(calls.first?.first == 0 && calls.first?.quarters == 3_504_000)
        #expect(abs((calls.first?.value ?? 0) - 1_000.0 / 3_504_000) < 1e-15)
        calls = []
        // 450 s to 4,050 s: 450 s of quarter hour 0 (1.25 of 10), quarter hours 1 to 3 whole
        // (2.5 each), 450 s of quarter hour 4 (1.25).
        CumulativeSeries.spread(10, over: 450, 450 + 3_600, offsetMinutes: 60) { first, quarters, value, offset in
            calls.append((first, quarters, value))
            #expect(offset == 60)
        }
        #expect(calls.map(\.first) == [0, 1, 4])
        #expect(calls.map(\.quarters) == [1, 3, 1])
        #expect(calls.map(\.value) == [1.25, 2.5, 1.25])
        calls = []
        // Before 1970: −1,000 s to −100 s lies in quarter hours −2 (its last 100 s, 1 of 9)
        // and −1 (800 s, 8 of 9).
        CumulativeSeries.spread(9, over: -1_000, -100, offsetMinutes: 0) { first, quarters, value, _ in
            calls.append((first, quarters, value))
        }
        #expect(calls.map(\.first) == [-2, -1])
        #expect(calls.map(\.quarters) == [1, 1])
        #expect(calls.map(\.value) == [1, 8])
    }

    @Test func unknownZoneNamesAreCountedNotUsed() {
        var s = TimeZoneSightings()
        s.add("Mars/Olympus_Mons", start: 0, end: 60)
        ByteSpan.withUTF8("Europe/Paris") { s.add($0, start: 100, end: 200) }
        ByteSpan.withUTF8("Europe/Paris") { s.add($0, start: 300, end: 400) }
        s.add("Mars/Olympus_Mons", start: 500, end: 600)   // looked up once, still counted
        s.add(String(repeating: "Europe/", count: 20) + "Paris", start: 700, end: 800)
        #expect(s.unknownNames == 3)
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

    /// Heart rate around the journey west, dated by `DailySummary` with the timeline: each
    /// sample lands on the date worked out above, and the days name their zones.
    @Test func dailyFiguresAreDatedInThePersonsZone() throws {
        let daily = DailySummary(priority: .default)
        let stamped: Int32 = 60   // the export's offset, as real exports stamp every date
        let samples: [(Int64, Double, String)] = [
            (Self.utc(2023, 1, 9, 12, offset: 1), 60, "2023-01-09"),
            (Self.utc(2023, 1, 10, 3, offset: 1), 70, "2023-01-09"),   // over the Atlantic, 21:00 in New York
            (Self.utc(2023, 1, 10, 20, offset: -5), 80, "2023-01-10"),   // 02:00 the 11th at the stamped offset
            (Self.utc(2023, 1, 11, 9, offset: -5), 90, "2023-01-11"),
        ]
        for (t, bpm, _) in samples { daily.heartRate(Timestamp(utcSeconds: t, offsetMinutes: stamped), bpm: bpm) }
        daily.restingHeartRate(Timestamp(utcSeconds: Self.utc(2023, 1, 10, 21, offset: -5), offsetMinutes: stamped), bpm: 50)
        try daily.dateSamples(with: TimeZoneTimeline(Self.trip()))
        var expected: [String: [Double]] = [:]
        for (_, bpm, date) in samples { expected[date, default: []].append(bpm) }
        let days = Dictionary(uniqueKeysWithValues: daily.days.map { (Self.date($0.day), $0.figures) })
        #expect(Set(days.keys) == Set(expected.keys))
        for (date, bpms) in expected {
            #expect(days[date]?.heartRateCount == bpms.count)
            #expect(days[date]?.heartRateSum == bpms.reduce(0, +))
        }
        #expect(days["2023-01-10"]?.restingCount == 1)
        func zones(_ date: String) -> String? {
            guard let f = days[date], f.firstZone >= 0 else { return nil }
            let first = daily.zoneLabels[Int(f.firstZone)], last = daily.zoneLabels[Int(f.lastZone)]
            return first == last ? first : first + ";" + last
        }
        #expect(zones("2023-01-09") == "Europe/Paris;America/New_York")
        #expect(zones("2023-01-10") == "America/New_York")
        #expect(daily.quartersOnStampedOffset == 0)
        #expect(daily.localOffset(at: Self.utc(2023, 1, 11, 9, offset: -5), stamped: stamped) == -300)
    }

    /// Without any zone, each sample keeps the offset stamped on it, and days say so.
    @Test func withoutZonesTheStampedOffsetDates() throws {
        let daily = DailySummary(priority: .default)
        daily.heartRate(Timestamp(utcSeconds: Self.utc(2023, 1, 9, 23, 30, offset: 1), offsetMinutes: 60), bpm: 60)
        daily.heartRate(Timestamp(utcSeconds: Self.utc(2023, 1, 10, 0, 30, offset: 1), offsetMinutes: 60), bpm: 70)
        try daily.dateSamples(with: TimeZoneTimeline(TimeZoneSightings()))
        #expect(daily.days.map { Self.date($0.day) } == ["2023-01-09", "2023-01-10"])
        #expect(daily.zoneLabels == ["+01:00"])
        #expect(daily.quartersOnStampedOffset == 2)
    }
}

/// Whole runs: the zones named in export.xml reach the timeline through the decoder, a
/// workout's route checks its zone, and an export without zones keeps its stamped offsets.
@Suite struct TimeZoneRunTests {
    /// `2023-01-10 21:00:00 +0100`: a UTC instant written at the export's stamped offset.
    static func stamped(_ t: Int64, offsetMinutes: Int32 = 60) -> String {
        let local = Timestamp(utcSeconds: t, offsetMinutes: offsetMinutes)
        let text = Timestamp(utcSeconds: local.localSeconds).utcString   // 2023-01-10T21:00:00Z
        let sign = offsetMinutes < 0 ? "-" : "+"
        return text.prefix(10) + " " + text.dropFirst(11).prefix(8) + " " + sign
            + String(format: "%02d%02d", abs(offsetMinutes) / 60, abs(offsetMinutes) % 60)
    }

    static func heartRate(_ t: Int64, _ bpm: Int, offsetMinutes: Int32 = 60) -> String {
        let d = stamped(t, offsetMinutes: offsetMinutes)
        return
            " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Alex’s Apple Watch\" unit=\"count/min\" startDate=\"\(d)\" endDate=\"\(d)\" value=\"\(bpm)\"/>\n"
    }

    static func night(_ start: Int64, _ end: Int64, zone: String) -> String {
        """
         <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Alex’s Apple Watch" startDate="\(stamped(start))" endDate="\(stamped(end))" value="HKCategoryValueSleepAnalysisInBed">
          <MetadataEntry key="HKTimeZone" value="\(zone)"/>
         </Record>

        """
    }

    func run(_ body: String, files: [(String, String)] = []) throws -> (daily: [String: [String: String]], manifest: Manifest, dir: String) {
        let dir = Support.temporaryDirectory()
        try Support.makeZip(dir + "/export.zip", [("apple_health_export/export.xml", Support.exportXML(body))] + files)
        let manifest = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out"))
        let csv = try Support.readCSV(dir + "/out/daily.csv")
        let daily = Dictionary(uniqueKeysWithValues: csv.rows.map { ($0[0], Dictionary(uniqueKeysWithValues: zip(csv.header, $0))) })
        return (daily, manifest, dir)
    }

    /// A night in Paris, a night in New York, and a run in Central Park whose watch still said
    /// Paris: the run's zone is not a sighting, so an evening in New York stays on New York's
    /// date (taken as a sighting, the run would have put it on the next day).
    @Test func sleepZonesDateTheDaysAndARouteOverrulesAStaleWorkoutZone() throws {
        let utc = TimeZoneTimelineTests.utc
        var body = Self.heartRate(utc(2023, 1, 9, 12, 0, 1), 60)   // noon in Paris
        body += Self.heartRate(utc(2023, 1, 10, 20, 0, -5), 80)   // 20:00 in New York: 02:00 the 11th stamped
        body += Self.night(utc(2023, 1, 8, 23, 0, 1), utc(2023, 1, 9, 7, 0, 1), zone: "Europe/Paris")
        body += Self.night(utc(2023, 1, 9, 23, 0, -5), utc(2023, 1, 10, 7, 0, -5), zone: "America/New_York")
        let runStart = utc(2023, 1, 10, 19, 30, -5)   // 01:30 the 11th in Paris
        body += """
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="Alex’s Apple Watch" startDate="\(Self.stamped(runStart))" endDate="\(Self.stamped(runStart + 1_800))">
              <MetadataEntry key="HKTimeZone" value="Europe/Paris"/>
              <WorkoutRoute sourceName="Alex’s Apple Watch" startDate="\(Self.stamped(runStart))" endDate="\(Self.stamped(runStart + 1_800))">
               <FileReference path="/workout-routes/route.gpx"/>
              </WorkoutRoute>
             </Workout>

            """
        var gpx = "<gpx><trk><trkseg>\n"
        for k in stride(from: Int64(0), through: 1_800, by: 10) {
            gpx +=
                "<trkpt lat=\"40.785\" lon=\"\(String(format: "%.5f", -73.968 + Double(k) * 0.00003))\"><time>\(Timestamp(utcSeconds: runStart + k).utcString)</time></trkpt>\n"
        }
        gpx += "</trkseg></trk></gpx>\n"
        let (daily, manifest, dir) = try run(body, files: [("apple_health_export/workout-routes/route.gpx", gpx)])
        // The run itself is in the person's zone: New York's evening, not Paris's night.
        let workouts = try Support.readCSV(dir + "/out/workouts.csv")
        #expect(workouts.rows.first?[workouts.header.firstIndex(of: "utc_offset")!] == "-05:00")
        #expect(daily["2023-01-10"]?["workouts"] == "1")
        let zones = manifest.normalisation.timeZones
        #expect(zones.routeContradictions == 1)
        #expect(zones.sightings == 2 && zones.stays == 2 && zones.zones == 2)
        #expect(daily["2023-01-10"]?["avg_hr"] == "80")
        #expect(daily["2023-01-10"]?["time_zone"] == "America/New_York")
        #expect(daily["2023-01-11"] == nil)
        #expect(daily["2023-01-09"]?["time_zone"] == "Europe/Paris")
    }

    /// No `HKTimeZone` anywhere: each sample's stamped offset dates it, and the days say so.
    @Test func withoutZonesTheStampedOffsetsStay() throws {
        let utc = TimeZoneTimelineTests.utc
        var body = Self.heartRate(utc(2023, 7, 1, 23, 30, 2), 60, offsetMinutes: 120)
        body += Self.heartRate(utc(2023, 7, 2, 0, 30, 2), 70, offsetMinutes: 120)
        let (daily, manifest, _) = try run(body)
        #expect(daily.keys.sorted() == ["2023-07-01", "2023-07-02"])
        #expect(daily.values.allSatisfy { $0["time_zone"] == "+02:00" })
        #expect(manifest.normalisation.timeZones.quarterHoursOnStampedOffset == 2)
        #expect(manifest.normalisation.timeZones.sightings == 0)
    }
}
