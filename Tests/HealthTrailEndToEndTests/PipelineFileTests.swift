import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailKit
@testable import HealthTrailPrivacy
@testable import HealthTrailRun
@testable import HealthTrailSynth

/// Pipeline files: the schema check (every mistake at its line), the model a good file becomes,
/// release files named by a pipeline, the shipped examples, `healthtrail validate`, and which
/// archives an input path names.
@Suite struct PipelineFileTests {
    /// A valid person pipeline without privacy; cases below edit one line or add a few.
    static let base = [
        "version: 1",   // 1
        "kind: person",   // 2
        "input:",   // 3
        "  path: ~/exports",   // 4
        "output: out",   // 5
        "outputs: [csv, geojson]",   // 6
    ]

    /// A release that passes every check, as inline YAML lines (indented for privacy.releases).
    static func release(_ id: String, unit: String? = "day", extra: [String] = []) -> [String] {
        [
            "    - id: \(id)", "      metric: daily.steps", "      aggregate: sum", "      partition: week",
            "      from: 2023-01-02", "      to: 2023-03-31",
        ]
            + (unit.map { ["      privacy_unit: \($0)"] } ?? [])
            + [
                "      lower: 0", "      upper: 40000", "      max_partitions: 1", "      max_contributions: 1",
                "      mechanism: laplace", "      epsilon: 0.5",
            ] + extra
    }

    /// Writes `lines` as `pipeline.yaml` (plus `files`, name → text) in a fresh folder; returns its path.
    static func write(_ lines: [String], files: [String: String] = [:], name: String = #function) throws -> String {
        let dir = Support.temporaryDirectory(name)
        for (file, text) in files { try text.write(toFile: dir + "/" + file, atomically: true, encoding: .utf8) }
        let path = dir + "/pipeline.yaml"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The problems loading `lines` reports (none when it loads).
    static func problems(_ lines: [String], files: [String: String] = [:], name: String = #function) throws -> [PipelineProblem] {
        let path = try write(lines, files: files, name: name)
        do {
            _ = try PipelineFile.load(path: path, home: "/home/tester")
            return []
        } catch let invalid as PipelineInvalid {
            #expect(invalid.file == path)
            return invalid.problems
        }
    }

    // MARK: one mistake, one problem, at its line

    @Test(arguments: [
        // name, lines, line, key path, words the message must hold
        ("YAML syntax", base.map { $0 == "output: out" ? "output: out: more" : $0 }, 5, "", "YAML syntax error"),
        ("unknown key", base + ["join_tolerence_s: 15"], 7, "join_tolerence_s", "did you mean join_tolerance_s?"),
        ("unknown nested key", base + ["maps:", "  colour_scal: viridis"], 8, "maps.colour_scal", "did you mean colour_scale?"),
        ("unknown key far from all", base + ["frobnicate: 1"], 7, "frobnicate", "unknown key"),
        ("wrong type", base + ["join_tolerance_s: fast"], 7, "join_tolerance_s", "must be a whole number 0…3600 seconds, got text \"fast\""),
        ("quoted number", base + ["join_tolerance_s: \"15\""], 7, "join_tolerance_s", "got text \"15\""),
        ("empty list", base + ["source_priority: []"], 7, "source_priority", "must not be empty"),
        ("word for a mapping or word", base + ["zones: fast"], 7, "zones", "must be one of standard, from_birth_date; got \"fast\""),
        (
            "text for a list", base.map { $0.hasPrefix("outputs") ? "outputs: csv" : $0 }, 6, "outputs",
            "must be a list of csv, geojson, svg, report, dp"
        ),
        ("out of range", base + ["join_tolerance_s: 5000"], 7, "join_tolerance_s", "must be 0…3600 seconds, got 5000"),
        ("number out of range", base + ["zones: {max_hr: 300}"], 7, "zones.max_hr", "must be 100…250 bpm, got 300"),
        ("unknown word", base.map { $0 == "kind: person" ? "kind: persn" : $0 }, 2, "kind", "did you mean person?"),
        ("unknown word in a list", base.map { $0.hasPrefix("outputs") ? "outputs: [csv, geojsn]" : $0 }, 6, "outputs[1]", "did you mean geojson?"),
        ("missing key", base.map { $0 == "  path: ~/exports" ? "  pick: newest" : $0 }, 3, "input.path", "required key missing"),
        ("missing top key", Array(base.dropFirst()), 1, "version", "required key missing"),
        ("wrong version", base.map { $0 == "version: 1" ? "version: 2" : $0 }, 1, "version", "must be 1, got 2"),
        ("empty value", base.map { $0 == "output: out" ? "output:" : $0 }, 5, "output", "needs a value"),
        ("duplicate key", base + ["strict: true", "strict: false"], 8, "strict", "duplicate key (first at line 7)"),
        ("listed twice", base.map { $0.hasPrefix("outputs") ? "outputs: [csv, svg, csv]" : $0 }, 6, "outputs[2]", "csv is listed twice"),
        ("no csv", base.map { $0.hasPrefix("outputs") ? "outputs: [geojson]" : $0 }, 6, "outputs", "must include csv"),
        ("person picks all", base.flatMap { $0 == "  path: ~/exports" ? [$0, "  pick: all"] : [$0] }, 5, "input.pick", "pick all is for cohort"),
        ("jobs in a person pipeline", base + ["jobs: 2"], 7, "jobs", "jobs is for cohort pipelines"),
        ("dp without releases", base.map { $0.hasPrefix("outputs") ? "outputs: [csv, dp]" : $0 }, 6, "outputs", "dp needs privacy.releases"),
        (
            "default outputs without releases", base.filter { !$0.hasPrefix("outputs") }, 1, "outputs",
            "the default outputs (csv, geojson, svg, report, dp) include dp"
        ),
        ("key file in a person pipeline", base + ["privacy:", "  key_file: k.key"], 8, "privacy.key_file", "no person ids"),
        ("unit person in a person pipeline", base + ["privacy:", "  unit: person"], 8, "privacy.unit", "cannot use unit person"),
        ("both budgets", base + ["privacy:", "  budget: {epsilon: 1, rho: 1}"], 8, "privacy.budget", "exactly one of epsilon or rho"),
        ("zero budget", base + ["privacy:", "  budget: {rho: 0}"], 8, "privacy.budget.rho", "must be > 0 and ≤ 100, got 0"),
        ("map latitude", base + ["maps:", "  area: [-91, 2.25, 48.92, 2.42]"], 8, "maps.area[0]", "minLat must be within ±90"),
        ("map area order", base + ["maps:", "  area: [48.92, 2.25, 48.80, 2.42]"], 8, "maps.area", "minLat must be below maxLat"),
        (
            "glob in a folder", base.map { $0 == "  path: ~/exports" ? "  path: ~/*/export.zip" : $0 }, 4, "input.path",
            "only be in the last component"
        ),
        ("home of another user", base.map { $0 == "output: out" ? "output: ~bob/out" : $0 }, 5, "output", "~user paths are not supported"),
    ])
    func eachMistakeIsReportedAtItsLine(_ name: String, _ lines: [String], _ line: Int, _ keyPath: String, _ words: String) throws {
        let found = try Self.problems(lines, name: name)
        #expect(found.count == 1, "\(name): \(found)")
        #expect(found.first?.line == line, "\(name): \(found)")
        #expect(found.first?.keyPath == keyPath, "\(name): \(found)")
        #expect(found.first?.message.contains(words) == true, "\(name): \(found)")
    }

    @Test func aCohortNeedsAKeyFile() throws {
        let lines = Self.base.map { $0 == "kind: person" ? "kind: cohort" : $0 } + ["privacy:", "  unit: person"]
        let found = try Self.problems(lines)
        #expect(found.map(\.line) == [7] && found.map(\.keyPath) == ["privacy.key_file"])
        #expect(found.first?.message.contains("HMAC-SHA256") == true)
        // Without a privacy section at all, the whole file is the place.
        let bare = try Self.problems(Self.base.map { $0 == "kind: person" ? "kind: cohort" : $0 })
        #expect(bare.map(\.line) == [1] && bare.map(\.keyPath) == ["privacy.key_file"])
    }

    @Test func theColumnPointsAtTheValue() throws {
        let found = try Self.problems(Self.base + ["maps:", "  size: 50"])
        #expect(found.map { "\($0.line):\($0.column)" } == ["8:9"])
        #expect(found.first?.description == "maps.size: must be 100…10000 pixels, got 50")
    }

    @Test func severalMistakesAreAllReportedInLineOrder() throws {
        let lines = [
            "version: 3",   // 1: wrong version
            "kind: person",
            "input:",
            "  path: ~/exports",
            "  pick: all",   // 5: person + all
            "output: out",
            "outputs: [csv]",
            "join_tolerance_s: 9999",   // 8: out of range
            "strickt: true",   // 9: unknown key
            "jobs: 4",   // 10: cohort only
        ]
        let path = try Self.write(lines)
        let error = #expect(throws: PipelineInvalid.self) { try PipelineFile.load(path: path, home: "/home/tester") }
        #expect(error?.problems.map(\.line) == [1, 5, 8, 9, 10])
        #expect(error?.problems.map(\.keyPath) == ["version", "input.pick", "join_tolerance_s", "strickt", "jobs"])
        #expect(error?.lines[2] == "\(path):8:19: join_tolerance_s: must be 0…3600 seconds, got 9999")
        #expect(error?.lines[3].hasSuffix("strickt: unknown key; did you mean strict?") == true)
        #expect(error?.description.split(separator: "\n").count == 5)
    }

    @Test func aFileThatIsNotAMappingSaysWhatItShouldBe() throws {
        let found = try Self.problems(["- just", "- a list"])
        #expect(found.count == 1 && found.first?.line == 1)
        #expect(found.first?.message.contains("must be a mapping of version, kind, input") == true)
        #expect(try Self.problems(["# only a comment"]).first?.message == "the file is empty")
    }

    // MARK: the model

    @Test func aGoodFileBecomesTheModel() throws {
        let lines =
            [
                "version: 1", "kind: cohort",
                "input:", "  path: ~/study/*.zip",
                "output: ../results/./out/",
                "outputs: [csv, svg, dp]",
                "strict: true", "join_tolerance_s: 30", "zones: {max_hr: 185}",
                "source_priority: [Apple Watch, iPhone]",
                "maps:", "  kinds: [routes, density]", "  size: 1200", "  colour_scale: inferno",
                "  area: [48.80, 2.25, 48.92, 2.42]", "  min_points: 5",
                "geojson_times: true", "ecg_samples: true", "jobs: 3",
                "privacy:", "  unit: person", "  key_file: keys/pseudonym.key", "  persons: each archive", "  budget: {epsilon: 3}",
                "  releases:",
            ] + Self.release("steps_a", unit: nil) + Self.release("steps_b", unit: "person")
        let path = try Self.write(lines)
        let spec = try PipelineFile.load(path: path, home: "/home/tester")
        let folder = (path as NSString).deletingLastPathComponent
        let parent = (folder as NSString).deletingLastPathComponent
        #expect(spec.file == path)
        #expect(spec.kind == .cohort && spec.pick == .all)
        #expect(spec.inputPath == "/home/tester/study/*.zip")
        #expect(spec.output == parent + "/results/out")
        #expect(spec.outputs == [.csv, .svg, .dp])
        #expect(spec.strict && spec.joinToleranceSeconds == 30 && spec.zones == .maximum(185))
        #expect(spec.sourcePriority == ["Apple Watch", "iPhone"])
        #expect(
            spec.maps
                == PipelineSpec.Maps(
                    kinds: ["routes", "density"], size: 1200, colourScale: "inferno",
                    area: [48.80, 2.25, 48.92, 2.42], minPoints: 5))
        #expect(spec.geojsonTimes == true && spec.ecgSamples == true && spec.jobs == 3)
        #expect(spec.runOptions(inputPath: "/in.zip", outputDirectory: "/out").ecgSamples)
        #expect(spec.privacyUnit == .person && spec.keyFile == folder + "/keys/pseudonym.key")
        #expect(spec.persons == .eachArchive && spec.personsFile == nil && spec.personsAssumption == "each archive")
        #expect(spec.releases?.budget == ReleaseSpec.Budget(epsilon: 3, rho: nil))
        #expect(spec.releases?.releases.map(\.id) == ["steps_a", "steps_b"])
        #expect(spec.releases?.releases.map(\.privacyUnit) == [.person, .person])   // filled in, and stated alike
        #expect(
            spec.summary.hasPrefix(
                "cohort pipeline: all archives of /home/tester/study/*.zip → \(parent)/results/out; outputs csv, svg, dp; jobs 3; 2 releases (epsilon budget 3)"
            ))
    }

    @Test func leftOutSettingsTakeTheirDefaults() throws {
        let spec = try PipelineFile.load(path: try Self.write(Self.base), home: "/home/tester")
        #expect(spec.pick == .newest && !spec.strict && spec.outputs == [.csv, .geojson])
        #expect(spec.joinToleranceSeconds == nil && spec.zones == nil && spec.maps == nil && spec.jobs == nil)
        #expect(spec.releases == nil && spec.keyFile == nil && spec.privacyUnit == nil)
        // `maps:` with every key commented out is no maps section, not a mistake.
        let commented = try PipelineFile.load(path: try Self.write(Self.base + ["maps:", "  # size: 800"]), home: "/home/tester")
        #expect(commented.maps == nil)
        // A cohort reads every archive by default.
        let cohort = Self.base.map { $0 == "kind: person" ? "kind: cohort" : $0 } + ["privacy:", "  key_file: ~/k"]
        #expect(try PipelineFile.load(path: try Self.write(cohort), home: "/home/tester").pick == .all)
    }

    // MARK: releases and the privacy unit

    @Test func withoutAPipelineUnitEveryReleaseStatesItsOwn() throws {
        let lines = Self.base + ["privacy:", "  budget: {rho: 1}", "  releases:"] + Self.release("a") + Self.release("b", unit: nil)
        let found = try Self.problems(lines)
        // The first release starts at line 10 and has 13 lines: the second one's first line is
        // where its missing key is reported.
        #expect(found.map(\.line) == [23])
        #expect(found.first?.keyPath == "privacy.releases[1].privacy_unit")
        #expect(found.first?.message.contains("no privacy.unit is set to fill it in") == true)
    }

    @Test func aStatedUnitMustAgreeWithThePipelineUnit() throws {
        let lines =
            Self.base + ["privacy:", "  unit: day", "  budget: {rho: 1}", "  releases:"]
            + Self.release("a", unit: nil) + Self.release("b", unit: "person")
        let found = try Self.problems(lines)
        // a: lines 11…22 (no privacy_unit); b's privacy_unit is its 7th line.
        #expect(found.map(\.line) == [23 + 6])
        #expect(found.first?.keyPath == "privacy.releases[1].privacy_unit")
        #expect(found.first?.message.contains("states privacy_unit person but privacy.unit is day") == true)
    }

    @Test func aReleaseCheckFailureIsReportedAtTheOffendingKey() throws {
        var release = Self.release("a")
        release[release.firstIndex(of: "      upper: 40000")!] = "      upper: -5"
        let lines = Self.base + ["privacy:", "  budget: {rho: 1}", "  releases:"] + release + Self.release("a")
        let found = try Self.problems(lines)
        // The first release is lines 10…22 (upper: 18); the repeated id is the next line.
        #expect(found.map(\.line) == [18, 23])
        #expect(found.map(\.keyPath) == ["privacy.releases[0].upper", "privacy.releases[1].id"])
        #expect(found[0].message.contains("lower < upper") && found[1].message.contains("ids must be unique"))
    }

    @Test func aPureEpsilonBudgetCannotPayForGaussianReleases() throws {
        var gaussian = Self.release("g")
        gaussian[gaussian.firstIndex(of: "      mechanism: laplace")!] = "      mechanism: gaussian"
        gaussian[gaussian.firstIndex(of: "      epsilon: 0.5")!] = "      rho: 0.1"
        gaussian[gaussian.firstIndex(of: "      upper: 40000")!] = "      upper: 100"   // σ² = 100²/0.2: in range
        let lines = Self.base + ["privacy:", "  budget: {epsilon: 1}", "  releases:"] + gaussian
        let found = try Self.problems(lines)
        // The release starts at line 10; mechanism is its 12th line.
        #expect(found.map(\.line) == [21] && found.first?.keyPath == "privacy.releases[0].mechanism", "\(found)")
        #expect(found.first?.message.contains("budget in rho") == true)
    }

    @Test func theReleasesMustFitTheBudgetOfEachUnit() throws {
        // Three Laplace releases of the days at ε 0.5 cost a day ε 1.5 (ρ 0.375), and each
        // workout of that day as much.
        let releases = Self.release("a") + Self.release("b") + Self.release("c")
        let tooSmall = try Self.problems(Self.base + ["privacy:", "  budget: {epsilon: 1.2}", "  releases:"] + releases)
        #expect(tooSmall.map(\.line) == [8, 8] && tooSmall.first?.keyPath == "privacy.budget", "\(tooSmall)")
        #expect(tooSmall.first?.message.contains("spend epsilon 1.5 for a day, more than the whole budget 1.2") == true)
        #expect(tooSmall.last?.message.contains("spend epsilon 1.5 for a workout") == true)
        let rho = try Self.problems(Self.base + ["privacy:", "  budget: {rho: 0.3}", "  releases:"] + releases)
        #expect(rho.first?.message.contains("spend rho 0.375 for a day") == true)
        #expect(try Self.problems(Self.base + ["privacy:", "  budget: {epsilon: 1.5}", "  releases:"] + releases).isEmpty)
        // A release of workouts is charged to workouts only: two of the days and one of the
        // workouts cost a day 1.0 and a workout 1.5.
        let mixed =
            Self.release("a") + Self.release("b")
            + Self.release("w", unit: "workout").map {
                $0.replacingOccurrences(of: "daily.steps", with: "workouts.count")
            }
        let workout = try Self.problems(Self.base + ["privacy:", "  budget: {epsilon: 1.2}", "  releases:"] + mixed)
        #expect(workout.count == 1 && workout.first?.message.contains("spend epsilon 1.5 for a workout") == true, "\(workout)")
        // A weekly release costs the person once a week: 12 whole weeks × ε 0.5 in a cohort.
        let cohortBase = Self.base.map { $0.hasPrefix("kind") ? "kind: cohort" : $0 }
        let weekly = Self.release("w", unit: "person", extra: ["      cadence: week"])
        let person = try Self.problems(
            cohortBase + ["privacy:", "  key_file: key", "  budget: {epsilon: 5.5}", "  releases:"] + weekly)
        #expect(person.contains { $0.message.contains("spend epsilon 6 for a person") }, "\(person)")
    }

    @Test func releaseFileProblemsCarryItsNameAndLines() throws {
        let releasesFile = """
            budget:
              rho: 2
            releases:
              - id: bad
                metric: daily.steps
                aggregate: sum
                partition: week
                from: 2023-01-02
                to: 2023-03-31
                privacy_unit: day
                lower: 0
                upper: 40000
                max_partitions: 1
                max_contributions: 1
                mechanism: laplace
                epsilon: 50
                colour: red

            """
        let lines = Self.base + ["privacy:", "  releases: specs/releases.yaml"]
        let path = try Self.write(lines)
        let folder = (path as NSString).deletingLastPathComponent
        // Missing: reported in the pipeline, at the line naming it.
        let missing = #expect(throws: PipelineInvalid.self) { try PipelineFile.load(path: path, home: "/home/tester") }
        #expect(
            missing?.lines == [
                "\(path):8:13: privacy.releases: release file not found: \(folder)/specs/releases.yaml "
                    + "(specs/releases.yaml beside the pipeline file)"
            ])
        try FileManager.default.createDirectory(atPath: folder + "/specs", withIntermediateDirectories: true)
        try releasesFile.write(toFile: folder + "/specs/releases.yaml", atomically: true, encoding: .utf8)
        let error = #expect(throws: PipelineInvalid.self) { try PipelineFile.load(path: path, home: "/home/tester") }
        #expect(
            error?.lines == [
                "\(folder)/specs/releases.yaml:16:14: releases[0].epsilon: release bad: laplace needs 0 < epsilon ≤ 10",
                "\(folder)/specs/releases.yaml:17:5: releases[0].colour: unknown key",
            ])
        // Given relative to the working folder, the release file is shown relative to it too
        // (a path up to / and down again: the tests must not change the process's folder).
        let up = String(repeating: "../", count: FileManager.default.currentDirectoryPath.split(separator: "/").count)
        let relativePath = up + String(path.dropFirst())
        let relative = #expect(throws: PipelineInvalid.self) { try PipelineFile.load(path: relativePath, home: "/home/tester") }
        #expect(relative?.lines.first?.hasPrefix(up + String(folder.dropFirst()) + "/specs/releases.yaml:16:14: ") == true)
    }

    @Test func aReleaseFileMayLeaveTheUnitToThePipeline() throws {
        let releases = "budget: {rho: 1}\nreleases:\n" + Self.release("a", unit: nil).map { String($0.dropFirst(2)) }.joined(separator: "\n") + "\n"
        let withUnit = Self.base + ["privacy:", "  unit: day", "  releases: r.yaml"]
        let path = try Self.write(withUnit, files: ["r.yaml": releases])
        let spec = try PipelineFile.load(path: path, home: "/home/tester")
        #expect(spec.releases?.releases.map(\.privacyUnit) == [.day])
        // Without a pipeline unit the release file must state it, and says so at its own line.
        let without = try Self.write(Self.base + ["privacy:", "  releases: r.yaml"], files: ["r.yaml": releases])
        let error = #expect(throws: PipelineInvalid.self) { try PipelineFile.load(path: without, home: "/home/tester") }
        let folder = (without as NSString).deletingLastPathComponent
        #expect(error?.lines == ["\(folder)/r.yaml:3:5: releases[0].privacy_unit: required key missing (no privacy.unit is set to fill it in)"])
    }

    /// A pipeline's own budget replaces the release file's, but the δ the file states
    /// guarantees at is kept unless the pipeline gives one.
    @Test func thePipelineBudgetKeepsTheFilesDelta() throws {
        let releases =
            "budget: {rho: 2, delta: 1.0e-9}\nreleases:\n" + Self.release("a", unit: "day").map { String($0.dropFirst(2)) }.joined(separator: "\n")
            + "\n"
        let kept = try Self.write(Self.base + ["privacy:", "  budget: {rho: 1}", "  releases: r.yaml"], files: ["r.yaml": releases])
        #expect(try PipelineFile.load(path: kept, home: "/home/tester").releases?.budget == ReleaseSpec.Budget(rho: 1, delta: 1e-9))
        let own = try Self.write(Self.base + ["privacy:", "  budget: {rho: 1, delta: 1.0e-7}", "  releases: r.yaml"], files: ["r.yaml": releases])
        #expect(try PipelineFile.load(path: own, home: "/home/tester").releases?.budget == ReleaseSpec.Budget(rho: 1, delta: 1e-7))
    }

    @Test func dpNeedsABudget() throws {
        let found = try Self.problems(Self.base + ["privacy:", "  releases:"] + Self.release("a"), name: "noBudget")
        #expect(found.isEmpty)   // outputs [csv, geojson]: nothing is released, no budget needed
        let lines = Self.base.map { $0.hasPrefix("outputs") ? "outputs: [csv, dp]" : $0 } + ["privacy:", "  releases:"] + Self.release("a")
        let dp = try Self.problems(lines)
        #expect(dp.map(\.line) == [8] && dp.first?.keyPath == "privacy.budget")
        #expect(dp.first?.message.contains("dp needs a budget") == true)
    }

    @Test func noiseTheMechanismsCannotDrawIsAMistake() throws {
        // A Gaussian sum of steps clamped to 40000 at ρ 0.1: σ² = 40000² / 0.2 = 8·10⁹, beyond the sampler.
        var gaussian = Self.release("g")
        gaussian[gaussian.firstIndex(of: "      mechanism: laplace")!] = "      mechanism: gaussian"
        gaussian[gaussian.firstIndex(of: "      epsilon: 0.5")!] = "      rho: 0.1"
        let found = try Self.problems(Self.base + ["privacy:", "  budget: {rho: 1}", "  releases:"] + gaussian)
        #expect(found.map(\.line) == [21] && found.first?.keyPath == "privacy.releases[0].mechanism")
        #expect(found.first?.message.contains("noise parameters out of range") == true)
    }

    @Test func aReleaseFileAloneReportsItsFirstProblemWithItsLine() throws {
        let path = Support.temporaryDirectory() + "/releases.yaml"
        try "releases:\n  - id: x\n    metric: daily.steps\n    aggregatte: sum\n".write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: InputError.self) { try ReleaseSpec.load(path: path) }
        #expect(error?.file == path && error?.line == 2)
        #expect(error?.message.contains("releases[0].aggregate: required key missing") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("more problems at lines") == true)
    }

    // MARK: the shipped files

    @Test func theShippedNightlyPipelineLoads() throws {
        let home = Support.temporaryDirectory()
        let spec = try PipelineFile.load(path: Support.packageRoot.appendingPathComponent("pipelines/nightly.yaml").path, home: home)
        #expect(spec.kind == .person && spec.pick == .newest)
        #expect(spec.inputPath == home + "/HealthExports" && spec.output == home + "/health")
        #expect(spec.outputs == Set(PipelineSpec.Output.allCases))
        #expect(spec.privacyUnit == nil && spec.keyFile == nil && spec.jobs == nil)
        // The releases of pipelines/releases.yaml, each with its own unit, and its budget.
        let file = try ReleaseSpec.load(path: Support.packageRoot.appendingPathComponent("pipelines/releases.yaml").path)
        #expect(spec.releases == file)
        #expect(spec.releases?.releases.map(\.privacyUnit) == [.day, .day, .workout, .workout, .workout])
    }

    @Test func theShippedCohortPipelineLoads() throws {
        let home = Support.temporaryDirectory()
        let spec = try PipelineFile.load(path: Support.packageRoot.appendingPathComponent("pipelines/cohort.yaml").path, home: home)
        #expect(spec.kind == .cohort && spec.pick == .all && spec.jobs == nil)
        #expect(spec.inputPath == home + "/study/archives/*.zip" && spec.output == home + "/study/out")
        #expect(spec.outputs == [.csv, .dp])
        #expect(spec.privacyUnit == .person && spec.keyFile == home + "/study/pseudonym.key")
        #expect(spec.releases?.budget == ReleaseSpec.Budget(epsilon: nil, rho: 1.0))
        let releases = spec.releases?.releases ?? []
        #expect(releases.map(\.id) == ["weekly_resting_hr", "workouts_per_activity_week", "nightly_sleep_minutes", "route_density"])
        #expect(releases.allSatisfy { $0.privacyUnit == .person })
        let hr = try #require(releases.first)
        #expect(hr.metric == "daily.resting_hr" && hr.lower == 40 && hr.upper == 90)
        #expect(hr.maxPartitions == 13 && hr.maxContributions == 7 && hr.mechanism == .gaussian && hr.rho == 0.3)
        // K = 13 covers every public week of the period: a person's days are never dropped.
        #expect(PublicPartitions.keys(for: hr) == (1...13).map { String(format: "2023-W%02d", $0) })
        // The noise is what the file's comments say: L2 sensitivities 7√13 and 7√13 × 25 at ρ
        // 0.15 each, so σ² = Δ² / (2ρ) = 637 / 0.3 and 637 × 625 / 0.3.
        #expect(ContributionBounding.valueBound(hr) == 25)
        let plan = try NoisePlan(hr)
        #expect(plan.count == .discreteGaussian(sigmaSquared: Rational(6370, 3)))
        #expect(plan.sum == .discreteGaussian(sigmaSquared: Rational(3_981_250, 3)))
        #expect(releases.last?.area == [48.80, 2.25, 48.92, 2.42])
    }

    /// The synthetic person's Paris routes lie in the cohort's density area and its days in the
    /// release period, so a cohort of `healthtrail synth --days 92` archives fills them.
    @Test func synthesizedArchivesLandInTheCohortPartitions() throws {
        let dir = Support.temporaryDirectory()
        let summary = try ExportSynthesizer.write(to: dir + "/p1.zip", options: SynthOptions(days: 4, seed: 9))
        #expect(summary.routeFiles > 0)
        let run = try ExportRun.run(RunOptions(inputPath: dir + "/p1.zip", outputDirectory: dir + "/out"))
        #expect(run.counts.routePoints > 0)
        let points = try Support.readCSV(dir + "/out/route_points.csv")
        let lat = try #require(points.header.firstIndex(of: "lat")), lon = try #require(points.header.firstIndex(of: "lon"))
        var inArea = 0
        for row in points.rows {
            let (y, x) = (Double(row[lat]) ?? 0, Double(row[lon]) ?? 0)
            if (48.80...48.92).contains(y) && (2.25...2.42).contains(x) { inArea += 1; continue }
            // The only other routes are the New York trip's (around Central Park).
            #expect(abs(y - 40.785) < 0.1 && abs(x + 73.968) < 0.1, "\(y), \(x)")
        }
        #expect(inArea > points.rows.count / 2)
        let daily = try Support.readCSV(dir + "/out/daily.csv")
        #expect(daily.rows.map { $0[0] }.contains("2023-01-02"))
    }

    // MARK: healthtrail validate

    @Test func validateReportsEachFileAndExitsByTheWorst() throws {
        let good = try Self.write(Self.base)
        let bad = try Self.write(Self.base + ["join_tolerance_s: 5000", "jobs: 2"])
        let ok = try Support.runCLI(["validate", good])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(
            ok.stdout == "\(good): ok — person pipeline: newest archive of \(ProcessInfo.processInfo.environment["HOME"] ?? "")/exports → "
                + "\((good as NSString).deletingLastPathComponent)/out; outputs csv, geojson\n")
        let both = try Support.runCLI(["validate", good, bad])
        #expect(both.status == 2)   // an invalid pipeline file, as in the README's exit codes
        #expect(both.stdout.hasPrefix("\(good): ok"))
        #expect(
            both.stderr == "\(bad):7:19: join_tolerance_s: must be 0…3600 seconds, got 5000\n"
                + "\(bad):8:1: jobs: jobs is for cohort pipelines (a person pipeline reads one archive)\n")
        let missing = try Support.runCLI(["validate", "/nonexistent/pipeline.yaml"])
        #expect(missing.status == 1 && missing.stderr.contains("/nonexistent/pipeline.yaml: cannot read the pipeline file"))
        #expect(try Support.runCLI(["validate"]).status == 2)
        let help = try Support.runCLI(["validate", "--help"])
        #expect(help.status == 0)
        for words in ["pipelines/nightly.yaml", "pipelines/cohort.yaml", "privacy.unit may be left out", "Exit codes"] {
            #expect(help.stdout.contains(words), "\(words)")
        }
    }

    @Test func validateAcceptsTheShippedFiles() throws {
        let nightly = Support.packageRoot.appendingPathComponent("pipelines/nightly.yaml").path
        let cohort = Support.packageRoot.appendingPathComponent("pipelines/cohort.yaml").path
        let result = try Support.runCLI(["validate", nightly, cohort])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasSuffix("outputs csv, geojson, svg, report, dp; 5 releases (rho budget 2)") == true)
        #expect(lines.last?.hasSuffix("outputs csv, dp; jobs one per core; 4 releases (rho budget 1)") == true)
    }

    // MARK: which archives

    /// A spec reading `path` (the rest does not matter to `PipelineInputs`).
    static func spec(_ path: String, pick: PipelineSpec.Pick) -> PipelineSpec {
        PipelineSpec(
            file: "/p.yaml", kind: pick == .newest ? .person : .cohort, inputPath: path, pick: pick, output: "/out",
            outputs: [.csv], strict: false)
    }

    /// Writes a small real export zip with the given modification time (seconds since 1970).
    static func archive(_ path: String, modified: TimeInterval) throws {
        try Support.makeZip(path, [("apple_health_export/export.xml", Support.exportXML(""))])
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: modified)], ofItemAtPath: path)
    }

    @Test func theNewestArchiveOfAFolder() throws {
        let dir = Support.temporaryDirectory()
        try Self.archive(dir + "/a.zip", modified: 1_700_000_300)
        try Self.archive(dir + "/b.zip", modified: 1_700_000_100)
        try Self.archive(dir + "/c.ZIP", modified: 1_700_000_200)
        // Newer, but not archives a night should read: hidden, still downloading, not an export.
        try Self.archive(dir + "/.d.zip", modified: 1_700_000_900)
        try Self.archive(dir + "/e.zip.part", modified: 1_700_000_900)
        try Self.archive(dir + "/f.zip.crdownload", modified: 1_700_000_900)
        try "notes".write(toFile: dir + "/notes.txt", atomically: true, encoding: .utf8)
        #expect(try PipelineInputs.archives(for: Self.spec(dir, pick: .newest)) == [dir + "/a.zip"])
        #expect(try PipelineInputs.archives(for: Self.spec(dir, pick: .all)) == [dir + "/a.zip", dir + "/b.zip", dir + "/c.ZIP"])
        // Equal times: the last by path.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_300)], ofItemAtPath: dir + "/c.ZIP")
        #expect(try PipelineInputs.archives(for: Self.spec(dir, pick: .newest)) == [dir + "/c.ZIP"])
    }

    @Test func unzippedExportsAndBareXMLCount() throws {
        let dir = Support.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/apple_health_export", withIntermediateDirectories: true)
        try Support.exportXML("").write(toFile: dir + "/apple_health_export/export.xml", atomically: true, encoding: .utf8)
        try Support.exportXML("").write(toFile: dir + "/apple_health_export/export_cda.xml", atomically: true, encoding: .utf8)
        try Support.exportXML("").write(toFile: dir + "/older.xml", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dir + "/photos", withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_600_000_000)], ofItemAtPath: dir + "/older.xml")
        #expect(try PipelineInputs.archives(for: Self.spec(dir, pick: .all)) == [dir + "/apple_health_export", dir + "/older.xml"])
        #expect(try PipelineInputs.archives(for: Self.spec(dir, pick: .newest)) == [dir + "/apple_health_export"])
        // The unzipped folder itself is one export (its export_cda.xml is not another).
        #expect(try PipelineInputs.archives(for: Self.spec(dir + "/apple_health_export", pick: .all)) == [dir + "/apple_health_export"])
        // A file is itself.
        #expect(try PipelineInputs.archives(for: Self.spec(dir + "/older.xml", pick: .newest)) == [dir + "/older.xml"])
    }

    @Test func aGlobInTheLastComponent() throws {
        let dir = Support.temporaryDirectory()
        for name in ["p1.zip", "p2.zip", "p10.zip", "other.xml", ".p3.zip", "p4.zip.tmp"] {
            try Self.archive(dir + "/" + name, modified: 1_700_000_000)
        }
        #expect(
            try PipelineInputs.archives(for: Self.spec(dir + "/p*.zip", pick: .all))
                == [dir + "/p1.zip", dir + "/p10.zip", dir + "/p2.zip"])
        #expect(try PipelineInputs.archives(for: Self.spec(dir + "/p?.zip", pick: .all)) == [dir + "/p1.zip", dir + "/p2.zip"])
    }

    @Test func nothingFoundNamesThePath() throws {
        let dir = Support.temporaryDirectory()
        try "x".write(toFile: dir + "/export.zip.part", atomically: true, encoding: .utf8)
        let empty = #expect(throws: InputError.self) { try PipelineInputs.archives(for: Self.spec(dir, pick: .newest)) }
        #expect(empty?.file == dir && empty?.message.contains("no export archive here") == true)
        let glob = #expect(throws: InputError.self) { try PipelineInputs.archives(for: Self.spec(dir + "/*.zip", pick: .all)) }
        #expect(glob?.file == dir + "/*.zip")
        let missing = #expect(throws: InputError.self) { try PipelineInputs.archives(for: Self.spec(dir + "/gone", pick: .all)) }
        #expect(missing?.file == dir + "/gone" && missing?.message == "does not exist")
    }
}
