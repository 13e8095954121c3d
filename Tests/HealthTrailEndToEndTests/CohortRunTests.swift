import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailKit
@testable import HealthTrailRun
@testable import HealthTrailSynth

/// `healthtrail run --pipeline cohort.yaml`: many people's archives on one machine, each in its own
/// process, merged exactly, released once; one bad archive fails that person only.
@Suite(.serialized) struct CohortRunTests {
    /// A study folder: `archives/p1.zip…pN.zip` from the generator, a broken archive, a key, and the
    /// shipped pipelines/cohort.yaml with its `~` pointing here.
    static func study(persons: Int = 4, days: Int = 8, broken: Bool = true) throws -> (root: String, pipeline: String) {
        let root = Support.temporaryDirectory("cohort")
        let archives = root + "/study/archives"
        try FileManager.default.createDirectory(atPath: archives, withIntermediateDirectories: true)
        for seed in 1...persons {
            _ = try ExportSynthesizer.write(to: archives + "/p\(seed).zip", options: SynthOptions(days: days, seed: UInt64(seed)))
        }
        if broken {
            // A download cut short: the first 4 KB of a good archive.
            let good = try Data(contentsOf: URL(fileURLWithPath: archives + "/p1.zip"))
            try good.prefix(4096).write(to: URL(fileURLWithPath: archives + "/broken.zip"))
        }
        #expect(try Support.runCLI(["keygen", root + "/study/pseudonym.key"]).status == 0)
        let shipped = try String(contentsOfFile: Support.packageRoot.path + "/pipelines/cohort.yaml", encoding: .utf8)
        let pipeline = root + "/cohort.yaml"
        try shipped.replacingOccurrences(of: "~/", with: root + "/").write(toFile: pipeline, atomically: true, encoding: .utf8)
        return (root, pipeline)
    }

    /// Rewrites the study's pipeline with weekly_resting_hr at ρ 0.25 instead of 0.3: the spec still
    /// fits its budget, but it is a new release, which spends again.
    static func lowerRestingHRRho(_ pipeline: String) throws {
        let text = try String(contentsOfFile: pipeline, encoding: .utf8)
        let changed = text.replacingOccurrences(
            of: "      mechanism: gaussian\n      rho: 0.3\n", with: "      mechanism: gaussian\n      rho: 0.25\n")
        #expect(changed != text)
        try changed.write(toFile: pipeline, atomically: true, encoding: .utf8)
    }

    static func json(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
    }

    @Test func aCohortWithOneCorruptArchiveCompletesWithThatOneReported() throws {
        let (root, pipeline) = try Self.study()
        let out = root + "/study/out"
        // --verbose: the figures a cohort publishing DP keeps to cohort.json (QuietDPRunTests).
        let run = try Support.runCLI(["run", "--pipeline", pipeline, "--jobs", "2", "--log-format", "json", "--verbose"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("4 processed, 0 unchanged, 1 failed"))
        #expect(run.stdout.contains("failed: \(root)/study/archives/broken.zip"))   // the terminal may name it

        let report = try Self.json(out + "/cohort.json")
        let persons = report["persons"] as! [[String: Any]]
        #expect(persons.count == 5)
        // No timing beside a pseudonym, nor the cohort's: cohort.json sits beside the releases.
        #expect(report["seconds"] == nil)
        #expect(persons.allSatisfy { Set($0.keys).isSubset(of: ["person", "status", "error"]) }, "\(persons)")
        let personLines = run.stderr.split(separator: "\n").filter { $0.contains("cohort.person_") }
        #expect(personLines.count == 5 && personLines.allSatisfy { !$0.contains("seconds") }, "\(personLines)")
        let failed = persons.filter { $0["status"] as? String == "failed" }
        #expect(failed.count == 1)
        let error = failed.first?["error"] as? String ?? ""
        #expect(error.contains("not a complete zip archive"))
        #expect(report["merged"] as? Int == 4)
        #expect((report["releases"] as! [[String: Any]]).count == 4)
        let ledger = report["budget_ledger"] as? String ?? ""
        #expect(ledger.hasPrefix(root + "/study/budget/ledgers/s_") && FileManager.default.fileExists(atPath: ledger), "\(ledger)")

        // Outputs name persons by pseudonym only: no archive name anywhere, in paths or in text.
        let everything = try Support.snapshot(out)
        for (path, bytes) in everything {
            let text = String(decoding: bytes, as: UTF8.self)
            for name in ["broken", "p1.zip", "p2.zip", "/archives/"] {
                #expect(!path.contains(name) && !text.contains(name), "\(path) names an archive")
            }
        }
        let partials = try FileManager.default.contentsOfDirectory(atPath: out + "/partials").sorted()
        #expect(partials.count == 4 && partials.allSatisfy { $0.hasPrefix("p_") && $0.hasSuffix(".partial") })
        #expect(try FileManager.default.contentsOfDirectory(atPath: out + "/persons").count == 4)
        for id in ["weekly_resting_hr", "workouts_per_activity_week", "nightly_sleep_minutes", "route_density"] {
            #expect(try Support.readCSV(out + "/dp/\(id).csv").rows.count > 0)
        }
        // DP releases apart from the raw outputs: dp/ holds only released files.
        #expect(try FileManager.default.contentsOfDirectory(atPath: out + "/dp").allSatisfy { $0.hasSuffix(".csv") || $0.hasSuffix(".svg") })

        // The cohort's merge is the exact merge: `healthtrail merge` of the partials in another order.
        let list = root + "/partials.txt"
        try partials.reversed().map { out + "/partials/" + $0 }.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        #expect(try Support.runCLI(["merge", "--list", list, "--out", root + "/merged-again.partial"]).status == 0)
        #expect(
            FileManager.default.contents(atPath: root + "/merged-again.partial")
                == FileManager.default.contents(atPath: out + "/cohort/merged.partial"))

        // Every file and folder the cohort made is owner-only, however deep.
        let walker = FileManager.default.enumerator(atPath: out)!
        var checked = 0
        for case let relative as String in walker {
            var st = stat()
            #expect(lstat(out + "/" + relative, &st) == 0)
            #expect(st.st_mode & 0o077 == 0, "\(relative) has mode \(String(st.st_mode & 0o777, radix: 8))")
            checked += 1
        }
        #expect(checked > 50)

        // One job or two: the same merged bytes.
        let serial = try Support.runCLI(["run", "--pipeline", pipeline, "--jobs", "1", "--out", root + "/serial", "--quiet"])
        #expect(serial.status == 0)
        #expect(
            FileManager.default.contents(atPath: root + "/serial/cohort/merged.partial")
                == FileManager.default.contents(atPath: out + "/cohort/merged.partial"))

        // The log: one JSON object per line, persons by pseudonym.
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count >= 7)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["event"] != nil && object?["level"] != nil, "not a log event: \(line)")
            #expect(!line.contains("broken") && !line.contains("p1.zip"))
        }
        #expect(lines.contains { $0.contains("\"event\":\"cohort.person_failed\"") })
    }

    /// A person joins and the study's releases change so that the budget cannot pay for them:
    /// the run fails with nothing spent, and `dp/`, `cohort/merged.partial` and `cohort.json`
    /// still describe the cohort that was released; the next run tries (and reports) it again.
    @Test func aCohortOverBudgetLeavesItsReleasesAndReportAsTheyWere() throws {
        let (root, pipeline) = try Self.study(persons: 2, days: 5, broken: false)
        let out = root + "/study/out"
        #expect(try Support.runCLI(["run", "--pipeline", pipeline, "--quiet"]).status == 0)   // ρ 1.0 of 1.0
        func described() throws -> [String: Data] {
            try Support.snapshot(out).filter { $0.key.hasPrefix("/dp/") || $0.key.hasPrefix("/cohort") || $0.key.hasPrefix("/privacy-ledger") }
        }
        let before = try described()
        #expect(before.keys.contains("/cohort.json") && before.keys.contains("/cohort/merged.partial"))
        _ = try ExportSynthesizer.write(to: root + "/study/archives/p3.zip", options: SynthOptions(days: 5, seed: 3))
        // A new ρ for the resting heart rate is a new release: ρ 0.25 more, past the ρ 1.0.
        try Self.lowerRestingHRRho(pipeline)
        for attempt in 1...2 {
            let run = try Support.runCLI(["run", "--pipeline", pipeline, "--quiet"])
            #expect(run.status == 1, "attempt \(attempt): \(run.stderr)")
            #expect(run.stderr.contains("refused, nothing recorded"), "attempt \(attempt): \(run.stderr)")
            #expect(try described() == before, "attempt \(attempt)")
        }
        #expect((try Self.json(out + "/cohort.json"))["merged"] as? Int == 2)
    }

    /// A cohort that publishes DP releases exits 0 with nothing new too: exit 3 would tell that
    /// nobody's archive changed (QuietDPRunTests compares it with a changed cohort).
    @Test func aSecondCohortRunWithNothingNewExitsWith0AndTouchesNothing() throws {
        let (root, pipeline) = try Self.study(persons: 3, days: 5, broken: false)
        #expect(try Support.runCLI(["run", "--pipeline", pipeline, "--quiet"]).status == 0)
        let before = try UnattendedRunTests.fingerprint(root + "/study/out").filter { !$0.key.hasSuffix(".lock") }
        let again = try Support.runCLI(["run", "--pipeline", pipeline, "--quiet"])
        #expect(again.status == 0, "\(again.stderr)")
        let after = try UnattendedRunTests.fingerprint(root + "/study/out").filter { !$0.key.hasSuffix(".lock") }
        #expect(UnattendedRunTests.changed(after, before) == [])
    }

    @Test func aCohortWithoutItsKeyRefusesToRun() throws {
        let (root, pipeline) = try Self.study(persons: 1, days: 2, broken: false)
        try FileManager.default.removeItem(atPath: root + "/study/pseudonym.key")
        let run = try Support.runCLI(["run", "--pipeline", pipeline, "--quiet"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("pseudonym.key"))
        #expect(!FileManager.default.fileExists(atPath: root + "/study/out/persons"))
    }
}

/// A cohort's privacy unit is the person, not the archive: `privacy.persons` maps archives to
/// persons, and two exports of one person count once.
@Suite(.serialized) struct CohortPersonsTests {
    @Test func aMappingFileIsReadWithItsMistakesAtTheirLines() throws {
        let dir = Support.temporaryDirectory()
        func mistake(_ text: String) -> InputError? {
            try? text.write(toFile: dir + "/persons.csv", atomically: true, encoding: .utf8)
            do { _ = try PersonMapping(path: dir + "/persons.csv"); return nil } catch let e as InputError { return e } catch { return nil }
        }
        #expect(mistake("archive,name\na.zip,alice\n")?.line == 1)
        #expect(mistake("# study 7\narchive,person\na.zip,alice\nb.zip\n")?.line == 4)
        let twice = mistake("archive,person\na.zip,alice\n\na.zip,bob\n")
        #expect(twice?.line == 4 && twice?.message.contains("listed already, on line 2") == true)
        #expect(mistake("archive,person\nold/a.zip,alice\n")?.line == 2)
        #expect(mistake("archive,person\r\na.zip,alice\r\n") == nil)   // written on Windows
        #expect(mistake("archive,person\na.zip,alice\nb.zip, bob\n") == nil)
        let mapping = try PersonMapping(path: dir + "/persons.csv")
        #expect(mapping.person(ofArchive: "/x/y/b.zip") == "bob" && mapping.person(ofArchive: "/x/c.zip") == nil)
        // Of one person's archives the one listed last is used, whatever the order given.
        try "archive,person\nold.zip,alice\nbob.zip,bob\nnew.zip,alice\n".write(toFile: dir + "/persons.csv", atomically: true, encoding: .utf8)
        let sorted = try PersonMapping(path: dir + "/persons.csv").choose(["/s/new.zip", "/s/x.zip", "/s/old.zip", "/s/bob.zip"])
        #expect(sorted.chosen.map(\.archive) == ["/s/new.zip", "/s/bob.zip"] && sorted.chosen.map(\.person) == ["alice", "bob"])
        #expect(sorted.superseded == ["/s/old.zip"] && sorted.unlisted == ["/s/x.zip"])
    }

    @Test func twoArchivesOfOnePersonCountOnceAndAnUnlistedOneFails() throws {
        let (root, pipeline) = try CohortRunTests.study(persons: 3, days: 5, broken: false)
        let archives = root + "/study/archives"
        // p1 and p2 are two exports of alice (p2 the later), p3 is bob's; x.zip is nobody's.
        // (Another export, not a copy of p1: a byte-identical copy would count as p1, IdenticalArchives.)
        _ = try ExportSynthesizer.write(to: archives + "/x.zip", options: SynthOptions(days: 5, seed: 9))
        try "archive,person\np1.zip,alice\np3.zip,bob\np2.zip,alice\n".write(
            toFile: root + "/study/persons.csv", atomically: true, encoding: .utf8)
        let text = try String(contentsOfFile: pipeline, encoding: .utf8)
        try text.replacingOccurrences(of: "  persons: each archive\n", with: "  persons: \(root)/study/persons.csv\n")
            .write(toFile: pipeline, atomically: true, encoding: .utf8)
        // --verbose: the superseded archive is logged (a cohort publishing DP keeps it to cohort.json).
        let run = try Support.runCLI(["run", "--pipeline", pipeline, "--quiet", "--verbose", "--log-format", "json", "--log-level", "info"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try CohortRunTests.json(root + "/study/out/cohort.json")
        #expect(report["merged"] as? Int == 2 && report["superseded"] as? Int == 1)
        let persons = report["persons"] as! [[String: Any]]
        let key = try PseudonymKey(path: root + "/study/pseudonym.key")
        let ok = Set(persons.filter { $0["status"] as? String == "ok" }.compactMap { $0["person"] as? String })
        #expect(ok == [key.pseudonym(for: "alice"), key.pseudonym(for: "bob")])
        let failed = persons.filter { $0["status"] as? String == "failed" }
        #expect(failed.count == 1 && (failed.first?["error"] as? String)?.contains("not listed in privacy.persons") == true)
        #expect(run.stderr.contains("\"cohort.archive_superseded\""))

        // The same as a cohort of alice.zip (p2) and bob.zip (p3) without a mapping: the same
        // merged totals, byte for byte. Alice's earlier export adds nothing to the bound.
        let (plainRoot, plainPipeline) = try CohortRunTests.study(persons: 3, days: 5, broken: false)
        let plain = plainRoot + "/study/archives"
        try FileManager.default.removeItem(atPath: plainRoot + "/study/pseudonym.key")
        try FileManager.default.copyItem(atPath: root + "/study/pseudonym.key", toPath: plainRoot + "/study/pseudonym.key")
        try FileManager.default.moveItem(atPath: plain + "/p2.zip", toPath: plain + "/alice.zip")
        try FileManager.default.moveItem(atPath: plain + "/p3.zip", toPath: plain + "/bob.zip")
        try FileManager.default.removeItem(atPath: plain + "/p1.zip")
        let second = try Support.runCLI(["run", "--pipeline", plainPipeline, "--quiet"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(
            FileManager.default.contents(atPath: root + "/study/out/cohort/merged.partial")
                == FileManager.default.contents(atPath: plainRoot + "/study/out/cohort/merged.partial"))
    }

    @Test func aPersonPipelineHasNoPersonsAndPartialUsesTheMapping() throws {
        let found = try PipelineFileTests.problems(
            PipelineFileTests.base + ["privacy:", "  persons: persons.csv"], name: "personsInPerson")
        #expect(found.first?.keyPath == "privacy.persons" && found.first?.message.contains("for cohort pipelines") == true)

        let (root, pipeline) = try CohortRunTests.study(persons: 1, days: 3, broken: false)
        try "archive,person\np1.zip,alice\n".write(toFile: root + "/study/persons.csv", atomically: true, encoding: .utf8)
        let text = try String(contentsOfFile: pipeline, encoding: .utf8)
        try text.replacingOccurrences(of: "  persons: each archive\n", with: "  persons: \(root)/study/persons.csv\n")
            .write(toFile: pipeline, atomically: true, encoding: .utf8)
        let partial = try Support.runCLI(["partial", root + "/study/archives/p1.zip", "--pipeline", pipeline, "--out", root + "/p1.partial"])
        #expect(partial.status == 0, "\(partial.stderr)")
        let persons =
            try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root + "/p1.partial"))) as? [String: Any])[
                "persons"] as? [String]
        #expect(persons == [try PseudonymKey(path: root + "/study/pseudonym.key").pseudonym(for: "alice")])
        try FileManager.default.copyItem(atPath: root + "/study/archives/p1.zip", toPath: root + "/study/archives/zed.zip")
        let unlisted = try Support.runCLI(["partial", root + "/study/archives/zed.zip", "--pipeline", pipeline, "--out", root + "/zed.partial"])
        #expect(unlisted.status == 1 && unlisted.stderr.contains("the archive zed.zip is not listed"), "\(unlisted.stderr)")
    }
}
