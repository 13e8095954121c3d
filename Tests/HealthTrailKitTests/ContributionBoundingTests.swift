import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit

@Suite struct ContributionBoundingTests {
    func release(
        _ aggregate: ReleaseSpec.Aggregate, unit: ReleaseSpec.PrivacyUnit = .workout, partition: ReleaseSpec.PartitionKind = .week,
        k: Int = 2, m: Int = 3, lower: Double? = nil, upper: Double? = nil
    ) -> ReleaseSpec.Release {
        ReleaseSpec.Release(
            id: "r", metric: "workouts.avg_hr", aggregate: aggregate, partition: partition, from: "2024-01-01",
            to: "2024-03-31", activities: nil, privacyUnit: unit, lower: lower, upper: upper, resolution: 1,
            maxPartitions: k, maxContributions: m, mechanism: .laplace, epsilon: 1, rho: nil)
    }

    @Test func isoWeeksFollowTheStandard() {
        func week(_ date: String) -> String { PublicPartitions.isoWeek(PublicPartitions.day(date)!) }
        #expect(week("2024-01-01") == "2024-W01")   // a Monday
        #expect(week("2023-01-01") == "2022-W52")   // a Sunday belongs to the previous ISO year
        #expect(week("2020-12-31") == "2020-W53")
        #expect(week("2021-01-03") == "2020-W53")
        #expect(week("2026-12-31") == "2026-W53")
        let keys = PublicPartitions.keys(for: release(.count))
        #expect(keys.first == "2024-W01" && keys.last == "2024-W13" && keys.count == 13)
    }

    /// One person with hundreds of workouts a day at 250 bpm changes each released total by at most
    /// the sensitivity the noise is scaled to: K·M for counts, K·M·B for sums, across all partitions.
    @Test(arguments: [ReleaseSpec.Aggregate.count, .sum, .mean])
    func anAdversarialPersonStaysWithinTheSensitivity(_ aggregate: ReleaseSpec.Aggregate) throws {
        let r = release(aggregate, unit: .person, k: 2, m: 3, lower: 40, upper: 200)
        let keys = Set(PublicPartitions.keys(for: r))
        var honest: [Contribution] = []
        for p in 0..<40 {
            for w in 0..<5 { honest.append(Contribution(unit: "p\(p)", partition: "2024-W0\(1 + (p + w) % 9)", value: Double(120 + w))) }
        }
        var adversary = honest
        for day in 0..<90 {
            for n in 0..<300 {   // 300 workouts a day, each at 250 bpm, in every week and in a non-public one
                adversary.append(
                    Contribution(
                        unit: "mallory", partition: PublicPartitions.isoWeek(PublicPartitions.day("2024-01-01")! + Int64(day)),
                        value: 250 + Double(n)))
            }
        }
        adversary.append(Contribution(unit: "mallory", partition: "2031-W01", value: 1e9))
        let a = try ContributionBounding.bound(honest, release: r, publicKeys: keys)
        let b = try ContributionBounding.bound(adversary, release: r, publicKeys: keys)
        let countChange = keys.reduce(Int64(0)) { $0 + abs((b.counts[$1] ?? 0) - (a.counts[$1] ?? 0)) }
        #expect(countChange <= Int64(r.maxPartitions * r.maxContributions))
        #expect(countChange == Int64(r.maxPartitions * r.maxContributions))   // the bound is reached, not beaten
        let sumChange = keys.reduce(Int64(0)) { $0 + abs((b.sums[$1] ?? 0) - (a.sums[$1] ?? 0)) }
        #expect(sumChange <= Int64(r.maxPartitions * r.maxContributions) * ContributionBounding.valueBound(r))
        #expect(b.counts["2031-W01"] == nil)
    }

    @Test func valuesAreClampedToTheDeclaredBoundsAndCentredForMeans() throws {
        let keys: Set<String> = ["2024-W01"]
        let cs = [Contribution(unit: "a", partition: "2024-W01", value: 250), Contribution(unit: "b", partition: "2024-W01", value: 10)]
        let sum = try ContributionBounding.bound(cs, release: release(.sum, lower: 40, upper: 200), publicKeys: keys)
        #expect(sum.sums["2024-W01"] == 240)   // 200 + 40
        let mean = try ContributionBounding.bound(cs, release: release(.mean, lower: 40, upper: 200), publicKeys: keys)
        #expect(mean.sums["2024-W01"] == 0)   // +80 and −80 around the midpoint 120
        #expect(ContributionBounding.valueBound(release(.mean, lower: 40, upper: 200)) == 80)
        #expect(ContributionBounding.valueBound(release(.sum, lower: -10, upper: 200)) == 200)
    }

    @Test func theRunsCSVFilesAreReadWithTheirQuoting() throws {
        let dir = Support.temporaryDirectory()
        try "a,b\n\"x,1\",\"\"\"q\"\"\"\nplain,\n".write(toFile: dir + "/t.csv", atomically: true, encoding: .utf8)
        let table = try CSVTable(path: dir + "/t.csv")
        #expect(table.header == ["a", "b"])
        #expect(table.rows == [["x,1", "\"q\""], ["plain", ""]])
    }
}
