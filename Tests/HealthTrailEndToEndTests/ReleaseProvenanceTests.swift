import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailKit
@testable import HealthTrailPrivacy
@testable import HealthTrailRun
@testable import HealthTrailSynth

/// What every published DP row says about its draw: the person mapping it assumed (`persons`)
/// and the budget ledger that recorded it (`ledger`, `ledger_seq`).
@Suite(.serialized) struct ReleaseProvenanceTests {
    /// One weekly release of two weeks, so that a second period comes due later.
    static let specText = """
        budget:
          epsilon: 4
        releases:
          - id: weekly_steps
            metric: daily.steps
            aggregate: sum
            partition: week
            cadence: week
            from: 2023-01-02
            to: 2023-01-15
            privacy_unit: day
            lower: 0
            upper: 40000
            resolution: 10
            max_partitions: 1
            max_contributions: 1
            mechanism: laplace
            epsilon: 0.5

        """

    /// A published CSV's rows, each by column name.
    static func rows(_ path: String) throws -> [[String: String]] {
        let table = try Support.readCSV(path)
        return table.rows.map { Dictionary(uniqueKeysWithValues: zip(table.header, $0)) }
    }

    /// The ledger's `reserved` lines read as plain JSON, not through `BudgetLedger`: their line
    /// number (checked against `seq`), release id and first day.
    static func reservations(_ ledger: String) throws -> [(line: Int, release: String, first: String?)] {
        try String(contentsOfFile: ledger, encoding: .utf8).split(separator: "\n").enumerated().compactMap { index, line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["seq"] as? Int == index + 1)
            guard object["status"] as? String == "reserved" else { return nil }
            return (index + 1, try #require(object["release_id"] as? String), object["first"] as? String)
        }
    }

    @Test func aPeriodKeepsThePersonsItWasDrawnUnderAndNamesItsLedgerLine() throws {
        let dir = Support.temporaryDirectory()
        try Self.specText.write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
        let spec = try ReleaseSpec.load(path: dir + "/spec.yaml")
        _ = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 20, seed: 4))
        _ = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/run"))
        let partial = try PartialAggregate.build(spec: spec, runDirectory: dir + "/run", person: "p_00000000000000a1")
        let ledger = dir + "/ledger.jsonl"
        func release(
            asOf: String, persons: String, into out: String? = nil, ledger location: LedgerLocation? = nil
        ) throws -> [ReleaseRunner.Outcome] {
            try ReleaseRunner.run(
                spec: spec, partial: partial, outputDirectory: out ?? dir + "/dp", ledger: location ?? .testing(ledger),
                asOf: asOf, persons: persons)
        }

        // Week 1 ends on 2023-01-08 and is due from 2023-01-10: drawn while each archive is a person.
        #expect(try release(asOf: "2023-01-10", persons: "each archive").map(\.drawn) == [1])
        let first = try Self.rows(dir + "/dp/weekly_steps.csv")
        #expect(first.map { $0["partition"] } == ["2023-W01"])
        #expect(first.map { $0["persons"] } == ["each archive"])

        // A persons file is added, and week 2 comes due: week 1 is published as it was drawn,
        // week 2 says the mapping it was drawn under.
        #expect(try release(asOf: "2023-01-17", persons: "persons file").map(\.drawn) == [1])
        let both = try Self.rows(dir + "/dp/weekly_steps.csv")
        #expect(both.map { $0["partition"] } == ["2023-W01", "2023-W02"])
        #expect(both.map { $0["persons"] } == ["each archive", "persons file"])
        #expect(both.first == first.first)

        // One ledger for both rows; each row's ledger_seq is the line reserving its week.
        let reserved = try Self.reservations(ledger)
        #expect(reserved.map(\.first) == ["2023-01-02", "2023-01-09"])
        #expect(both.map { $0["ledger_seq"] } == reserved.map { "\($0.line)" })
        let identity = try #require(both.first?["ledger"])
        #expect(identity.count == 16 && identity.allSatisfy(\.isHexDigit), "\(identity)")
        #expect(both.allSatisfy { $0["ledger"] == identity })

        // A replay, whatever it would assume now: the same bytes, nothing drawn.
        let published = try Support.snapshot(dir + "/dp")
        #expect(try release(asOf: "2023-01-17", persons: "each archive").map(\.drawn) == [0])
        #expect(try Support.snapshot(dir + "/dp") == published)

        // Another budget folder, or another subject under the same key: another ledger, which
        // every row shows.
        let freshLedger = dir + "/fresh/ledger.jsonl"
        _ = try release(asOf: "2023-01-10", persons: "each archive", into: dir + "/fresh-dp", ledger: .testing(freshLedger))
        let fresh = try Self.rows(dir + "/fresh-dp/weekly_steps.csv")
        #expect(fresh.map { $0["ledger_seq"] } == ["2"])
        let freshIdentity = try #require(fresh.first?["ledger"])
        #expect(freshIdentity != identity && freshIdentity.count == 16)
        let otherSubject = LedgerLocation(budgetDirectory: ledger + ".budget", subject: "someone else")
        _ = try release(asOf: "2023-01-10", persons: "each archive", into: dir + "/subject-dp", ledger: otherSubject)
        let subjectIdentity = try #require(try Self.rows(dir + "/subject-dp/weekly_steps.csv").first?["ledger"])
        #expect(![identity, freshIdentity].contains(subjectIdentity))

        // The fresh ledger deleted whole (its key kept) and made again in the same second:
        // still another identity.
        for suffix in ["", ".head", ".d"] { try FileManager.default.removeItem(atPath: freshLedger + suffix) }
        _ = try release(asOf: "2023-01-10", persons: "each archive", into: dir + "/again-dp", ledger: .testing(freshLedger))
        let againIdentity = try #require(try Self.rows(dir + "/again-dp/weekly_steps.csv").first?["ledger"])
        #expect(![identity, freshIdentity, subjectIdentity].contains(againIdentity))
    }

    /// A stored table drawn before `persons` was recorded is still published, saying so.
    @Test func aTableStoredWithoutPersonsIsPublishedAsNotRecorded() throws {
        let dir = Support.temporaryDirectory()
        try Self.specText.write(toFile: dir + "/spec.yaml", atomically: true, encoding: .utf8)
        let release = try ReleaseSpec.load(path: dir + "/spec.yaml").releases[0]
        let old =
            "partition,aggregate,value,ci95_low,ci95_high,error95,mechanism,epsilon,rho,delta,lower,upper,resolution,"
            + "privacy_unit,max_partitions,max_contributions\n2023-W01,sum,-20,-40,0,20,discrete_laplace,0.5,0.125,0,0,40000,10,day,1,1\n"
        let published = ReleaseRunner.joinedTables([.init(table: Data(old.utf8), seq: 7)], release: release, ledger: "0123456789abcdef")
        let text = String(decoding: published, as: UTF8.self).split(separator: "\n")
        #expect(text.first.map(String.init) == ReleaseRunner.columns.joined(separator: ","))
        #expect(
            text.last.map(String.init)
                == "2023-W01,sum,0,0,0,20,discrete_laplace,0.5,0.125,0,0,40000,10,day,1,1,not recorded,-20,clamped at 0,0123456789abcdef,7")
    }
}

/// A cohort's persons: byte-identical archives count once, and a cohort that publishes DP
/// states its rule (`privacy.persons`) before anything is drawn.
@Suite(.serialized) struct CohortPersonsRuleTests {
    /// The study's pipeline with `persons` as given (nil: the line removed).
    static func setPersons(_ pipeline: String, _ value: String?) throws {
        let text = try String(contentsOfFile: pipeline, encoding: .utf8)
        let changed = text.replacingOccurrences(of: "  persons: each archive\n", with: value.map { "  persons: \($0)\n" } ?? "")
        #expect(changed != text)
        try changed.write(toFile: pipeline, atomically: true, encoding: .utf8)
    }

    @Test func aByteIdenticalCopyCountsOnceAndEveryRowSaysItsPersonsAndLedger() throws {
        let (root, pipeline) = try CohortRunTests.study(persons: 2, days: 5, broken: false)
        let (copyRoot, copyPipeline) = try CohortRunTests.study(persons: 2, days: 5, broken: false)
        try FileManager.default.removeItem(atPath: copyRoot + "/study/pseudonym.key")
        try FileManager.default.copyItem(atPath: root + "/study/pseudonym.key", toPath: copyRoot + "/study/pseudonym.key")
        // p2's export again under a name that sorts first: the cohort {p1, p2, p0} is {p1, p2}.
        try FileManager.default.copyItem(atPath: copyRoot + "/study/archives/p2.zip", toPath: copyRoot + "/study/archives/p0.zip")

        let plain = try Support.runCLI(["run", "--pipeline", pipeline, "--log-format", "json"])
        let copied = try Support.runCLI(["run", "--pipeline", copyPipeline, "--log-format", "json"])
        #expect(plain.status == 0 && copied.status == 0, "\(plain.stderr)\n\(copied.stderr)")
        // The same persons, the same bounded totals, byte for byte.
        #expect(
            FileManager.default.contents(atPath: root + "/study/out/cohort/merged.partial")
                == FileManager.default.contents(atPath: copyRoot + "/study/out/cohort/merged.partial"))
        let key = try PseudonymKey(path: root + "/study/pseudonym.key")
        let report = try CohortRunTests.json(copyRoot + "/study/out/cohort.json")
        #expect(report["merged"] as? Int == 2)
        let persons = try #require(report["persons"] as? [[String: Any]])
        let identical = persons.filter { $0["status"] as? String == "identical" }
        #expect(identical.count == 1 && identical.first?["identical_to"] as? String == key.pseudonym(for: "p2"), "\(persons)")
        #expect(
            Set(persons.filter { $0["status"] as? String == "ok" }.compactMap { $0["person"] as? String })
                == [key.pseudonym(for: "p1"), key.pseudonym(for: "p2")])
        // A DP run prints the same whether or not the cohort holds a copy (but for the study's
        // folder, and its ledger's name under each study's own budget key).
        func shown(_ text: String, _ folder: String) -> String {
            QuietDPRunTests.withoutTimes(text).replacingOccurrences(of: folder, with: "ROOT")
                .replacingOccurrences(of: #"s_[0-9a-f]{32}"#, with: "s_TAG", options: .regularExpression)
        }
        #expect(shown(plain.stdout, root) == shown(copied.stdout, copyRoot))
        #expect(shown(plain.stderr, root) == shown(copied.stderr, copyRoot))

        // Every row says `each archive` and names one ledger and the line that reserved it.
        let dp = root + "/study/out/dp"
        let ledger = try #require(try CohortRunTests.json(root + "/study/out/cohort.json")["budget_ledger"] as? String)
        let reserved = try ReleaseProvenanceTests.reservations(ledger)
        var identities: Set<String> = []
        for id in ["weekly_resting_hr", "workouts_per_activity_week", "nightly_sleep_minutes", "route_density"] {
            let rows = try ReleaseProvenanceTests.rows(dp + "/\(id).csv")
            #expect(!rows.isEmpty && rows.allSatisfy { $0["persons"] == "each archive" }, "\(id)")
            let line = try #require(reserved.first { $0.release == id }?.line)
            #expect(rows.allSatisfy { $0["ledger_seq"] == "\(line)" }, "\(id)")
            identities.formUnion(rows.compactMap { $0["ledger"] })
        }
        #expect(identities.count == 1)
        let svg = try String(contentsOfFile: dp + "/route_density.svg", encoding: .utf8)
        let density = try ReleaseProvenanceTests.rows(dp + "/route_density.csv")
        #expect(svg.contains("persons: each archive") && svg.contains("ledger \(identities.first!), line \(density[0]["ledger_seq"]!)"))

        // A persons file added later: the periods already published keep saying `each
        // archive`, byte for byte, and nothing is spent.
        let before = try Support.snapshot(dp)
        let ledgerBefore = try Data(contentsOf: URL(fileURLWithPath: ledger))
        try "archive,person\np1.zip,alice\np2.zip,bob\n".write(toFile: root + "/study/persons.csv", atomically: true, encoding: .utf8)
        try Self.setPersons(pipeline, root + "/study/persons.csv")
        let mapped = try Support.runCLI(["run", "--pipeline", pipeline, "--quiet"])
        #expect(mapped.status == 0, "\(mapped.stderr)")
        #expect(try Support.snapshot(dp) == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: ledger)) == ledgerBefore)
    }

    /// Which of identical archives is kept: the one a persons file lists last (an unlisted one
    /// never wins over a listed one), else the one whose name sorts last; whatever the order.
    @Test func ofIdenticalArchivesTheKeptOneDependsOnNamesAndTheFileOnly() throws {
        let dir = Support.temporaryDirectory()
        _ = try ExportSynthesizer.write(to: dir + "/b.zip", options: SynthOptions(days: 2, seed: 1))
        _ = try ExportSynthesizer.write(to: dir + "/other.zip", options: SynthOptions(days: 2, seed: 2))
        for copy in ["a.zip", "c.zip"] { try FileManager.default.copyItem(atPath: dir + "/b.zip", toPath: dir + "/" + copy) }
        try Data("not an archive".utf8).write(to: URL(fileURLWithPath: dir + "/broken.zip"))
        try Data("not an archive".utf8).write(to: URL(fileURLWithPath: dir + "/broken-too.zip"))
        let archives = ["a.zip", "b.zip", "broken.zip", "broken-too.zip", "c.zip", "other.zip"].map { dir + "/" + $0 }
        for order in [archives, archives.reversed()] {
            let byName = IdenticalArchives.split(order, jobs: 2) { _ in nil }
            #expect(Set(byName.kept) == Set(["broken.zip", "broken-too.zip", "c.zip", "other.zip"].map { dir + "/" + $0 }))
            #expect(Set(byName.copies.map { "\($0.copy)>\($0.kept)" }) == ["\(dir)/a.zip>\(dir)/c.zip", "\(dir)/b.zip>\(dir)/c.zip"])
            // A persons file listing a.zip after b.zip, and not c.zip at all.
            let lines = ["a.zip": 3, "b.zip": 2]
            let byFile = IdenticalArchives.split(order, jobs: 1) { lines[PersonMapping.archiveName(of: $0)] }
            #expect(byFile.kept.contains(dir + "/a.zip") && !byFile.kept.contains(dir + "/c.zip"))
            #expect(Set(byFile.copies.map(\.kept)) == [dir + "/a.zip"])
        }
    }

    @Test func aCohortThatPublishesDPWithoutPersonsIsRefusedWithOneLine() throws {
        let (root, pipeline) = try CohortRunTests.study(persons: 1, days: 2, broken: false)
        try Self.setPersons(pipeline, nil)
        for command in [["validate", pipeline], ["run", "--pipeline", pipeline]] {
            let refused = try Support.runCLI(command)
            #expect(refused.status != 0, "\(command)")
            let lines = refused.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(refused.stderr)")
            #expect(
                lines.first.map { $0.contains(pipeline) && $0.contains("privacy.persons") && $0.contains("persons: each archive") }
                    == true, "\(refused.stderr)")
        }
        // Nothing written, no ledger made.
        #expect(!FileManager.default.fileExists(atPath: root + "/study/out"))
        #expect(!FileManager.default.fileExists(atPath: root + "/study/budget"))

        // A cohort without dp needs no rule: each archive is a person.
        let text = try String(contentsOfFile: pipeline, encoding: .utf8)
        try text.replacingOccurrences(of: "outputs: [csv, dp]", with: "outputs: [csv]").write(
            toFile: pipeline, atomically: true, encoding: .utf8)
        let withoutDP = try Support.runCLI(["validate", pipeline])
        #expect(withoutDP.status == 0, "\(withoutDP.stderr)")
        #expect(try PipelineFile.load(path: pipeline).personsAssumption == "each archive")
    }

    @Test func aPersonsFileIsNamedAsSuchInTheSpec() throws {
        let (root, pipeline) = try CohortRunTests.study(persons: 1, days: 2, broken: false)
        try Self.setPersons(pipeline, root + "/study/persons.csv")
        let spec = try PipelineFile.load(path: pipeline)
        #expect(spec.persons == .file(root + "/study/persons.csv") && spec.personsFile == root + "/study/persons.csv")
        #expect(spec.personsAssumption == "persons file")
    }
}
