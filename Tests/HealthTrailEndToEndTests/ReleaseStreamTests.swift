import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit
@testable import HealthTrailPrivacy
@testable import HealthTrailRun
@testable import HealthTrailSynth

/// Releases under nightly cron: what is drawn, answered from the ledger or not yet due, and what
/// is spent, is the same function of public things (the spec, the release id, the date) for any
/// two streams of exports, so an observer of `dp/`, of the printed lines or of the ledger's
/// charges learns nothing from the decisions themselves.
@Suite struct ReleaseStreamTests {
    static let spec = """
        budget:
          epsilon: 2.0
        releases:
          - {id: weekly_sleep, metric: daily.sleep_asleep_min, aggregate: sum, partition: week, cadence: week,
             from: 2023-01-02, to: 2023-02-26, privacy_unit: day, lower: 0, upper: 720, resolution: 10,
             max_partitions: 1, max_contributions: 1, mechanism: laplace, epsilon: 0.5}
          - {id: resting_hr, metric: daily.resting_hr, aggregate: mean, partition: week,
             from: 2023-01-02, to: 2023-02-26, privacy_unit: day, lower: 35, upper: 110, resolution: 1,
             max_partitions: 1, max_contributions: 1, mechanism: laplace, epsilon: 0.5}
          - {id: workouts, metric: workouts.count, aggregate: count, partition: activity_week, cadence: week,
             activities: [running, walking], from: 2023-01-02, to: 2023-02-26, privacy_unit: workout,
             max_partitions: 1, max_contributions: 1, mechanism: laplace, epsilon: 0.5}

        """

    /// What a night's release shows anyone: per release what it published, drew and spent, and
    /// when the next period is due; and the ledger's lines without their keyed or random parts.
    struct Night: Equatable {
        var outcomes: [String]
        var ledger: [String]
    }

    static func night(_ outcomes: [ReleaseRunner.Outcome], ledger: String) throws -> Night {
        let lines = try String(contentsOfFile: ledger, encoding: .utf8).split(separator: "\n").map { line in
            var entry = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            for key in ["prev", "time_utc", "fingerprint", "output_sha256", "subject", "nonce"] { entry[key] = nil }
            return String(decoding: try JSONSerialization.data(withJSONObject: entry, options: .sortedKeys), as: UTF8.self)
        }
        return Night(
            outcomes: outcomes.map {
                "\($0.id) charged=\($0.charged) periods=\($0.published) drawn=\($0.drawn) rows=\($0.partitions) next=\($0.nextDue ?? "-")"
            },
            ledger: lines)
    }

    @Test func neighbouringNightlyStreamsGetTheSameDecisionsAndCharges() throws {
        let dir = Support.temporaryDirectory()
        try Self.spec.write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
        let spec = try ReleaseSpec.load(path: dir + "/spec.yaml")
        _ = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 60, seed: 5))
        _ = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out"))
        let base = try PartialAggregate.build(spec: spec, runDirectory: dir + "/out", person: "self")
        #expect(base.releases["weekly_sleep"]?.sums["2023-W03"] != nil)

        /// Night `n`'s export: every total moves a little from night to night (late syncs, edits),
        /// on both streams alike; stream B differs from A in one day's sleep, between nights 15
        /// and 40 only (changed, then changed back).
        func partial(night n: Int, neighbour: Bool) -> PartialAggregate {
            var p = base
            for (id, var totals) in p.releases {
                for key in totals.sums.keys { totals.sums[key]! += Int64(n % 3) }
                for key in totals.counts.keys where n % 5 == 0 { totals.counts[key]! += 1 }
                p.releases[id] = totals
            }
            if neighbour && (15..<40).contains(n) { p.releases["weekly_sleep"]!.sums["2023-W03", default: 0] += 12 }
            return p
        }

        var seen: [String: String] = [:]   // a published row of stream A, by release and partition
        for n in 0..<64 {
            let asOf = Publication.date(PublicPartitions.day("2023-01-02")! + Int64(n))
            var nights: [Night] = []
            for (stream, neighbour) in [("a", false), ("b", true)] {
                let ledger = dir + "/\(stream)/ledger.jsonl"
                let outcomes = try ReleaseRunner.run(
                    spec: spec, partial: partial(night: n, neighbour: neighbour), outputDirectory: dir + "/\(stream)/dp",
                    ledger: .testing(ledger), asOf: asOf)
                nights.append(try Self.night(outcomes, ledger: ledger))
            }
            #expect(nights[0] == nights[1], "night \(n) (\(asOf)): the decisions differ between neighbouring streams")

            // A period is published from the second day after it ends, then never redrawn: its
            // rows stay byte for byte what they were, whatever the data says now.
            let weeksDue = (0..<8).filter { week in PublicPartitions.day("2023-01-10")! + Int64(7 * week) <= PublicPartitions.day(asOf)! }.count
            let sleep = try? Support.readCSV(dir + "/a/dp/weekly_sleep.csv")
            #expect((sleep?.rows.count ?? 0) == weeksDue, "night \(n)")
            let once = try? Support.readCSV(dir + "/a/dp/resting_hr.csv")
            #expect((once?.rows.count ?? 0) == (asOf >= "2023-02-28" ? 8 : 0), "night \(n)")
            for (id, table) in [("weekly_sleep", sleep), ("resting_hr", once)] {
                for row in table?.rows ?? [] {
                    let key = id + " " + row[0], text = row.joined(separator: ",")
                    #expect(seen[key] == nil || seen[key] == text, "\(key) was redrawn on night \(n)")
                    seen[key] = text
                }
            }
        }
        // Weekly releases of the days compose in parallel: a day has spent the weekly sleep
        // release's ε and the once release's, 1.0 of the 2.0, however many weeks went out; a
        // workout those two and the workouts release's, 1.5.
        let ledger = try BudgetLedger(
            path: dir + "/a/ledger.jsonl", limit: BudgetLimit(epsilon: Rational(2)),
            key: try LedgerLocation.testing(dir + "/a/ledger.jsonl").key(), subject: "test")
        #expect(ledger.spent(unit: "day").epsilon == Rational(1))
        #expect(ledger.spent(unit: "workout").epsilon == Rational(3, 2))
    }
}
