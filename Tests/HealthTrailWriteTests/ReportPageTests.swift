import Foundation
import HealthTrailBase
import Testing

@testable import HealthTrailWrite

/// `report.html`'s writer on small inputs whose answers are worked out by hand.
@Suite struct ReportPageTests {
    /// 2024-01-01, a Monday, as days since 1970-01-01.
    let monday = Timestamp.daysFromCivil(year: 2024, month: 1, day: 1)

    @Test func pacesAndDurationsReadAsClockTimes() {
        #expect(ReportFormat.pace(307.4) == "5:07")
        #expect(ReportFormat.pace(359.6) == "6:00")
        #expect(ReportFormat.pace(61) == "1:01")
        #expect(ReportFormat.hoursMinutes(minutes: 452) == "7:32")
        #expect(ReportFormat.hoursMinutes(minutes: 59.6) == "1:00")
        #expect(ReportFormat.hoursMinutes(minutes: 5) == "0:05")
        #expect(ReportFormat.duration(1544) == "25:44")
        #expect(ReportFormat.duration(3725) == "1:02:05")
        #expect(ReportFormat.grouped(8432) == "8,432")
        #expect(ReportFormat.grouped(1_234_567) == "1,234,567")
        #expect(ReportFormat.grouped(999) == "999")
        #expect(ReportFormat.value(61.54) == "61.5")
        #expect(ReportFormat.value(0) == "0")
    }

    @Test func datesAndWeekdays() {
        #expect(CalendarHeatmapSVG.parseDay("2024-01-01") == monday)
        #expect(CalendarHeatmapSVG.parseDay("2024-02-30") == nil)
        #expect(ReportFormat.date(day: monday + 31) == "2024-02-01")
        #expect(ReportFormat.weekday(day: monday) == 0)
        #expect(ReportFormat.weekday(day: monday + 6) == 6)   // Sunday 2024-01-07
        #expect(ReportFormat.weekday(day: 0) == 3)   // 1970-01-01, a Thursday
        #expect(ReportFormat.weekday(day: -1) == 2)
        #expect(ReportFormat.localDateTime(1_704_067_200 + 3600 * 23 + 60 * 30, offsetMinutes: 60) == "2024-01-02 00:30")
    }

    @Test func rollingMeanIsTheMeanOfTheLastValues() {
        // By hand: 1; (1+2)/2; (1+2+3)/3; (2+3+4)/3; (3+4+5)/3.
        #expect(TrendSeries.rollingMean([1, 2, 3, 4, 5], window: 3) == [1, 1.5, 2, 3, 4])
        #expect(TrendSeries.rollingMean([4, 8], window: 1) == [4, 8])
        #expect(TrendSeries.rollingMean([], window: 4) == [])
    }

    @Test func weeksRunMondayToSundayAndMonthsByCalendar() {
        // Monday 10 and Sunday 20 share a week (mean 15); the next Monday starts another.
        let values: [(day: Int64, value: Double)] = [(monday + 7, 40), (monday, 10), (monday + 6, 20), (monday + 31, 5)]
        #expect(
            TrendSeries.means(values, by: .week) == [
                .init(start: monday, mean: 15, days: 2), .init(start: monday + 7, mean: 40, days: 1),
                .init(start: monday + 28, mean: 5, days: 1),
            ])
        #expect(
            TrendSeries.means(values, by: .month) == [
                .init(start: monday, mean: 70.0 / 3, days: 3), .init(start: monday + 31, mean: 5, days: 1),
            ])
        // 2023-12-31 is a Sunday: its week began on Monday 2023-12-25.
        #expect(TrendSeries.Period.week.start(of: monday - 1) == monday - 7)
        // Consecutive periods have consecutive numbers: charts leave a gap for a missing one.
        #expect(TrendSeries.Period.week.index(of: monday + 13) - TrendSeries.Period.week.index(of: monday - 1) == 2)
        #expect(TrendSeries.Period.month.index(of: monday + 31) - TrendSeries.Period.month.index(of: monday - 1) == 2)
    }

    @Test func weekdayAveragesDateANightByItsMorning() {
        let nights = [
            ReportNight(day: monday, inBedMinutes: 480, asleepMinutes: 420),   // Sunday → Monday
            ReportNight(day: monday + 7, inBedMinutes: 400, asleepMinutes: 360),   // Sunday → Monday
            ReportNight(day: monday + 1, inBedMinutes: 500, asleepMinutes: 450),   // Monday → Tuesday
        ]
        let averages = ReportPage.weekdayAverages(nights)
        #expect(averages.count == 7)
        #expect(averages[0]?.nights == 2 && averages[0]?.asleep == 390 && averages[0]?.inBed == 440)
        #expect(averages[1]?.nights == 1 && averages[1]?.asleep == 450)
        #expect(averages[2...].allSatisfy { $0 == nil })
        var content = ReportContent()
        content.nights = nights
        let page = String(decoding: ReportPage.render(content), as: UTF8.self)
        // 390 minutes asleep and 440 in bed on Monday's nights: 6:30 and 7:20.
        #expect(page.contains("<th scope=\"row\">Monday (Sunday to Monday)</th><td>2</td><td>6:30</td><td>7:20</td>"))
        #expect(page.contains("Monday is the night from Sunday to Monday"))
    }

    @Test func namesAreEscaped() {
        var content = ReportContent()
        content.workouts = [
            ReportWorkout(
                id: "w1", activity: "running", start: 1_704_067_200, offsetMinutes: 0, duration: 1800, distanceMeters: 5000,
                source: "Alex’s Apple Watch & <b>")
        ]
        content.ecg = [
            ReportECG(
                recorded: 1_704_067_200, offsetMinutes: 0, classification: "Sinus \"Rhythm\"", symptoms: "<script>x</script>", durationSeconds: 30)
        ]
        let page = String(decoding: ReportPage.render(content), as: UTF8.self)
        #expect(page.contains("<dd>Alex’s Apple Watch &amp; &lt;b&gt;</dd>"))
        #expect(page.contains("Sinus &quot;Rhythm&quot;"))
        #expect(page.contains("&lt;script&gt;x&lt;/script&gt;"))
        #expect(!page.contains("<b>"))
        #expect(page.components(separatedBy: "<script>").count == 2)   // the page's own only
        // 1800 s over 5 km: 6:00 per kilometre, in the table and the workout's facts.
        #expect(page.contains("<td data-v=\"360\">6:00</td>"))
        #expect(page.contains("<dd>6:00 /km</dd>"))
    }

    @Test func thePageAsksForNothingOutsideItself() {
        var content = ReportContent()
        content.days = (0..<60).map {
            ReportDay(day: monday + $0, steps: Double(5000 + $0 * 10), restingHR: 60, sleepMinutes: 420, timeZone: "Europe/Paris")
        }
        content.workouts = [ReportWorkout(id: "w1", activity: "running", start: 1_704_067_200, offsetMinutes: 60, duration: 1800)]
        content.routes = ["w1": route(points: 300)]
        let page = String(decoding: ReportPage.render(content), as: UTF8.self)
        #expect(
            page.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src &apos;none&apos;; style-src &apos;unsafe-inline&apos;"))
        for fetch in ["http:", "https:", "src=", "href=\"/", "@import", "url("] {
            #expect(!page.contains(fetch), "\(fetch)")
        }
        // Every figure has a title; every table a caption and header cells with a scope.
        let svgs = page.components(separatedBy: "<svg").dropFirst()
        #expect(svgs.count > 3)
        for svg in svgs { #expect(svg.prefix(while: { $0 != ">" }).contains("role=\"img\"") && svg.contains("<title")) }
        #expect(page.components(separatedBy: "<table").count == page.components(separatedBy: "<caption>").count)
        #expect(!page.contains("<th>"))
    }

    /// A straight run north with heart rate rising from 100 to 160 bpm.
    func route(points: Int) -> ReportRoute {
        var list: [ReportRoute.Point] = []
        for i in 0..<points {
            let k = Double(i)
            let longitude: Double = i % 7 == 0 ? 2.35002 : 2.35
            let bpm: Double = 100 + 60 * k / Double(points - 1)
            list.append(
                ReportRoute.Point(
                    time: 1_704_067_200 + Int64(i), latitude: 48.85 + k * 0.00003, longitude: longitude, elevation: 40, bpm: bpm,
                    distance: k * 3.3))
        }
        return ReportRoute(list)!
    }

    @Test func routesAreThinnedAndColouredByHeartRate() {
        let r = route(points: 2000)
        #expect(r.hoverData.split(separator: ";").count == ReportRoute.hoverPoints)
        #expect(r.thumbnail.split(separator: " ").count <= ReportRoute.thumbnailPoints)
        // The 2nd and 98th percentiles of a ramp from 100 to 160 bpm.
        #expect(abs(r.bpmRange!.lowerBound - 101.2) < 0.1 && abs(r.bpmRange!.upperBound - 158.8) < 0.1)
        // Rising heart rate: paths from the ramp's first step to its last, each two steps above
        // the one before (a path goes on through the step next to its own).
        let steps = r.mapPaths.components(separatedBy: "class=\"h").dropFirst().compactMap { Int($0.prefix(while: \.isNumber)) }
        #expect(steps.first == 0 && steps.last! >= ReportRoute.colourSteps - 2)
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $1 - $0 == 2 })
        #expect(!r.mapPaths.contains("nohr"))
        // The first hover point: 0 s, 100 bpm, 1000 / 3.3 ≈ 303 s per km, 40 m.
        let first = r.hoverData.split(separator: ";")[0].split(separator: ",", omittingEmptySubsequences: false)
        #expect(first[2...] == ["0", "100", "303", "40"])
        #expect(ReportRoute([]) == nil)
    }
}
