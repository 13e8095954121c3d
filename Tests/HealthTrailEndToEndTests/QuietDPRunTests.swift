import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit
@testable import HealthTrailSynth

/// A pipeline that publishes DP releases says the same on stdout and stderr, and exits with the
/// same code, for any two neighbouring exports: A and A without one workout, without one day,
/// a cohort with and without one person, and on the second night an unchanged export and a
/// changed one. Its figures stay in the owner-only manifest.json (and cohort.json); `--verbose`
/// prints them.
@Suite(.serialized) struct QuietDPRunTests {
    /// What a run showed: exit status, stdout, and stderr with JSON lines' `time` taken out.
    struct Shown: Equatable, CustomStringConvertible {
        var status: Int32
        var stdout: String
        var stderr: String
        var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
    }

    /// The one key every home of a test suite shares: the budget ledger's path is named by it,
    /// and two homes must differ in their archives only.
    static let key: String = {
        let dir = Support.temporaryDirectory("quietkey")
        let path = dir + "/shared.key"
        _ = try? Support.runCLI(["keygen", path])
        return path
    }()

    /// Runs the pipeline once per night in `home` (emptied first), `archives[i]` copied into
    /// its input folder as `export.zip` before night `i`; `prepare` lays out the home.
    static func nights(
        home: String, _ nights: [[String: String]], arguments: [String], prepare: (String) throws -> Void
    ) throws -> [Shown] {
        let fm = FileManager.default
        try? fm.removeItem(atPath: home)
        try fm.createDirectory(atPath: home, withIntermediateDirectories: true)
        try fm.copyItem(atPath: Support.packageRoot.path + "/pipelines", toPath: home + "/pipelines")
        try prepare(home)
        var shown: [Shown] = []
        for files in nights {
            for (name, source) in files {
                try? fm.removeItem(atPath: home + "/" + name)
                try fm.createDirectory(atPath: (home + "/" + name as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try fm.copyItem(atPath: source, toPath: home + "/" + name)
            }
            var environment = ProcessInfo.processInfo.environment
            environment["HOME"] = home
            environment["XDG_STATE_HOME"] = nil
            let run = try Support.runProgram(Support.binary, arguments, environment: environment)
            shown.append(Shown(status: run.status, stdout: run.stdout, stderr: Self.withoutTimes(run.stderr)))
        }
        return shown
    }

    /// JSON log lines without their `"time":"…"` member, the one part that may differ.
    static func withoutTimes(_ text: String) -> String {
        text.replacingOccurrences(of: #""time":"[^"]*",?"#, with: "", options: .regularExpression)
    }

    /// A budget folder holding the shared key, mode 0700 / 0600 as the tool makes them.
    static func budgetFolder(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.copyItem(atPath: key, toPath: path + "/ledger.key")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path + "/ledger.key")
    }

    /// A copy of `zip` whose export.xml lost what `pattern` (a Python regular expression, DOTALL)
    /// matches first, or everywhere with `all`; fails when it matches nothing.
    static func without(_ pattern: String, all: Bool = false, in zip: String, to out: String) throws {
        let script = """
            import re, sys, zipfile
            source, target, pattern, every = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "all"
            with zipfile.ZipFile(source) as z, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as w:
                for info in z.infolist():
                    data = z.read(info)
                    if info.filename.endswith("/export.xml"):
                        text = data.decode("utf-8")
                        edited, n = re.subn(pattern, "", text, count=0 if every else 1, flags=re.S)
                        if n == 0:
                            sys.exit("nothing matched")
                        print(n)
                        data = edited.encode("utf-8")
                    w.writestr(info, data)
            """
        let run = try Support.runProgram("/usr/bin/env", ["python3", "-c", script, zip, out, pattern, all ? "all" : "first"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect((Int(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0)
    }

    /// The export, and its neighbours: without its first workout, and without every record of
    /// its second day.
    static func archives(_ dir: String, days: Int = 6, seed: UInt64 = 2) throws -> (a: String, noWorkout: String, noDay: String) {
        let a = dir + "/a.zip"
        let summary = try ExportSynthesizer.write(to: a, options: SynthOptions(days: days, seed: seed))
        #expect(summary.workouts > 1)
        let noWorkout = dir + "/a-minus-workout.zip"
        try without(#"<Workout [^>]*?(/>|>.*?</Workout>)\s*"#, in: a, to: noWorkout)
        // The second day of the export: the day of its second distinct record date.
        let dayRun = try Support.runProgram(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import re, sys, zipfile
                z = zipfile.ZipFile(sys.argv[1])
                xml = next(n for n in z.namelist() if n.endswith("/export.xml"))
                days = sorted(set(re.findall(r'<Record [^>]*startDate="(\\d{4}-\\d\\d-\\d\\d)', z.read(xml).decode())))
                print(days[1])
                """, a,
            ])
        let day = dayRun.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(day.count == 10, "\(dayRun.stderr)")
        let noDay = dir + "/a-minus-day.zip"
        try without(#"<Record [^>]*startDate=""# + day + #"[^"]*"[^>]*?(/>|>.*?</Record>)\s*"#, all: true, in: a, to: noDay)
        return (a, noWorkout, noDay)
    }

    static func manifestWorkouts(_ home: String) throws -> Int? {
        let manifest = try CohortRunTests.json(home + "/health/manifest.json")
        return (manifest["counts"] as? [String: Any])?["workouts"] as? Int
    }

    /// A nightly pipeline publishing DP: A and its neighbours print, log and exit alike, on the
    /// first night and on the second (unchanged against changed); `--verbose` tells them apart.
    @Test func aPersonPipelineSaysTheSameForNeighbouringExports() throws {
        let dir = Support.temporaryDirectory()
        let (a, noWorkout, noDay) = try Self.archives(dir)
        let home = dir + "/home"
        func person(_ nights: [String], _ extra: [String] = []) throws -> [Shown] {
            let arguments = ["run", "--pipeline", home + "/pipelines/nightly.yaml"] + extra
            return try Self.nights(home: home, nights.map { ["HealthExports/export.zip": $0] }, arguments: arguments) {
                try Self.budgetFolder($0 + "/.local/state/healthtrail")
            }
        }
        for extra in [[], ["--log-format", "json"], ["--quiet", "--log-level", "info", "--log-format", "json"]] {
            let first = try person([a, a], extra)
            // The neighbour really differs: the private manifest counts one workout less.
            let aWorkouts = try Self.manifestWorkouts(home)
            #expect(first[0].status == 0 && first[1].status == 0, "\(extra): \(first)")
            #expect(extra.contains("--quiet") || first[0].stdout.contains("healthtrail: budget ledger: "), "\(extra): \(first[0])")
            for (name, neighbour) in [("workout", noWorkout), ("day", noDay)] {
                let other = try person([neighbour], extra)
                #expect(other[0] == first[0], "\(extra) without a \(name), first night:\n\(other[0])\nagainst\n\(first[0])")
                if name == "workout" {
                    let fewer = try Self.manifestWorkouts(home)
                    #expect(
                        fewer != nil && aWorkouts != nil && fewer! + 1 == aWorkouts!, "\(String(describing: fewer)) \(String(describing: aWorkouts))")
                }
                // The second night: A again (nothing new) against A's neighbour (changed).
                let changed = try person([a, neighbour], extra)
                #expect(changed[1] == first[1], "\(extra) without a \(name), second night:\n\(changed[1])\nagainst\n\(first[1])")
            }
            // Nothing of the run's own figures: no count, no size, no time, no input's name.
            for shown in first {
                let both = shown.stdout + shown.stderr
                let figures = ["workouts=", " workouts,", "records", "route_points", " MB", "seconds", "malformed", "export.zip"]
                for word in figures + ["run.finished", "run.started", "run.nothing_new", "run.faults"] {
                    #expect(!both.contains(word), "\(extra): \(word) in\n\(shown)")
                }
            }
        }
        // --verbose: the summary and the counts are back, and tell the neighbours apart; the
        // exit code stays 0 on a second night with nothing new.
        let verbose = try person([a, a], ["--verbose"])
        #expect(verbose[0].stdout.contains(" workouts, ") && verbose[0].stderr.contains("workouts="), "\(verbose[0])")
        #expect(verbose[1].status == 0 && verbose[1].stderr.contains("nothing new"), "\(verbose[1])")
        let verboseOther = try person([noWorkout], ["--verbose"])
        #expect(verboseOther[0].stdout != verbose[0].stdout)
        // The manifest keeps every figure, owner-only.
        var st = stat()
        #expect(stat(home + "/health/manifest.json", &st) == 0 && st.st_mode & 0o077 == 0)
    }

    /// A run without dp says nothing without a terminal (cron), prints its summary and logs
    /// its figures with --verbose, and exits 3 when nothing is new either way.
    @Test func aRunWithoutDPKeepsItsSummaryAndExit3() throws {
        let dir = Support.temporaryDirectory()
        let zip = dir + "/export.zip"
        _ = try ExportSynthesizer.write(to: zip, options: SynthOptions(days: 3, seed: 4))
        let silent = try Support.runCLI(["run", zip, "--out", dir + "/silent"])
        #expect(silent.status == 0 && silent.stdout.isEmpty && silent.stderr.isEmpty, "\(silent)")
        let first = try Support.runCLI(["run", zip, "--out", dir + "/out", "--verbose"])
        #expect(first.status == 0 && first.stdout.contains(" workouts, "), "\(first.stderr)")
        #expect(first.stderr.contains("run finished") && first.stderr.contains("workouts="))
        let quietAgain = try Support.runCLI(["run", zip, "--out", dir + "/out"])
        #expect(quietAgain.status == 3 && quietAgain.stdout.isEmpty && quietAgain.stderr.isEmpty, "\(quietAgain)")
        let again = try Support.runCLI(["run", zip, "--out", dir + "/out", "--verbose"])
        #expect(again.status == 3 && again.stderr.contains("nothing new"), "\(again.stderr)")
    }

    /// A cohort publishing DP: one person more or less, one workout less in one archive, and
    /// on the second night nobody's archive changed against one archive changed: the same
    /// exit code, stdout and log. `--verbose` brings back "N processed, N unchanged".
    @Test func aCohortSaysTheSameForNeighbouringCohorts() throws {
        let dir = Support.temporaryDirectory()
        var people: [String] = []
        for seed in 1...3 {
            let path = dir + "/p\(seed).zip"
            _ = try ExportSynthesizer.write(to: path, options: SynthOptions(days: 5, seed: UInt64(seed)))
            people.append(path)
        }
        let p1NoWorkout = dir + "/p1-minus-workout.zip"
        try Self.without(#"<Workout [^>]*?(/>|>.*?</Workout>)\s*"#, in: people[0], to: p1NoWorkout)
        let pseudonymKey = dir + "/pseudonym.key"
        #expect(try Support.runCLI(["keygen", pseudonymKey]).status == 0)
        let home = dir + "/home"
        func cohort(_ nights: [[String: String]], _ extra: [String] = []) throws -> [Shown] {
            let arguments = ["run", "--pipeline", home + "/cohort.yaml", "--jobs", "2"] + extra
            return try Self.nights(home: home, nights, arguments: arguments) { home in
                let shipped = try String(contentsOfFile: Support.packageRoot.path + "/pipelines/cohort.yaml", encoding: .utf8)
                try shipped.replacingOccurrences(of: "~/", with: home + "/").write(toFile: home + "/cohort.yaml", atomically: true, encoding: .utf8)
                try FileManager.default.createDirectory(atPath: home + "/study/archives", withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: pseudonymKey, toPath: home + "/study/pseudonym.key")
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: home + "/study/pseudonym.key")
                try Self.budgetFolder(home + "/study/budget")
            }
        }
        func archives(_ paths: [String]) -> [String: String] {
            Dictionary(uniqueKeysWithValues: paths.enumerated().map { ("study/archives/p\($0.offset + 1).zip", $0.element) })
        }
        let all = archives(people)
        for extra in [["--log-format", "json"], ["--quiet", "--log-level", "info", "--log-format", "json"]] {
            let first = try cohort([all, all], extra)
            #expect(first[0].status == 0 && first[1].status == 0, "\(extra): \(first)")
            #expect(extra.contains("--quiet") || first[0].stdout.contains("released "), "\(first[0])")
            let report = try CohortRunTests.json(home + "/study/out/cohort.json")
            #expect(report["merged"] as? Int == 3)
            let fewer = try cohort([archives(Array(people.prefix(2)))], extra)
            #expect(fewer[0] == first[0], "\(extra) without one person:\n\(fewer[0])\nagainst\n\(first[0])")
            #expect(try CohortRunTests.json(home + "/study/out/cohort.json")["merged"] as? Int == 2)
            var changedOne = all
            changedOne["study/archives/p1.zip"] = p1NoWorkout
            let oneWorkout = try cohort([changedOne], extra)
            #expect(oneWorkout[0] == first[0], "\(extra) without one workout:\n\(oneWorkout[0])\nagainst\n\(first[0])")
            // Second night: nobody changed (first[1]) against one person's archive changed.
            let changed = try cohort([all, changedOne], extra)
            #expect(changed[1] == first[1], "\(extra) second night:\n\(changed[1])\nagainst\n\(first[1])")
            let statuses = ((try CohortRunTests.json(home + "/study/out/cohort.json"))["persons"] as? [[String: Any]] ?? []).compactMap {
                $0["status"] as? String
            }
            #expect(statuses.sorted() == ["ok", "unchanged", "unchanged"], "\(statuses)")
            for shown in first {
                for word in ["processed", "unchanged", "archives", "persons", "merged", "seconds", "progress", "cohort.person_done"] {
                    #expect(!(shown.stdout + shown.stderr).contains(word), "\(extra): \(word) in\n\(shown)")
                }
            }
        }
        let verbose = try cohort([all, all], ["--verbose"])
        #expect(verbose[0].stdout.contains("3 processed, 0 unchanged, 0 failed"), "\(verbose[0])")
        #expect(verbose[1].status == 0 && verbose[1].stdout.contains("0 processed, 3 unchanged, 0 failed"), "\(verbose[1])")
    }
}
