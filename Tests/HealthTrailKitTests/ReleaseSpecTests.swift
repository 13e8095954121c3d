import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailKit

@Suite struct ReleaseSpecTests {
    @Test func theShippedSpecLoads() throws {
        let spec = try ReleaseSpec.load(path: Support.packageRoot.appendingPathComponent("pipelines/releases.yaml").path)
        #expect(
            spec.releases.map(\.id) == [
                "monthly_resting_hr", "monthly_sleep_per_night", "workouts_per_activity_month",
                "distance_per_activity_month", "density",
            ])
        #expect(spec.budget?.rho == 2 && spec.budget?.epsilon == nil)   // mixed mechanisms: a zCDP budget
        #expect(spec.releases[3].mechanism == .gaussian && spec.releases[3].rho == 0.25)
        #expect(spec.releases.prefix(4).allSatisfy { $0.cadence == .month })
        #expect(spec.releases[4].cadence == .year)
    }

    /// `last complete year` is the calendar year before today's, whatever today is: on
    /// 1 January, 31 December and 29 February.
    @Test(arguments: [("2026-01-01", "2025"), ("2026-12-31", "2025"), ("2024-02-29", "2023")])
    func lastCompleteYearIsTheCalendarYearBefore(_ today: String, _ year: String) {
        let day = PublicPartitions.day(today)!
        #expect(Publication.date(ReleaseDates.relativeDay("last complete year", end: .from, today: day)!) == year + "-01-01")
        #expect(Publication.date(ReleaseDates.relativeDay("last complete year", end: .to, today: day)!) == year + "-12-31")
    }

    /// A density map rolls on by calendar year: one map per file, so its dates are one whole
    /// year; it is due on 2 January of the next (the second day after it ends).
    @Test func aDensityMapRollsOnByCalendarYear() throws {
        func density(_ from: String, _ to: String, cadence: String = "year") throws -> ReleaseSpec.Release? {
            let yaml = """
                releases:
                  - {id: map, metric: routes, aggregate: density, area: [48.8, 2.25, 48.92, 2.42], cells: 10, partition: week,
                     cadence: \(cadence), from: \(from), to: \(to), privacy_unit: workout, max_partitions: 6,
                     max_contributions: 1, mechanism: laplace, epsilon: 1}

                """
            let path = Support.temporaryDirectory() + "/density.yaml"
            try yaml.write(toFile: path, atomically: true, encoding: .utf8)
            return try ReleaseSpec.load(path: path, asOf: "2026-11-28").releases.first
        }
        let map = try #require(try density("last complete year", "last complete year"))
        #expect(map.from == "2025-01-01" && map.to == "2025-12-31")
        let publications = Publication.all(of: map)
        #expect(publications.map(\.period.first) == ["2025-01-01"] && publications.map(\.period.last) == ["2025-12-31"])
        #expect(publications.map { Publication.date($0.publishableFrom) } == ["2026-01-02"])
        // Two years in one file, or a month's map, are refused with the reason.
        for (from, to, cadence, words) in [
            ("2024-01-01", "2025-12-31", "year", "one calendar year"), ("2025-02-01", "2026-01-31", "year", "one calendar year"),
            ("6 months ago", "last complete month", "month", "each calendar year"),
        ] {
            let error = #expect(throws: InputError.self) { try density(from, to, cadence: cadence) }
            #expect(error?.message.contains(words) == true, "\(error?.message ?? "")")
        }
    }

    /// Relative dates on a Friday, 2026-11-27, worked out on a calendar.
    @Test(arguments: [
        ("today", "2026-11-27", "today", "2026-11-27"),
        ("3 days ago", "2026-11-24", "1 day ago", "2026-11-26"),
        ("6 months ago", "2026-05-01", "last complete month", "2026-10-31"),
        ("26 weeks ago", "2026-05-25", "last complete week", "2026-11-22"),
        ("1 year ago", "2025-11-01", "1 month ago", "2026-10-31"),
        ("2 months ago", "2026-09-01", "1 week ago", "2026-11-22"),
    ])
    func relativeDatesFollowTheCalendar(_ from: String, _ fromDate: String, _ to: String, _ toDate: String) throws {
        let yaml = """
            releases:
              - {id: x, metric: daily.steps, aggregate: count, partition: day, cadence: week, from: \(from), to: \(to),
                 privacy_unit: day, max_partitions: 1, max_contributions: 1, mechanism: laplace, epsilon: 1}

            """
        let path = Support.temporaryDirectory() + "/relative.yaml"
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        let release = try #require(try ReleaseSpec.load(path: path, asOf: "2026-11-27").releases.first)
        #expect(release.from == fromDate && release.to == toDate)
    }

    /// A leap year's February, and a month back from a month's 31st.
    @Test func monthsBackEndOnTheMonthsLastDay() {
        let march31 = PublicPartitions.day("2024-03-31")!
        #expect(Publication.date(ReleaseDates.relativeDay("1 month ago", end: .to, today: march31)!) == "2024-02-29")
        #expect(Publication.date(ReleaseDates.relativeDay("1 month ago", end: .from, today: march31)!) == "2024-02-01")
        #expect(Publication.date(ReleaseDates.relativeDay("13 months ago", end: .to, today: march31)!) == "2023-02-28")
        #expect(ReleaseDates.relativeDay("6 moons ago", end: .from, today: march31) == nil)
        #expect(ReleaseDates.relativeDay("2024-01-01", end: .from, today: march31) == nil)
    }

    /// The shipped spec's monthly releases are the last six whole months: on 2023-07-05, January
    /// to June 2023, all due; its density map is the last whole calendar year.
    @Test func theShippedSpecRollsOnWithTheMonths() throws {
        let path = Support.packageRoot.appendingPathComponent("pipelines/releases.yaml").path
        let spec = try ReleaseSpec.load(path: path, asOf: "2023-07-05")
        for release in spec.releases.prefix(4) {
            #expect(release.from == "2023-01-01" && release.to == "2023-06-30", "\(release.id)")
            #expect(Publication.all(of: release).map(\.period.first) == (1...6).map { "2023-0\($0)-01" })
        }
        let later = try ReleaseSpec.load(path: path, asOf: "2024-02-10")
        #expect(later.releases.prefix(4).allSatisfy { $0.from == "2023-08-01" && $0.to == "2024-01-31" })
        #expect(spec.releases[4].from == "2022-01-01" && later.releases[4].from == "2023-01-01" && later.releases[4].to == "2023-12-31")
    }

    /// `--plan` warns when a release's noise swamps the value it declares it expects, worked by
    /// hand: a count at ε 0.5 with K = M = 1 is ±6 at 95 % (discrete Laplace of scale 2: the
    /// smallest t with e^(−t/2) ≤ 0.05 is 6), so an expected 6 is swamped and 7 is not; a mean
    /// of [40, 90] at ε 1 (0.5 each to count and centred sum, sensitivity 25) has a sum error of
    /// ±150 and a count error of ±6, so 5 values are swamped (count) and so are 6 (±25 against a
    /// half-range of 25), while 7 are not (±21.4). `expected` is no term of the release: it
    /// changes neither the partial's fingerprint nor the ledger's.
    @Test(arguments: [("count", 6.0, true), ("count", 7.0, false), ("mean", 5, true), ("mean", 6, true), ("mean", 7, false)])
    func thePlanWarnsWhenTheNoiseSwampsTheExpectedValue(_ aggregate: String, _ expected: Double, _ warns: Bool) throws {
        let mean = aggregate == "mean"
        let yaml = """
            releases:
              - {id: x, metric: \(mean ? "daily.resting_hr" : "workouts.count"), aggregate: \(aggregate), partition: week,
                 from: 2024-01-01, to: 2024-01-28, privacy_unit: \(mean ? "day" : "workout"), max_partitions: 1, max_contributions: 1,
                 mechanism: laplace, epsilon: \(mean ? 1 : 0.5)\(mean ? ", lower: 40, upper: 90" : ""), expected: \(expected)}

            """
        let path = Support.temporaryDirectory() + "/plan.yaml"
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        let spec = try ReleaseSpec.load(path: path)
        let plan = try ReleasePlan(spec: spec)
        #expect((plan.releases[0].warning != nil) == warns, "\(plan.text)")
        #expect(plan.text.contains("warning: release x:") == warns)
        var undeclared = spec
        undeclared.releases[0].expected = nil
        #expect(try PartialAggregate.specFingerprint(of: spec) == PartialAggregate.specFingerprint(of: undeclared))
    }

    @Test(arguments: [
        ("not expected", "aggregate: count\n    expected: -3", "expected must be a positive"),
        ("relative once", "aggregate: count\n    from: 6 months ago\n    to: last complete month", "relative dates roll on"),
        ("unknown phrase", "aggregate: count\n    cadence: week\n    from: 6 moons ago", "relative dates"),
        ("bounds", "aggregate: sum\n    lower: 10\n    upper: 5", "lower < upper"),
        ("epsilon", "aggregate: count\n    epsilon: 0", "epsilon"),
        ("dates", "aggregate: count\n    from: 2024-05-01\n    to: 2024-01-01", "from ≤ to"),
        ("metric", "aggregate: count\n    metric: records.step_count", "metric"),
        ("negative resolution", "aggregate: sum\n    lower: 0\n    upper: 20000\n    resolution: -0.001", "resolution"),
        ("zero resolution", "aggregate: sum\n    lower: 0\n    upper: 20000\n    resolution: 0", "resolution"),
        ("huge bounds", "aggregate: sum\n    lower: 0\n    upper: 1e300\n    resolution: 1", "10^12"),
        ("no whole week", "aggregate: count\n    from: 2024-01-02\n    to: 2024-01-07", "no whole ISO week"),
        ("no whole month", "aggregate: count\n    partition: month\n    from: 2024-01-02\n    to: 2024-02-20", "no whole calendar month"),
        ("cadence across partitions", "aggregate: count\n    cadence: month", "cadence month publishes whole months"),
        ("activity twice", "aggregate: count\n    partition: activity_week\n    activities: [running, walking, running]", "listed twice"),
        ("id beyond ASCII", "aggregate: count\n    id: dé_jan", "ASCII letters"),
    ])
    func mistakesAreNamed(_ name: String, _ override: String, _ message: String) throws {
        var fields: [String: String] = [
            "id": "x", "metric": "daily.steps", "partition": "week", "from": "2024-01-01",
            "to": "2024-02-01", "privacy_unit": "day", "max_partitions": "1",
            "max_contributions": "1", "mechanism": "laplace", "epsilon": "1",
        ]
        for line in override.split(separator: "\n") {
            let kv = line.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1)
            fields[String(kv[0])] = kv[1].trimmingCharacters(in: .whitespaces)
        }
        let yaml = "releases:\n  - " + fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n    ") + "\n"
        let path = Support.temporaryDirectory() + "/\(name).yaml"
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: InputError.self) { try ReleaseSpec.load(path: path) }
        #expect(error?.file == path)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }
}
