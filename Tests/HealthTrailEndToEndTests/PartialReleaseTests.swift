import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailKit

/// Releasing a cohort's merged partial aggregate, from the library and from the command line.
@Suite struct PartialReleaseTests {
    /// The ledger's lines as JSON objects.
    func ledgerLines(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
    }

    @Test func aMergedPartialReleasesLikeARunFolderAndReplaysForFree() throws {
        let cohort = try CohortFixture.shared()
        let dir = Support.temporaryDirectory()
        let merged = try PartialAggregate.merge(cohort.partials)
        try merged.write(to: dir + "/cohort.partial")
        let ledger = dir + "/cohort/privacy-ledger.jsonl"
        func release() throws -> [ReleaseRunner.Outcome] {
            try ReleaseRunner.run(
                spec: cohort.spec, partial: PartialAggregate.read(path: dir + "/cohort.partial"),
                outputDirectory: dir + "/cohort/dp", ledger: .testing(ledger))
        }
        let outcomes = try release()
        #expect(outcomes.map(\.id) == cohort.spec.releases.map(\.id))
        #expect(outcomes.allSatisfy { $0.charged })

        // The same files as one person's release from a run folder: same columns, same rows,
        // same terms on every row; only the noisy values differ.
        _ = try ReleaseRunner.run(
            spec: cohort.spec, dataDirectory: cohort.people[0].directory, outputDirectory: dir + "/one/dp",
            ledger: .testing(dir + "/one/privacy-ledger.jsonl"))
        for (release, outcome) in zip(cohort.spec.releases, outcomes) {
            let fromPartial = try Support.readCSV(dir + "/cohort/dp/\(release.id).csv")
            let fromRun = try Support.readCSV(dir + "/one/dp/\(release.id).csv")
            #expect(fromPartial.header == fromRun.header)
            let fixed = release.aggregate == .density ? [0, 1, 2, 3] + Array(5..<12) : [0, 1] + Array(6..<16)
            #expect(fromPartial.rows.map { row in fixed.map { row[$0] } } == fromRun.rows.map { row in fixed.map { row[$0] } }, "\(release.id)")
            #expect(fromPartial.rows.count == outcome.partitions)
        }
        #expect(FileManager.default.fileExists(atPath: dir + "/cohort/dp/route_density.svg"))

        // The noise went on the cohort's totals: Gaussian counts with σ² = 2 stay within 15 of
        // the merged counts (the chance of one row beyond is below 10⁻²⁵), and some are far
        // above one person's.
        let counts = merged.releases["workouts_per_activity_week"]!.counts
        #expect(counts.values.contains { $0 > 40 })
        let table = try Support.readCSV(dir + "/cohort/dp/workouts_per_activity_week.csv")
        for row in table.rows { #expect(abs(Int64(row[2])! - (counts[row[0]] ?? 0)) <= 15, "\(row[0])") }

        // One reservation and its publication per release.
        let lines = try ledgerLines(ledger)
        #expect(
            lines.filter { $0["status"] as? String == "reserved" }.compactMap { $0["release_id"] as? String }
                == cohort.spec.releases.map(\.id))
        #expect(lines.filter { $0["status"] as? String == "published" }.count == cohort.spec.releases.count)

        // The same merged file again (a rerun, or a merge in another order): nothing spent.
        let published = try Support.snapshot(dir + "/cohort/dp")
        let ledgerBytes = try Data(contentsOf: URL(fileURLWithPath: ledger))
        try PartialAggregate.merge(cohort.partials.reversed()).write(to: dir + "/cohort.partial")
        #expect(try release().allSatisfy { !$0.charged })
        #expect(try Support.snapshot(dir + "/cohort/dp") == published)
        #expect(try Data(contentsOf: URL(fileURLWithPath: ledger)) == ledgerBytes)
    }

    @Test func aRunFolderReleaseIsTheReleaseOfItsOwnPartial() throws {
        let cohort = try CohortFixture.shared()
        let dir = Support.temporaryDirectory()
        let ledger = dir + "/privacy-ledger.jsonl"
        let direct = try ReleaseRunner.run(
            spec: cohort.spec, dataDirectory: cohort.people[2].directory,
            outputDirectory: dir + "/dp", ledger: .testing(ledger))
        #expect(direct.allSatisfy { $0.charged })
        let published = try Support.snapshot(dir + "/dp")
        // The partial of the same folder, as person `self`: the same releases and periods,
        // answered from the ledger.
        let own = try PartialAggregate.build(spec: cohort.spec, runDirectory: cohort.people[2].directory, person: "self")
        #expect(
            try ReleaseRunner.run(spec: cohort.spec, partial: own, outputDirectory: dir + "/dp", ledger: .testing(ledger))
                .allSatisfy { !$0.charged })
        #expect(try Support.snapshot(dir + "/dp") == published)
        // Another person's data on the same ledger changes nothing: the periods were published,
        // and what is published never depends on the data it is given now.
        let other = try PartialAggregate.build(spec: cohort.spec, runDirectory: cohort.people[3].directory, person: "self")
        #expect(
            try ReleaseRunner.run(spec: cohort.spec, partial: other, outputDirectory: dir + "/dp", ledger: .testing(ledger))
                .allSatisfy { !$0.charged })
        #expect(try Support.snapshot(dir + "/dp") == published)
    }

    @Test func aPartialOfAnotherSpecIsNotReleased() throws {
        let cohort = try CohortFixture.shared()
        let dir = Support.temporaryDirectory()
        var other = cohort.spec
        other.releases[1].upper = 120
        try PartialAggregate.build(spec: other, runDirectory: cohort.people[0].directory, person: "p_x").write(to: dir + "/x.partial")
        let error = #expect(throws: InputError.self) {
            try ReleaseRunner.run(
                spec: cohort.spec, partial: PartialAggregate.read(path: dir + "/x.partial"),
                outputDirectory: dir + "/dp", ledger: .testing(dir + "/privacy-ledger.jsonl"))
        }
        #expect(error?.file == dir + "/x.partial")
        #expect(error?.message.contains("other release definitions") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["x.partial"])   // no ledger, no dp/
    }

    @Test func theCommandLineMergesAListAndReleasesTheResult() throws {
        let cohort = try CohortFixture.shared()
        let dir = Support.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/parts", withIntermediateDirectories: true)
        let paths = try cohort.partials.enumerated().map { i, partial in
            let path = dir + "/parts/\(i).partial"
            try partial.write(to: path)
            return path
        }
        // The first on the command line, the rest from a list (a blank line and a duplicate too).
        let list = paths.dropFirst().map { " \($0)" }.joined(separator: "\n") + "\n\n" + paths[5] + "\n"
        try list.write(toFile: dir + "/list.txt", atomically: true, encoding: .utf8)
        let merge = try Support.runCLI(["merge", paths[0], "--list", dir + "/list.txt", "--out", dir + "/cohort.partial"])
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(merge.stdout == "healthtrail: merged 21 partials (20 persons) → \(dir)/cohort.partial\n")
        #expect(FileManager.default.contents(atPath: dir + "/cohort.partial") == (try PartialAggregate.merge(cohort.partials).bytes))
        #expect((try FileManager.default.attributesOfItem(atPath: dir + "/cohort.partial")[.posixPermissions] as? Int) == 0o600)

        let arguments = [
            "release", "--spec", cohort.specPath, "--partial", dir + "/cohort.partial",
            "--out", dir + "/dp", "--ledger", dir + "/privacy-ledger.jsonl", "--budget-dir", dir + "/privacy-ledger.jsonl" + ".budget",
            "--subject", "study",
        ]
        let first = try Support.runCLI(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir + "/dp").sorted()
                == (cohort.spec.releases.map { $0.id + ".csv" } + ["route_density.svg"]).sorted())
        let second = try Support.runCLI(arguments)
        #expect(second.stdout.components(separatedBy: "nothing spent").count - 1 == cohort.spec.releases.count)

        let missing = try Support.runCLI(["release", "--spec", cohort.specPath, "--partial", dir + "/cohort.partial"])
        #expect(missing.status != 0 && missing.stderr.contains("--partial needs --out"))
        let both = try Support.runCLI([
            "release", "--spec", cohort.specPath, "--partial", dir + "/cohort.partial",
            "--data", cohort.people[0].directory,
        ])
        #expect(both.status != 0 && both.stderr.contains("exactly one of --data and --partial"))
        // A merged partial is a cohort's: with --spec its subject must be named.
        let unnamed = try Support.runCLI(["release", "--spec", cohort.specPath, "--partial", dir + "/cohort.partial", "--out", dir + "/dp"])
        #expect(unnamed.status != 0 && unnamed.stderr.contains("a merged partial is a cohort's"), "\(unnamed.stderr)")

        // A person in two different files: refused, naming them, nothing written.
        let again = try Support.runCLI(["merge", dir + "/cohort.partial", paths[4], "--out", dir + "/bad.partial"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("person \(cohort.people[4].name) is in two partials: \(dir)/cohort.partial and \(paths[4])"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/bad.partial"))
    }

    // MARK: Untrusted totals

    /// A merged partial as anyone could craft it: every release with a modest total on its first
    /// partition, and in `release` (count, sum or density) `total` instead.
    static func crafted(_ spec: ReleaseSpec, release: String, total: Int64, inSums: Bool) throws -> PartialAggregate {
        var releases: [String: BoundedTotals] = [:]
        for r in spec.releases {
            let key = r.aggregate == .density ? "0" : PublicPartitions.keys(for: r)[0]
            var totals = BoundedTotals(counts: [key: 3], sums: r.aggregate == .count || r.aggregate == .density ? [:] : [key: 30])
            if r.id == release {
                if inSums { totals.sums[key] = total } else { totals.counts[key] = total }
            }
            releases[r.id] = totals
        }
        return PartialAggregate(
            specSHA256: try PartialAggregate.specFingerprint(of: spec),
            persons: ["p_00000000000000a1", "p_00000000000000b2"],
            releases: releases)
    }

    /// A count of 2^63 − 301 once made `release` write −9223372036854775808 and exit 0 (release
    /// build), or trap after publishing the first CSV (debug build). Totals a release cannot
    /// carry exactly are refused before anything is spent or published, in one line without
    /// the value.
    @Test(arguments: [
        ("workouts_per_activity_week", Int64.max - 300, false),   // count
        ("distance_per_person_day", Int64.max - 300, true),   // sum
        ("distance_per_person_day", Int64(1) << 50, true),   // sum × resolution 100 beyond 2^53
        ("weekly_resting_hr", Int64.min + 5, true),   // centred mean sum
        ("route_density", Int64.max - 300, false),
    ])   // density cell
    func aTotalBeyondWhatAReleaseCarriesPublishesNothing(release: String, total: Int64, inSums: Bool) throws {
        let dir = Support.temporaryDirectory()
        try CohortFixture.specText.write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
        let spec = try ReleaseSpec.load(path: dir + "/spec.yaml")
        try Self.crafted(spec, release: release, total: total, inSums: inSums).write(to: dir + "/cohort.partial")
        let partial = try PartialAggregate.read(path: dir + "/cohort.partial")

        let error = #expect(throws: InputError.self) {
            try ReleaseRunner.run(spec: spec, partial: partial, outputDirectory: dir + "/dp", ledger: .testing(dir + "/ledger.jsonl"))
        }
        #expect(
            error?.description
                == "\(dir)/cohort.partial: corrupt partial aggregate (release \(release) holds a total beyond 2^53, more than any release can carry)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/dp"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/ledger.jsonl"))

        // The command line: exit 1, one line, no value from the file, nothing published.
        let run = try Support.runCLI([
            "release", "--spec", dir + "/spec.yaml", "--partial", dir + "/cohort.partial",
            "--out", dir + "/dp", "--ledger", dir + "/ledger.jsonl", "--budget-dir", dir + "/ledger.jsonl" + ".budget",
            "--subject", "study",
        ])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(run.stderr.contains("holds a total beyond 2^53"))
        #expect(!run.stderr.contains(String(total)) && !run.stderr.contains(String(total.magnitude)) && !run.stderr.contains("922337"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/dp/weekly_steps.csv"))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: dir + "/dp")) ?? []).isEmpty)
    }

    /// Totals at the limit are released, written as exact integers.
    @Test func aTotalAtTheLimitIsReleased() throws {
        let dir = Support.temporaryDirectory()
        try CohortFixture.specText.write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
        let spec = try ReleaseSpec.load(path: dir + "/spec.yaml")
        let partial = try Self.crafted(spec, release: "workouts_per_activity_week", total: ReleaseRunner.largestTotal, inSums: false)
        _ = try ReleaseRunner.run(spec: spec, partial: partial, outputDirectory: dir + "/dp", ledger: .testing(dir + "/ledger.jsonl"))
        let table = try Support.readCSV(dir + "/dp/workouts_per_activity_week.csv")
        let value = try #require(Int64(table.rows[0][2]))
        #expect(abs(value - ReleaseRunner.largestTotal) < 100)
    }

    @Test func formatNeverTraps() {
        #expect(ReleaseRunner.format(12) == "12")
        #expect(ReleaseRunner.format(2.5) == "2.5")
        #expect(ReleaseRunner.format(9.3e18) == "9.3e+18")
        #expect(ReleaseRunner.format(-.infinity) == "-inf")
    }
}
