import Foundation
import HealthTrailTestSupport

@testable import HealthTrailKit
@testable import HealthTrailRun
@testable import HealthTrailSynth

/// Twenty people's run folders, each from the project's generator with its own seed and run by
/// the real `ExportRun`, made once per test process and shared by the cohort tests.
struct CohortFixture: @unchecked Sendable {
    /// A laplace release of weekly step sums over January 2023 (ρ 0.125), as YAML list lines.
    static let weeklyStepsRelease = """
          - id: weekly_steps
            metric: daily.steps
            aggregate: sum
            partition: week
            from: 2023-01-02
            to: 2023-01-29
            privacy_unit: day
            lower: 0
            upper: 40000
            resolution: 10
            max_partitions: 1
            max_contributions: 1
            mechanism: laplace
            epsilon: 0.5
        """

    /// Five releases, one of each kind: a day-unit sum and mean, a workout-unit count, a
    /// person-unit sum whose K = 3 truncates (people have workouts on more days), a density.
    static let specText = """
        budget:
          rho: 4.0
        releases:
        \(weeklyStepsRelease)
          - id: weekly_resting_hr
            metric: daily.resting_hr
            aggregate: mean
            partition: week
            from: 2023-01-02
            to: 2023-01-29
            privacy_unit: day
            lower: 35
            upper: 110
            resolution: 1
            max_partitions: 1
            max_contributions: 1
            mechanism: laplace
            epsilon: 0.5
          - id: workouts_per_activity_week
            metric: workouts.count
            aggregate: count
            partition: activity_week
            activities: [cycling, running, walking]
            from: 2023-01-02
            to: 2023-01-29
            privacy_unit: workout
            max_partitions: 1
            max_contributions: 1
            mechanism: gaussian
            rho: 0.25
          - id: distance_per_person_day
            metric: workouts.route_distance_m
            aggregate: sum
            partition: day
            from: 2023-01-02
            to: 2023-01-29
            privacy_unit: person
            lower: 0
            upper: 30000
            resolution: 100
            max_partitions: 3
            max_contributions: 1
            mechanism: laplace
            epsilon: 0.5
          - id: route_density
            metric: routes
            aggregate: density
            area: [48.80, 2.25, 48.92, 2.42]
            cells: 20
            partition: week
            from: 2023-01-02
            to: 2023-01-29
            privacy_unit: workout
            max_partitions: 5
            max_contributions: 1
            mechanism: laplace
            epsilon: 0.5

        """

    /// The folder holding everything.
    let root: String
    let specPath: String
    let spec: ReleaseSpec
    /// Each person's pseudonym and run folder.
    let people: [(name: String, directory: String)]
    /// Each person's partial aggregate, in `people` order.
    let partials: [PartialAggregate]

    /// The shared cohort; the first call builds it (about a second a person).
    static func shared() throws -> CohortFixture { try made.get() }

    private static let made = Result { try CohortFixture(count: 20, days: 12) }

    private init(count: Int, days: Int) throws {
        root = Support.temporaryDirectory("cohort")
        specPath = root + "/spec.yaml"
        try Self.specText.write(toFile: specPath, atomically: true, encoding: .utf8)
        spec = try ReleaseSpec.load(path: specPath)
        try PseudonymKey.generate(at: root + "/cohort.key")
        let key = try PseudonymKey(path: root + "/cohort.key")
        var people: [(String, String)] = []
        for i in 0..<count {
            let zip = root + "/export-\(i).zip", directory = root + "/person-\(i)"
            _ = try ExportSynthesizer.write(to: zip, options: SynthOptions(days: days, seed: 500 + UInt64(i)))
            var options = RunOptions(inputPath: zip, outputDirectory: directory)
            options.maps = nil
            _ = try ExportRun.run(options)
            try FileManager.default.removeItem(atPath: zip)
            people.append((key.pseudonym(for: "person-\(i)"), directory))
        }
        self.people = people
        let spec = spec
        partials = try people.map { try PartialAggregate.build(spec: spec, runDirectory: $0.1, person: $0.0) }
    }
}

extension PartialAggregate {
    /// The encoded file as `Data`: compared byte for byte, printed as a size when they differ.
    var bytes: Data { Data(encode()) }
}
