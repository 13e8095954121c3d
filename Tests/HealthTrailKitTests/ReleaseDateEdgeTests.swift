import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit
@testable import HealthTrailRun
@testable import HealthTrailSynth

/// A release counts exactly the data its `from` and `to` declare: weekly partitions are the ISO
/// weeks wholly inside the range (a cut week is left out with its days), day partitions the
/// days of the range, and a density release the workouts that started within it. The bounded
/// totals are compared with a reference computed here from the run's CSVs with Foundation's
/// ISO 8601 calendar.
@Suite struct ReleaseDateEdgeTests {
    /// One synthesized person's run outputs (40 days from 2023-01-01), made once.
    static let run: String = {
        let dir = Support.temporaryDirectory()
        _ = try! ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 40, seed: 5))
        _ = try! ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out"))
        return dir + "/out"
    }()

    static func release(_ fields: String) throws -> ReleaseSpec.Release {
        let path = Support.temporaryDirectory() + "/spec.yaml"
        try "releases:\n  - {\(fields)}\n".write(toFile: path, atomically: true, encoding: .utf8)
        return try ReleaseSpec.load(path: path).releases[0]
    }

    /// The local start date of every workout of `workouts.csv`, read with Foundation.
    static func workoutDates() throws -> [(id: String, date: DateComponents)] {
        let csv = try Support.readCSV(run + "/workouts.csv")
        let id = csv.header.firstIndex(of: "workout_id")!, start = csv.header.firstIndex(of: "start_utc")!
        let offset = csv.header.firstIndex(of: "utc_offset")!
        let parser = ISO8601DateFormatter()
        return csv.rows.map { row in
            let text = row[offset]
            let sign = text.hasPrefix("-") ? -1 : 1
            let seconds = sign * (Int(text.dropFirst().prefix(2))! * 3600 + Int(text.suffix(2))! * 60)
            var calendar = Calendar(identifier: .iso8601)
            calendar.timeZone = TimeZone(secondsFromGMT: seconds)!
            let date = calendar.dateComponents([.year, .month, .day, .yearForWeekOfYear, .weekOfYear], from: parser.date(from: row[start])!)
            return (row[id], date)
        }
    }

    /// From Tuesday 2023-01-03 to Wednesday 2023-01-25: only 2023-W02 and W03 are whole, so the
    /// workouts of Jan 3–8 and Jan 23–25 count nowhere.
    @Test func weeklyPartitionsAreTheWholeWeeksInsideTheRange() throws {
        let release = try Self.release(
            "id: w, metric: workouts.count, aggregate: count, partition: week, from: 2023-01-03, to: 2023-01-25, "
                + "privacy_unit: workout, max_partitions: 1, max_contributions: 1, mechanism: laplace, epsilon: 1")
        #expect(PublicPartitions.keys(for: release) == ["2023-W02", "2023-W03"])
        let totals = try ContributionBounding.totals(for: release, runDirectory: Self.run, person: "self")

        var expected: [String: Int64] = [:]
        for (_, date) in try Self.workoutDates() where date.year == 2023 && date.month == 1 && (9...22).contains(date.day!) {
            expected[String(format: "%04d-W%02d", date.yearForWeekOfYear!, date.weekOfYear!), default: 0] += 1
        }
        #expect(expected.values.reduce(0, +) > 5)
        #expect(totals.counts == expected)
        // The cut weeks hold workouts that a week-rounding release would have counted.
        let cut = try Self.workoutDates().filter { $0.date.month == 1 && [3, 4, 5, 6, 7, 8, 23, 24, 25].contains($0.date.day!) }
        #expect(!cut.isEmpty)
    }

    /// Monthly partitions are the calendar months wholly inside the range: from 2023-01-01 to
    /// 2023-02-20, January only; activity × month likewise; published each month (cadence
    /// month) from the second day after it ends.
    @Test func monthlyPartitionsAreTheWholeMonthsInsideTheRange() throws {
        let release = try Self.release(
            "id: m, metric: workouts.count, aggregate: count, partition: activity_month, activities: [running, walking], "
                + "cadence: month, from: 2022-12-15, to: 2023-02-20, privacy_unit: workout, max_partitions: 1, "
                + "max_contributions: 1, mechanism: laplace, epsilon: 1")
        #expect(PublicPartitions.keys(for: release) == ["running|2023-01", "walking|2023-01"])
        let totals = try ContributionBounding.totals(for: release, runDirectory: Self.run, person: "self")
        var expected: [String: Int64] = [:]
        let activities = try Support.readCSV(Self.run + "/workouts.csv")
        let activity = activities.header.firstIndex(of: "activity")!
        for ((_, date), row) in zip(try Self.workoutDates(), activities.rows) where date.year == 2023 && date.month == 1 {
            guard ["running", "walking"].contains(row[activity]) else { continue }
            expected[row[activity] + "|2023-01", default: 0] += 1
        }
        #expect(expected.values.reduce(0, +) > 5)
        #expect(totals.counts == expected)
        let publications = Publication.all(of: release)
        #expect(publications.map(\.period.description) == ["2023-01-01…2023-01-31"])
        #expect(publications.map { Publication.date($0.publishableFrom) } == ["2023-02-02"])

        // Twelve monthly publications of a year, each with its own month's key.
        let year = try Self.release(
            "id: y, metric: daily.steps, aggregate: sum, partition: month, cadence: month, from: 2024-01-01, to: 2024-12-31, "
                + "privacy_unit: day, lower: 0, upper: 10, max_partitions: 1, max_contributions: 1, mechanism: laplace, epsilon: 1")
        let months = Publication.all(of: year)
        #expect(months.map(\.keys) == (1...12).map { [String(format: "2024-%02d", $0)] })
        #expect(months[1].period.description == "2024-02-01…2024-02-29")

        // Day partitions published weekly: only the whole weeks, so a `to` that moves on never
        // makes a cut week be drawn again whole. Wednesday 2024-01-03 to Wednesday 2024-01-24.
        let days = try Self.release(
            "id: d, metric: daily.steps, aggregate: count, partition: day, cadence: week, from: 2024-01-03, to: 2024-01-24, "
                + "privacy_unit: day, max_partitions: 1, max_contributions: 1, mechanism: laplace, epsilon: 1")
        let weeks = Publication.all(of: days)
        #expect(weeks.map(\.period.description) == ["2024-01-08…2024-01-14", "2024-01-15…2024-01-21"])
        #expect(weeks.map(\.keys.count) == [7, 7] && weeks[0].keys.first == "2024-01-08")
    }

    /// Day partitions: the days of the range, no other.
    @Test func dayPartitionsAreTheDaysOfTheRange() throws {
        let release = try Self.release(
            "id: d, metric: daily.steps, aggregate: count, partition: day, from: 2023-01-05, to: 2023-01-07, "
                + "privacy_unit: day, max_partitions: 1, max_contributions: 1, mechanism: laplace, epsilon: 1")
        #expect(PublicPartitions.keys(for: release) == ["2023-01-05", "2023-01-06", "2023-01-07"])
        let totals = try ContributionBounding.totals(for: release, runDirectory: Self.run, person: "self")
        #expect(totals.counts == ["2023-01-05": 1, "2023-01-06": 1, "2023-01-07": 1])
    }

    /// Density: disjoint ranges split the workouts, so their cell counts add up to the whole
    /// range's (each workout is its own unit); a range with no workout counts nothing.
    @Test func densityCountsTheWorkoutsThatStartedInTheRange() throws {
        func counts(_ from: String, _ to: String) throws -> [Int64] {
            let release = try Self.release(
                "id: m, metric: routes, aggregate: density, area: [48.7, 2.1, 49.0, 2.6], cells: 12, partition: week, "
                    + "from: \(from), to: \(to), privacy_unit: workout, max_partitions: 60, max_contributions: 1, "
                    + "mechanism: laplace, epsilon: 1")
            return try DensityRelease.bounded(release, runDirectory: Self.run).counts
        }
        let whole = try counts("2023-01-01", "2023-02-28")
        let early = try counts("2023-01-01", "2023-01-15"), late = try counts("2023-01-16", "2023-02-28")
        #expect(whole.reduce(0, +) > 0 && early.reduce(0, +) > 0 && late.reduce(0, +) > 0)
        #expect(zip(early, late).map { $0 + $1 } == whole)
        #expect(try counts("2030-01-01", "2030-12-31").allSatisfy { $0 == 0 })
    }
}
