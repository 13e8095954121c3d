import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit
@testable import HealthTrailSynth

/// Counts and sums that cannot be negative are published clamped at 0, their interval cut at 0
/// and their error bar kept; the figure as drawn stays beside them. Checked row by row against
/// the rule in docs/privacy.md, on two years of weeks of which the 20 days of data fill three:
/// hundreds of partitions whose true figure is 0, so that negative draws are certain.
@Suite struct PostProcessingTests {
    /// A count, a sum bounded below by 0 and a sum whose bounds straddle 0, all weekly over two years.
    static let spec = """
        budget: {epsilon: 3.0}
        releases:
          - {id: runs_per_week, metric: workouts.count, aggregate: count, partition: activity_week, activities: [running, walking],
             privacy_unit: workout, from: 2023-01-02, to: 2024-12-29, max_partitions: 1, max_contributions: 1, mechanism: laplace, epsilon: 0.5}
          - {id: weekly_steps, metric: daily.steps, aggregate: sum, partition: week, lower: 0, upper: 40000, resolution: 10,
             privacy_unit: day, from: 2023-01-02, to: 2024-12-29, max_partitions: 1, max_contributions: 1, mechanism: laplace, epsilon: 0.5}
          - {id: signed_steps, metric: daily.steps, aggregate: sum, partition: week, lower: -10, upper: 10,
             privacy_unit: day, from: 2023-01-02, to: 2024-12-29, max_partitions: 1, max_contributions: 1, mechanism: laplace, epsilon: 0.5}

        """

    @Test func countsAndSumsThatCannotBeNegativeAreClampedAtZero() throws {
        let dir = Support.temporaryDirectory()
        try Self.spec.write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
        try ReleaseRunnerTests().runExport(seed: 3, into: dir)
        _ = try ReleaseRunner.run(
            spec: try ReleaseSpec.load(path: dir + "/spec.yaml"), dataDirectory: dir + "/out", outputDirectory: dir + "/out/dp",
            ledger: .testing(dir + "/ledger.jsonl"))

        for id in ["runs_per_week", "weekly_steps", "signed_steps"] {
            let csv = try Support.readCSV(dir + "/out/dp/\(id).csv")
            #expect(csv.header == ReleaseRunner.columns)
            func column(_ name: String) -> Int { csv.header.firstIndex(of: name)! }
            var clamped = 0, negative = 0
            for row in csv.rows {
                let (value, low, high) = (Double(row[column("value")])!, Double(row[column("ci95_low")])!, Double(row[column("ci95_high")])!)
                let (drawn, error) = (Double(row[column("drawn_value")])!, Double(row[column("error95")])!)
                if drawn < 0 { negative += 1 }
                if id == "signed_steps" {
                    // Bounds either side of 0: nothing to clamp.
                    #expect(value == drawn && row[column("post_processing")] == "", "\(row)")
                    #expect(abs(low - (drawn - error)) < 0.002 && abs(high - (drawn + error)) < 0.002, "\(row)")
                    continue
                }
                #expect(value == max(0, drawn), "\(id): \(row)")
                #expect(row[column("post_processing")] == (drawn < 0 ? "clamped at 0" : ""), "\(id): \(row)")
                #expect(abs(low - max(0, drawn - error)) < 0.002 && abs(high - max(0, drawn + error)) < 0.002, "\(id): \(row)")
                #expect(error > 0)
                if drawn < 0 { clamped += 1 }
            }
            #expect(negative > 0, "\(id): no negative draw in \(csv.rows.count) partitions")
            if id != "signed_steps" { #expect(clamped == negative) }
        }
    }
}
