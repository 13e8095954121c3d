import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailKit
@testable import HealthTrailRun
@testable import HealthTrailSynth

/// Partial aggregates: the file format, exact merging in any order, and what merging refuses.
@Suite struct PartialAggregateTests {
    /// A partial read back from its file, as the next merge would see it.
    func reread(_ partial: PartialAggregate, _ name: String) throws -> PartialAggregate {
        try PartialAggregate(bytes: partial.encode(), file: name)
    }

    @Test func mergeGivesTheSameBytesInEveryOrderAndGrouping() throws {
        let cohort = try CohortFixture.shared()
        let oneShot = try PartialAggregate.merge(cohort.partials).bytes
        #expect(try PartialAggregate.merge(cohort.partials.reversed()).bytes == oneShot)

        // Random groups, merged recursively (merges of merges, read back from bytes each time),
        // the groups themselves merged in random order.
        func mergeRandomly(_ parts: [PartialAggregate], _ rng: inout SynthRandom) throws -> PartialAggregate {
            if parts.count == 1 { return parts[0] }
            let shuffled = parts.shuffled(using: &rng)
            let groups = rng.int(2, min(4, shuffled.count))
            var cuts: Set<Int> = []
            while cuts.count < groups - 1 { cuts.insert(rng.int(1, shuffled.count - 1)) }
            let bounds = [0] + cuts.sorted() + [shuffled.count]
            var merged: [PartialAggregate] = []
            for i in 0..<(bounds.count - 1) {
                merged.append(try reread(try mergeRandomly(Array(shuffled[bounds[i]..<bounds[i + 1]]), &rng), "group"))
            }
            return try PartialAggregate.merge(merged.shuffled(using: &rng))
        }
        var rng = SynthRandom(seed: 2024)
        var groupingsSeen: Set<Data> = []
        for _ in 0..<30 {
            let merged = try mergeRandomly(cohort.partials, &rng)
            #expect(merged.bytes == oneShot)
            groupingsSeen.insert(merged.bytes)
        }
        #expect(groupingsSeen.count == 1)
        #expect(try PartialAggregate.merge(cohort.partials).persons == cohort.people.map(\.name).sorted())
    }

    @Test func mergedTotalsEqualEveryonesContributionsBoundedTogether() throws {
        let cohort = try CohortFixture.shared()
        let merged = try PartialAggregate.merge(cohort.partials)
        for release in cohort.spec.releases {
            var expected = BoundedTotals()
            if release.aggregate == .density {
                // Everyone's route cells in one table of units, bounded in one pass.
                let grid = DensityRelease.grid(for: release)
                var cells: [String: Set<Int>] = [:]
                for person in cohort.people {
                    cells.merge(try DensityRelease.cellsByUnit(release, grid: grid, runDirectory: person.directory, person: person.name)) { _, _ in
                        Issue.record("units of two people share a name"); return []
                    }
                }
                for (cell, count) in DensityRelease.bound(cells, release: release, grid: grid).enumerated() where count > 0 {
                    expected.counts[String(cell)] = count
                }
            } else {
                let all = try cohort.people.flatMap {
                    try ReleaseInputs.contributions(for: release, runDirectory: $0.directory, person: $0.name)
                }
                expected = try ContributionBounding.bound(all, release: release, publicKeys: Set(PublicPartitions.keys(for: release)))
                expected.sums = expected.sums.filter { $0.value != 0 }   // partials leave zero entries out
            }
            #expect(merged.releases[release.id] == expected, "\(release.id)")
            #expect(!(merged.releases[release.id]?.counts.isEmpty ?? true), "\(release.id) has data")
        }

        // Independently of the bounding code: weekly steps (one day, one value; clamped to
        // [0, 40000], on 10-step units) are the plain sums over everyone's daily.csv.
        var counts: [String: Int64] = [:], sums: [String: Int64] = [:]
        for person in cohort.people {
            let daily = try Support.readCSV(person.directory + "/daily.csv")
            let date = daily.header.firstIndex(of: "date")!, steps = daily.header.firstIndex(of: "steps")!
            for row in daily.rows where row[date] >= "2023-01-02" && row[date] <= "2023-01-29" {
                guard let value = Double(row[steps]) else { continue }
                let week = PublicPartitions.isoWeek(PublicPartitions.day(row[date])!)
                counts[week, default: 0] += 1
                sums[week, default: 0] += Int64((min(max(value, 0), 40000) / 10).rounded())
            }
        }
        #expect(merged.releases["weekly_steps"] == BoundedTotals(counts: counts, sums: sums))
        // Person unit, K = 3 days: truncation bites, and no one gives more than K·M.
        let distance = merged.releases["distance_per_person_day"]!
        #expect(distance.counts.values.reduce(0, +) <= Int64(cohort.people.count * 3))
        #expect(cohort.partials.contains { $0.releases["distance_per_person_day"]!.counts.values.reduce(0, +) == 3 })
    }

    @Test func anIdenticalDuplicateCountsOnce() throws {
        let cohort = try CohortFixture.shared()
        let (a, b, c) = (cohort.partials[0], cohort.partials[1], cohort.partials[2])
        let expected = try PartialAggregate.merge([a, b, c]).bytes
        // The same partial delivered twice (a retried task), once as read back from its file.
        #expect(try PartialAggregate.merge([a, b, reread(a, "retry/a.partial"), c, a]).bytes == expected)
        // A merged group delivered twice.
        let ab = try PartialAggregate.merge([a, b])
        #expect(try PartialAggregate.merge([ab, c, reread(ab, "retry/ab.partial")]).bytes == expected)
    }

    @Test func aPersonInTwoDifferentPartialsIsRefused() throws {
        let cohort = try CohortFixture.shared()
        let dir = Support.temporaryDirectory()
        // One pseudonym, two people's data; and a person merged into two different groups.
        let first = try PartialAggregate.build(spec: cohort.spec, runDirectory: cohort.people[0].directory, person: "p_00000000000000aa")
        let second = try PartialAggregate.build(spec: cohort.spec, runDirectory: cohort.people[1].directory, person: "p_00000000000000aa")
        try first.write(to: dir + "/first.partial")
        try second.write(to: dir + "/second.partial")
        let error = #expect(throws: InputError.self) {
            try PartialAggregate.merge([PartialAggregate.read(path: dir + "/first.partial"), PartialAggregate.read(path: dir + "/second.partial")])
        }
        #expect(
            error?.description == "\(dir)/second.partial: person p_00000000000000aa is in two partials: "
                + "\(dir)/first.partial and \(dir)/second.partial")

        let (a, b, c) = (cohort.partials[0], cohort.partials[1], cohort.partials[2])
        let overlapping = try [PartialAggregate.merge([a, b]), PartialAggregate.merge([b, c])]
        let again = #expect(throws: InputError.self) { try PartialAggregate.merge(overlapping) }
        #expect(again?.message.contains("person \(cohort.people[1].name) is in two partials") == true)
    }

    @Test func partialsOfAnotherSpecOrToolVersionAreRefused() throws {
        let cohort = try CohortFixture.shared()
        let dir = Support.temporaryDirectory()
        // The budget is not part of the fingerprint; a release's terms are.
        var budgetOnly = cohort.spec
        budgetOnly.budget = ReleaseSpec.Budget(epsilon: nil, rho: 9)
        #expect(try PartialAggregate.specFingerprint(of: budgetOnly) == PartialAggregate.specFingerprint(of: cohort.spec))
        var other = cohort.spec
        other.releases[0].epsilon = 0.25
        #expect(try PartialAggregate.specFingerprint(of: other) != PartialAggregate.specFingerprint(of: cohort.spec))

        try PartialAggregate.build(spec: other, runDirectory: cohort.people[5].directory, person: "p_other")
            .write(to: dir + "/other-spec.partial")
        let error = #expect(throws: InputError.self) {
            try PartialAggregate.merge([cohort.partials[0], PartialAggregate.read(path: dir + "/other-spec.partial")])
        }
        #expect(error?.file == dir + "/other-spec.partial")
        #expect(error?.message.contains("other release definitions") == true)

        var old = cohort.partials[1]
        old.toolVersion = "0.0.1"
        let versionError = #expect(throws: InputError.self) { try PartialAggregate.merge([cohort.partials[0], old]) }
        #expect(versionError?.message.contains("made by healthtrail 0.0.1") == true)
    }

    @Test func otherFormatsAndCorruptBytesAreRefusedNamingTheFile() throws {
        let cohort = try CohortFixture.shared()
        let dir = Support.temporaryDirectory()
        let good = cohort.partials[0].encode()
        let text = String(decoding: good, as: UTF8.self)
        var zero = try PartialAggregate.merge([cohort.partials[0], cohort.partials[1]])
        zero.releases["weekly_steps"]!.counts["2023-W02"] = 0
        let cases: [(String, [UInt8], String)] = [
            ("text", Array("hello, world\n".utf8), "not a HealthTrail partial aggregate"),
            ("other-format", Array("{\"format\":\"geojson\",\"version\":1}\n".utf8), "not a HealthTrail partial aggregate"),
            (
                "version-3", Array(text.replacingOccurrences(of: "\"version\":2}", with: "\"version\":3}").utf8),
                "partial aggregate format version 3; this healthtrail reads version 2"
            ),
            (
                // Version 1 kept an unkeyed SHA-256 of each person's totals beside the pseudonym.
                "version-1",
                Array(
                    text.replacingOccurrences(of: "\"version\":2}", with: "\"version\":1}")
                        .replacingOccurrences(
                            of: "\"persons\":[\"\(cohort.people[0].name)\"]",
                            with: "\"persons\":{\"\(cohort.people[0].name)\":\"\(String(repeating: "a", count: 64))\"}"
                        ).utf8),
                "partial aggregate format version 1; this healthtrail reads version 2: rebuild it with this version"
            ),
            ("cut", Array(good.dropLast(40)), "corrupt partial aggregate (not valid JSON: cut short?)"),
            ("fields-missing", Array("{\"format\":\"healthtrail-partial\",\"version\":2}\n".utf8), "corrupt partial aggregate (fields missing"),
            ("reindented", Array(text.replacingOccurrences(of: ",\"", with: ", \"").utf8), "not the canonical encoding"),
            ("unsorted", Array(text.replacingOccurrences(of: "\"persons\":[", with: "\"persons\":[\"p_~\",").utf8), "not the canonical encoding"),
            ("zero", zero.encode(), "holds a zero entry"),
        ]
        #expect(try PartialAggregate(bytes: good, file: "good").bytes == Data(good))
        for (name, bytes, message) in cases {
            let path = dir + "/\(name).partial"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: InputError.self, "\(name)") { try PartialAggregate.read(path: path) }
            #expect(error?.description.hasPrefix(path + ": ") == true, "\(name)")
            #expect(error?.message.contains(message) == true, "\(name): \(error?.message ?? "")")
        }
    }

    /// Format version 1 kept, beside each pseudonym, a plain SHA-256 of that person's totals:
    /// anyone holding a partial could hash a guess of the totals and confirm it. A partial now
    /// holds no digest of a person's totals, keyed or not: the only SHA-256 in it is the spec's.
    @Test func aPartialHoldsNoDigestOfAPersonsTotals() throws {
        let cohort = try CohortFixture.shared()
        let dir = Support.temporaryDirectory()
        let merged = try PartialAggregate.merge(cohort.partials)
        // Hex SHA-256 of the canonical `releases` object of `partial`, computed by Python's hashlib.
        func totalsDigest(_ partial: PartialAggregate) throws -> String {
            let file = dir + "/totals.json"
            try Data(PartialAggregate.json(partial.releases).bytes).write(to: URL(fileURLWithPath: file))
            let run = try Support.runProgram(
                "/usr/bin/env", ["python3", "-c", "import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], 'rb').read()).hexdigest())", file])
            let digest = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(digest.count == 64, "\(run.stderr)")
            return digest
        }
        for (name, partial) in [("person", cohort.partials[0]), ("other", cohort.partials[5]), ("merged", merged)] {
            let text = String(decoding: partial.encode(), as: UTF8.self)
            let totals = try totalsDigest(partial)
            #expect(!text.contains(totals), "\(name)")
            let digests = text.matches(of: #/[0-9a-f]{64}/#).map { String($0.output) }
            #expect(digests == [partial.specSHA256], "\(name): \(digests)")
        }
        // Each person's own totals, as version 1 recorded them: in no file, single or merged.
        for partial in cohort.partials.prefix(4) {
            #expect(!String(decoding: merged.encode(), as: UTF8.self).contains(try totalsDigest(partial)))
        }
        // Another cohort key: another pseudonym (the units it names are bounded afresh), and
        // still no digest of the totals.
        try PseudonymKey.generate(at: dir + "/other.key")
        let other = try PseudonymKey(path: dir + "/other.key").pseudonym(for: "person-0")
        #expect(other != cohort.people[0].name)
        let again = try PartialAggregate.build(spec: cohort.spec, runDirectory: cohort.people[0].directory, person: other)
        #expect(again.persons == [other])
        let againText = String(decoding: again.encode(), as: UTF8.self)
        let againDigest = try totalsDigest(again)
        #expect(!againText.contains(cohort.people[0].name) && !againText.contains(againDigest))
    }

    @Test func mergingNothingFailsAndMergingOneChangesNothing() throws {
        let cohort = try CohortFixture.shared()
        #expect(throws: InputError.self) { try PartialAggregate.merge([]) }
        let one = try PartialAggregate.merge([cohort.partials[3]])
        #expect(one.bytes == cohort.partials[3].bytes)
        #expect(one.persons == [cohort.people[3].name])
    }

    @Test func mergedTotalsThatOverflowAreRefusedNeverWrapped() throws {
        func partial(_ person: String, _ count: Int64) -> PartialAggregate {
            let releases = ["r": BoundedTotals(counts: ["2023-W01": count], sums: ["2023-W01": -count])]
            return PartialAggregate(
                specSHA256: String(repeating: "a", count: 64),
                persons: [person], releases: releases, file: person + ".partial")
        }
        #expect(try PartialAggregate.merge([partial("p_a", .max - 2), partial("p_b", 2)]).releases["r"]?.counts["2023-W01"] == .max)
        let error = #expect(throws: InputError.self) { try PartialAggregate.merge([partial("p_a", .max - 2), partial("p_b", 3)]) }
        #expect(error?.message == "release r: the merged totals overflow 64-bit integers")
    }

    @Test func theFileIsCanonicalJSONThatPythonReadsAndWritesByteForByte() throws {
        let cohort = try CohortFixture.shared()
        let dir = Support.temporaryDirectory()
        // Keys and strings that a careless encoder would order or escape differently from Python.
        let odd = [
            "z": BoundedTotals(counts: ["b": 1, "a\"\\\u{1}\n": 2, "ä": 3, "Z": 4], sums: ["b": -7]),
            "é": BoundedTotals(), "a": BoundedTotals(counts: ["10": 5, "9": 6]),
        ]
        let files = [
            ("merged", try PartialAggregate.merge(cohort.partials)),
            (
                "odd",
                PartialAggregate(
                    specSHA256: String(repeating: "0", count: 64),
                    persons: ["p_1", "p_0"],
                    releases: odd)
            ),
        ]
        for (name, partial) in files {
            try partial.write(to: dir + "/\(name).partial")
            let script = """
                import json, sys
                raw = open(sys.argv[1], "rb").read()
                p = json.loads(raw.decode("utf-8"))
                again = (json.dumps(p, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\\n").encode("utf-8")
                print("same" if again == raw else "differs", p["format"], p["version"], len(p["persons"]))
                """
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", script, dir + "/\(name).partial"]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(printed == "same healthtrail-partial 2 \(partial.persons.count)\n", "\(name)")
            #expect(try PartialAggregate.read(path: dir + "/\(name).partial").bytes == partial.bytes)
        }
    }

    @Test func theFileIsWrittenOwnerOnlyAndWhole() throws {
        let cohort = try CohortFixture.shared()
        let dir = Support.temporaryDirectory()
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/p.partial"))
        try cohort.partials[0].write(to: dir + "/p.partial")
        let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/p.partial")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["p.partial"])   // no temporary left
        #expect(FileManager.default.contents(atPath: dir + "/p.partial") == cohort.partials[0].bytes)
        let missing = #expect(throws: InputError.self) { try cohort.partials[0].write(to: dir + "/no/such/folder/p.partial") }
        #expect(missing?.file == dir + "/no/such/folder/p.partial")
    }
}
