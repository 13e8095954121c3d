import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit
@testable import HealthTrailPrivacy
@testable import HealthTrailRun
@testable import HealthTrailSynth

/// `healthtrail release` end to end on a synthesized person: run, release, replay, new data,
/// over budget.
@Suite struct ReleaseRunnerTests {
    static let spec = spec()

    /// The spec, with the terms the tests change: the budget, weekly_steps' resolution (a new
    /// release of the days) and runs_per_week's ε (a new release of the workouts).
    static func spec(budget: String = "2.0", stepsResolution: Int = 10, runsEpsilon: String = "0.5") -> String {
        """
        budget:
          epsilon: \(budget)
        releases:
          - id: weekly_steps
            metric: daily.steps
            aggregate: sum
            partition: week
            from: 2023-01-02
            to: 2023-02-26
            privacy_unit: day
            lower: 0
            upper: 40000
            resolution: \(stepsResolution)
            max_partitions: 1
            max_contributions: 1
            mechanism: laplace
            epsilon: 0.5
          - id: runs_per_week
            metric: workouts.count
            aggregate: count
            partition: activity_week
            activities: [running, walking]
            from: 2023-01-02
            to: 2023-02-26
            privacy_unit: workout
            max_partitions: 1
            max_contributions: 1
            mechanism: laplace
            epsilon: \(runsEpsilon)

        """
    }

    func runExport(seed: UInt64, into dir: String) throws {
        _ = try ExportSynthesizer.write(to: dir + "/export-\(seed).zip", options: SynthOptions(days: 20, seed: seed))
        _ = try ExportRun.run(RunOptions(inputPath: dir + "/export-\(seed).zip", outputDirectory: dir + "/out"))
    }

    @Test func releasesReplaysChargesNewDataAndRefusesOverspending() throws {
        let dir = Support.temporaryDirectory()
        try Self.spec.write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
        let spec = try ReleaseSpec.load(path: dir + "/spec.yaml")
        try runExport(seed: 1, into: dir)
        let ledger = dir + "/out/privacy-ledger.jsonl"
        func release() throws -> [ReleaseRunner.Outcome] {
            try ReleaseRunner.run(spec: spec, dataDirectory: dir + "/out", outputDirectory: dir + "/out/dp", ledger: .testing(ledger))
        }

        let first = try release()
        #expect(first.map(\.charged) == [true, true])
        // One row per public partition: 8 ISO weeks; 2 activities × 8 weeks.
        let steps = try Support.readCSV(dir + "/out/dp/weekly_steps.csv")
        #expect(steps.header == ReleaseRunner.columns)
        #expect(steps.rows.map { $0[0] } == (1...8).map { "2023-W0\($0)" })
        #expect(steps.rows.allSatisfy { Int($0[2])! % 10 == 0 && $0[6] == "discrete_laplace" && $0[7] == "0.5" })
        #expect(try Support.readCSV(dir + "/out/dp/runs_per_week.csv").rows.count == 16)
        // dp/ holds the releases only: raw values stay in the run's own files.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/out/dp").sorted() == ["runs_per_week.csv", "weekly_steps.csv"])

        // The same data again (cron): answered from the ledger, same bytes, nothing spent.
        let before = try Support.snapshot(dir + "/out/dp")
        let ledgerBefore = try Data(contentsOf: URL(fileURLWithPath: ledger))
        #expect(try release().map(\.charged) == [false, false])
        #expect(try Support.snapshot(dir + "/out/dp") == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: ledger)) == ledgerBefore)

        // New data for the same periods changes nothing: a period is drawn once, never again,
        // so whether anything is drawn or spent never depends on the data.
        try runExport(seed: 2, into: dir)
        #expect(try release().map(\.charged) == [false, false])
        #expect(try Support.snapshot(dir + "/out/dp") == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: ledger)) == ledgerBefore)

        // New terms are a new release, charged: the days' budget now has 1.0 of 2.0 spent.
        try Self.spec(stepsResolution: 20).write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
        let coarser = try ReleaseSpec.load(path: dir + "/spec.yaml")
        #expect(
            try ReleaseRunner.run(spec: coarser, dataDirectory: dir + "/out", outputDirectory: dir + "/out/dp", ledger: .testing(ledger)).map(
                \.charged) == [true, false])

        // Over budget (the workouts' 0.5 + 1.75): refused, nothing published, the ledger unchanged.
        try Self.spec(stepsResolution: 20, runsEpsilon: "1.75").write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
        let greedy = try ReleaseSpec.load(path: dir + "/spec.yaml")
        let dpBefore = try Support.snapshot(dir + "/out/dp")
        let ledgerFull = try Data(contentsOf: URL(fileURLWithPath: ledger))
        let error = #expect(throws: LedgerError.self) {
            try ReleaseRunner.run(spec: greedy, dataDirectory: dir + "/out", outputDirectory: dir + "/out/dp", ledger: .testing(ledger))
        }
        #expect(error?.description.contains("release runs_per_week refused") == true, "\(String(describing: error))")
        #expect(error?.description.contains("for a workout in 2023-01-02…2023-02-26") == true)
        #expect(try Support.snapshot(dir + "/out/dp") == dpBefore)
        #expect(try Data(contentsOf: URL(fileURLWithPath: ledger)) == ledgerFull)
    }

    /// Each row states its release's guarantee in the standard form: a Laplace row its pure ε
    /// with δ = 0; a Gaussian row its ρ and the (ε, δ) that ρ implies at the spec's declared δ
    /// (tight conversion, rounded up to the third decimal), for sums and the density grid alike;
    /// `healthtrail release` prints the same.
    @Test func rowsStateTheGuaranteeInTheStandardForm() throws {
        let dir = Support.temporaryDirectory()
        try runExport(seed: 4, into: dir)
        let text = """
            budget:
              rho: 1.0
              delta: 1.0e-9
            releases:
              - {id: steps, metric: daily.steps, aggregate: sum, partition: week, from: 2023-01-02, to: 2023-01-22,
                 privacy_unit: day, lower: 0, upper: 40000, resolution: 10, max_partitions: 1, max_contributions: 1,
                 mechanism: laplace, epsilon: 0.5}
              - {id: distance, metric: workouts.route_distance_m, aggregate: sum, partition: week, from: 2023-01-02,
                 to: 2023-01-22, privacy_unit: workout, lower: 0, upper: 30000, resolution: 100, max_partitions: 1,
                 max_contributions: 1, mechanism: gaussian, rho: 0.125}
              - {id: density, metric: routes, aggregate: density, area: [48.8, 2.25, 48.92, 2.42], cells: 4, partition: week,
                 from: 2023-01-02, to: 2023-01-22, privacy_unit: workout, max_partitions: 4, max_contributions: 1,
                 mechanism: gaussian, rho: 0.5}

            """
        try text.write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
        let printed = try Support.runCLI(["release", "--spec", dir + "/spec.yaml", "--data", dir + "/out"])
        #expect(printed.status == 0, "\(printed.stderr)")

        func statedEpsilon(_ rho: Double) -> String {
            ReleaseRunner.format((ApproximateDP.epsilon(rho: rho, delta: 1e-9) * 1000).rounded(.up) / 1000)
        }
        let steps = try Support.readCSV(dir + "/out/dp/steps.csv")
        let column = { (name: String) in steps.header.firstIndex(of: name)! }
        #expect(steps.rows.count == 3)
        #expect(steps.rows.allSatisfy { [$0[column("epsilon")], $0[column("rho")], $0[column("delta")]] == ["0.5", "", "0"] })
        let distance = try Support.readCSV(dir + "/out/dp/distance.csv")
        #expect(distance.rows.count == 3)
        #expect(
            distance.rows.allSatisfy { [$0[column("epsilon")], $0[column("rho")], $0[column("delta")]] == [statedEpsilon(0.125), "0.125", "1e-09"] })
        let density = try Support.readCSV(dir + "/out/dp/density.csv")
        let at = { (name: String) in density.header.firstIndex(of: name)! }
        let grid = DensityRelease.grid(for: try ReleaseSpec.load(path: dir + "/spec.yaml").releases[2])
        #expect(density.rows.count == grid.width * grid.height && grid.width == 4)
        #expect(density.rows.allSatisfy { [$0[at("epsilon")], $0[at("rho")], $0[at("delta")]] == [statedEpsilon(0.5), "0.5", "1e-09"] })
        // ρ = 0.125 at δ = 10⁻⁹ is about ε = 3.06 (OpenDP agrees: ApproximateDPTests).
        #expect(Double(statedEpsilon(0.125))! > 3 && Double(statedEpsilon(0.125))! < 3.1)
        #expect(printed.stdout.contains("steps: 3 partitions, ε = 0.5 →"), "\(printed.stdout)")
        #expect(printed.stdout.contains("distance: 3 partitions, ρ = 0.125 zCDP, (ε, δ) = (\(statedEpsilon(0.125)), 1e-09) →"), "\(printed.stdout)")
        // Then what the spec spends per unit, as --plan states it.
        #expect(
            printed.stdout.contains(
                "healthtrail: this spec: once every period is published, a day has spent at most ρ = 0.125 of the budget ρ = 1, "
                    + "(ε, δ) = (\(statedEpsilon(0.125)), 1e-09) by zCDP, ("),
            "\(printed.stdout)")
    }

    /// `release --plan` reads the spec alone and writes nothing; each release's partitions and
    /// the error it predicts are those the published rows then carry (`error95`), and its totals
    /// are the spec's costs summed per privacy unit.
    @Test func thePlanPredictsWhatTheRowsCarry() throws {
        let dir = Support.temporaryDirectory()
        try Self.spec.write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
        let planned = try Support.runCLI(["release", "--spec", dir + "/spec.yaml", "--plan"])
        #expect(planned.status == 0, "\(planned.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["spec.yaml"])
        let lines = planned.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(planned.stdout)")
        #expect(lines[3] == "once every period is published, a day has spent at most ε = 0.5 of the budget ε = 2", "\(planned.stdout)")
        // A workout is charged its day's release too.
        #expect(lines[4] == "once every period is published, a workout has spent at most ε = 1 of the budget ε = 2", "\(planned.stdout)")

        try runExport(seed: 6, into: dir)
        _ = try ReleaseRunner.run(
            spec: try ReleaseSpec.load(path: dir + "/spec.yaml"), dataDirectory: dir + "/out", outputDirectory: dir + "/out/dp",
            ledger: .testing(dir + "/out/privacy-ledger.jsonl"))
        for (line, (file, what)) in zip(lines[1...2], [("weekly_steps", "sum"), ("runs_per_week", "count")]) {
            let table = try Support.readCSV(dir + "/out/dp/\(file).csv")
            let error = Set(table.rows.map { $0[table.header.firstIndex(of: "error95")!] })
            #expect(error.count == 1)
            let columns = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            #expect(columns[0] == file && columns[1] == "\(table.rows.count)" && columns[2] == "1", "\(line)")
            #expect(line.hasSuffix("\(what) ±\(error.first ?? "")"), "\(line) against error95 \(error)")
        }
    }

    /// A spec whose second release no longer fits once its first is counted: before, the first
    /// was spent and published and the run failed; now nothing is recorded or published.
    @Test func aSpecIsSpentWholeOrNotAtAll() throws {
        let dir = Support.temporaryDirectory()
        let ledger = dir + "/out/privacy-ledger.jsonl"
        func release(_ text: String) throws -> [ReleaseRunner.Outcome] {
            try text.write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
            let spec = try ReleaseSpec.load(path: dir + "/spec.yaml")
            return try ReleaseRunner.run(spec: spec, dataDirectory: dir + "/out", outputDirectory: dir + "/out/dp", ledger: .testing(ledger))
        }
        try runExport(seed: 1, into: dir)
        #expect(try release(Self.spec(budget: "1.5")).map(\.charged) == [true, true])   // 0.5 of 1.5 for days and for workouts
        // New terms for both: the days' would fit (1.0 of 1.5), the workouts' would not (0.5 + 1.25).
        let dpBefore = try Support.snapshot(dir + "/out/dp")
        let ledgerBefore = try Support.snapshot(dir + "/out").filter { $0.key.hasPrefix("/privacy-ledger") }
        let error = #expect(throws: LedgerError.self) { try release(Self.spec(budget: "1.5", stepsResolution: 20, runsEpsilon: "1.25")) }
        #expect(error?.description.contains("release runs_per_week refused, nothing recorded") == true, "\(String(describing: error))")
        #expect(error?.description.contains("a spec is spent whole or not at all") == true)
        #expect(try Support.snapshot(dir + "/out/dp") == dpBefore)
        #expect(try Support.snapshot(dir + "/out").filter { $0.key.hasPrefix("/privacy-ledger") } == ledgerBefore)
    }

    /// A nightly person pipeline whose release fails after its run: the failure is reported again
    /// the next night on the same archive (exit 1, not 3 "nothing new"), and dp/ stays whole.
    @Test func aFailedReleaseIsNotHiddenByNothingNew() throws {
        let dir = Support.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/exports", withIntermediateDirectories: true)
        try Self.spec(budget: "1.5").write(toFile: dir + "/releases.yaml", atomically: true, encoding: .utf8)
        try """
        version: 1
        kind: person
        input:
          path: exports
          pick: newest
        output: out
        outputs: [csv, dp]
        privacy:
          releases: releases.yaml
          budget_dir: budget
        """.write(toFile: dir + "/nightly.yaml", atomically: true, encoding: .utf8)
        func night(seed: UInt64) throws -> (status: Int32, stderr: String) {
            if seed > 0 {
                _ = try ExportSynthesizer.write(to: dir + "/exports/export-\(seed).zip", options: SynthOptions(days: 20, seed: seed))
                let later = Date().addingTimeInterval(Double(seed))
                try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: dir + "/exports/export-\(seed).zip")
            }
            let run = try Support.runCLI(["run", "--pipeline", dir + "/nightly.yaml", "--quiet"])
            return (run.status, run.stderr)
        }
        #expect(try night(seed: 1).status == 0)
        // The run folder says where its releases' budget lives: the subject's ledger, not its own.
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/out/manifest.json"))) as? [String: Any]
        let ledger = manifest?["budget_ledger"] as? String ?? ""
        #expect(ledger.hasPrefix(dir + "/budget/ledgers/s_") && FileManager.default.fileExists(atPath: ledger), "\(ledger)")
        // Same archive, releases replayed: exit 0 as with a new export, which exit 3 would tell apart.
        #expect(try night(seed: 0).status == 0)
        let dpBefore = try Support.snapshot(dir + "/out/dp")
        // The spec changes so that the workouts' new release no longer fits: a workout has its
        // day's 0.5 and the first release's 0.5 spent, and 1.0 more passes 1.5.
        try Self.spec(budget: "1.5", runsEpsilon: "1.0").write(toFile: dir + "/releases.yaml", atomically: true, encoding: .utf8)
        let second = try night(seed: 2)
        #expect(second.status == 1)
        #expect(second.stderr.contains("refused, nothing recorded"), "\(second.stderr)")
        #expect(try Support.snapshot(dir + "/out/dp") == dpBefore)
        let again = try night(seed: 0)
        #expect(again.status == 1, "the failed release must be reported again, not skipped: \(again.stderr)")
        #expect(again.stderr.contains("refused, nothing recorded"))
        #expect(try Support.snapshot(dir + "/out/dp") == dpBefore)
    }

    @Test func aLedgerEditedByHandRefusesFurtherReleases() throws {
        let dir = Support.temporaryDirectory()
        try Self.spec.write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
        let spec = try ReleaseSpec.load(path: dir + "/spec.yaml")
        try runExport(seed: 1, into: dir)
        let ledger = dir + "/out/privacy-ledger.jsonl"
        _ = try ReleaseRunner.run(spec: spec, dataDirectory: dir + "/out", outputDirectory: dir + "/out/dp", ledger: .testing(ledger))
        // Someone lowers the recorded spend by hand.
        let text = try String(contentsOfFile: ledger, encoding: .utf8)
        try text.replacingOccurrences(of: "\"epsilon\":\"1/2\"", with: "\"epsilon\":\"1/20\"")
            .write(toFile: ledger, atomically: true, encoding: .utf8)
        try runExport(seed: 2, into: dir)
        let error = #expect(throws: LedgerError.self) {
            try ReleaseRunner.run(spec: spec, dataDirectory: dir + "/out", outputDirectory: dir + "/out/dp", ledger: .testing(ledger))
        }
        #expect(error?.description.contains("hash chain broken") == true, "\(error?.description ?? "")")
    }
}

/// The route density map under differential privacy.
@Suite struct DensityReleaseTests {
    static let spec = """
        budget:
          epsilon: 1.0
        releases:
          - id: route_density
            metric: routes
            aggregate: density
            area: [48.80, 2.25, 48.92, 2.42]
            cells: 20
            partition: week
            from: 2023-01-02
            to: 2023-01-08
            privacy_unit: workout
            max_partitions: 5
            max_contributions: 1
            mechanism: laplace
            epsilon: 0.5

        """

    @Test func everyCellGetsNoiseAndEachWorkoutCountsAtMostKCells() throws {
        let dir = Support.temporaryDirectory()
        try Self.spec.write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
        let spec = try ReleaseSpec.load(path: dir + "/spec.yaml")
        _ = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 6, seed: 2024))
        let manifest = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out"))
        let release = spec.releases[0]

        // Bounding: the total count is at most K per workout, whatever the routes.
        let (grid, counts) = try DensityRelease.bounded(release, runDirectory: dir + "/out")
        let workouts = Set(try Support.readCSV(dir + "/out/route_points.csv").rows.map { $0[0] }).count
        #expect(counts.reduce(0, +) <= Int64(workouts * release.maxPartitions))
        #expect(counts.reduce(0, +) > 0)
        #expect(counts.allSatisfy { $0 >= 0 && $0 <= Int64(workouts) })   // once per workout per cell

        let outcomes = try ReleaseRunner.run(
            spec: spec, dataDirectory: dir + "/out", outputDirectory: dir + "/out/dp",
            ledger: .testing(dir + "/out/privacy-ledger.jsonl"))
        #expect(outcomes.first?.charged == true)
        let table = try Support.readCSV(dir + "/out/dp/route_density.csv")
        #expect(table.rows.count == grid.width * grid.height)   // every cell of the fixed grid, empty or not
        #expect(table.rows.allSatisfy { Int64($0[4]) != nil && $0[6] == "discrete_laplace" })
        // Noise makes some empty cells negative in the table; the picture floors them at zero.
        let svg = try String(contentsOfFile: dir + "/out/dp/route_density.svg", encoding: .utf8)
        #expect(svg.contains("differentially private"))
        #expect(!svg.contains("\(manifest.counts.routePoints) point"))   // no raw count in the title
    }
}

extension DensityReleaseTests {
    /// The map's note says what a cell counts and its noise at 95 %, and says to read the map as
    /// noise when its largest count is one noise alone would likely reach on a grid that size
    /// (Laplace: the 95 % error × ln(cells)/ln 20, by 1.5 for margin; Gaussian: √(2 ln cells) σ).
    @Test func theMapSaysWhenItIsMostlyNoise() throws {
        let dir = Support.temporaryDirectory()
        _ = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 10, seed: 7))
        _ = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out"))
        try Self.spec.write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
        _ = try ReleaseRunner.run(
            spec: try ReleaseSpec.load(path: dir + "/spec.yaml"), dataDirectory: dir + "/out", outputDirectory: dir + "/dp",
            ledger: .testing(dir + "/ledger.jsonl"))
        let svg = try String(contentsOfFile: dir + "/dp/route_density.svg", encoding: .utf8)
        let error95 = try Support.readCSV(dir + "/dp/route_density.csv").rows[0][5]
        #expect(svg.contains(">noisy workout counts per cell, each ±\(error95) at 95 %"))

        // 400 Laplace cells with a 95 % error of 30: noise alone reaches about 30 × ln 400 / ln 20 ≈ 60.
        #expect(DensityRelease.noiseMaximum(error95: 30, cells: 400, gaussian: false).rounded() == 60)
        #expect(DensityRelease.noiseMaximum(error95: 19.6, cells: 400, gaussian: true).rounded() == 35)   // σ = 10: √(2 ln 400) σ
        for (largest, noise) in [(80, true), (89, true), (91, false), (500, false)] {
            let note = DensityRelease.note(error95: 30, largest: Int64(largest), cells: 400, gaussian: false, unit: .workout)
            #expect(note.contains("read this map as noise") == noise, "largest \(largest): \(note)")
            #expect(note.hasPrefix("noisy workout counts per cell, each ±30 at 95 %"))
        }
    }

    /// An adversarial workout whose route sweeps the whole grid, through cells no one else visits:
    /// it adds at most 1 to any cell and touches at most K cells.
    @Test func anAdversarialRouteChangesAtMostKCellsByOne() throws {
        let dir = Support.temporaryDirectory()
        let spec = try { () throws -> ReleaseSpec in
            try Self.spec.write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
            return try ReleaseSpec.load(path: dir + "/spec.yaml")
        }()
        let release = spec.releases[0]
        var honest = "workout_id,time_utc,lat,lon\n"
        for w in 0..<10 { for i in 0..<50 { honest += "w\(w),t,\(48.85 + Double(i) * 0.0001),2.30\n" } }
        var adversarial = honest
        for i in 0..<5000 {   // a zig-zag over the whole area, thousands of points
            adversarial += "mallory,t,\(48.801 + Double(i % 100) * 0.0011),\(2.251 + Double(i / 100) * 0.0033)\n"
        }
        try FileManager.default.createDirectory(atPath: dir + "/a", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/b", withIntermediateDirectories: true)
        try honest.write(toFile: dir + "/a/route_points.csv", atomically: true, encoding: .utf8)
        try adversarial.write(toFile: dir + "/b/route_points.csv", atomically: true, encoding: .utf8)
        // The workouts started within the release's dates (only those count).
        var workouts = "workout_id,activity,start_utc,utc_offset\n"
        for w in (0..<10).map({ "w\($0)" }) + ["mallory"] { workouts += "\(w),running,2023-01-03T08:00:00Z,+01:00\n" }
        try workouts.write(toFile: dir + "/a/workouts.csv", atomically: true, encoding: .utf8)
        try workouts.write(toFile: dir + "/b/workouts.csv", atomically: true, encoding: .utf8)
        let a = try DensityRelease.bounded(release, runDirectory: dir + "/a").counts
        let b = try DensityRelease.bounded(release, runDirectory: dir + "/b").counts
        let changes = zip(a, b).map { $1 - $0 }
        #expect(changes.allSatisfy { $0 == 0 || $0 == 1 })
        #expect(changes.reduce(0, +) == Int64(release.maxPartitions))   // K cells, reached but not beaten
        #expect(zip(a, changes).contains { $0.0 == 0 && $0.1 == 1 })   // including cells that were empty
    }
}
