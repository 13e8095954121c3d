import Foundation
import Testing

@testable import HealthTrailArchive
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
    }

    @Test(arguments: [
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
