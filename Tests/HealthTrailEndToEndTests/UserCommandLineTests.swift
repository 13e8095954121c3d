import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit
@testable import HealthTrailRun
@testable import HealthTrailSynth

/// The conventions a user expects of a command line: the version everywhere, developer tools
/// out of sight, the same logging options on every unattended command.
@Suite struct UserCommandLineTests {
    static let subcommands = ["run", "validate", "partial", "merge", "release", "keygen", "inspect", "synth", "dp-sample"]

    @Test func everyCommandPrintsTheVersion() throws {
        for flag in ["-V", "--version"] {
            for command in [[]] + Self.subcommands.map({ [$0] }) {
                // A subcommand missing its required arguments still answers, as with --help.
                let result = try Support.runCLI(command + [flag])
                #expect(result.status == 0, "\(command) \(flag): \(result.stderr)")
                #expect(result.stdout == HealthTrailVersion.current + "\n", "\(command) \(flag)")
                #expect(result.stderr.isEmpty, "\(command) \(flag)")
            }
        }
        // Bundled with another short flag, and after other options.
        let bundled = try Support.runCLI(["inspect", "/nonexistent.zip", "-qV"])
        #expect(bundled.status == 0 && bundled.stdout == HealthTrailVersion.current + "\n", "\(bundled.stderr)")
        // Help wins over the version, as in ArgumentParser; after `--` it is an argument.
        let help = try Support.runCLI(["inspect", "-V", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE"))
        let terminated = try Support.runCLI(["inspect", "--", "-V"])
        #expect(terminated.status == 1 && terminated.stdout.isEmpty)
        // Listed in every command's help.
        for command in [[]] + Self.subcommands.map({ [$0] }) {
            let text = try Support.runCLI(command + ["--help"]).stdout
            #expect(text.contains("-V, --version"), "\(command)")
        }
    }

    @Test func developerToolsAreHiddenButRunnable() throws {
        let help = try Support.runCLI(["--help"])
        #expect(help.status == 0)
        #expect(!help.stdout.contains("dp-sample"))
        for command in ["run", "validate", "partial", "merge", "release", "keygen", "inspect", "synth"] {
            #expect(help.stdout.contains("  \(command) "), "\(command)")
        }
        let sample = try Support.runCLI(["dp-sample", "--mechanism", "laplace", "--scale", "3", "--count", "5"])
        #expect(sample.status == 0, "\(sample.stderr)")
        #expect(sample.stdout.split(separator: "\n").compactMap { Int($0) }.count == 5)
    }

    @Test func validateExitsByTheReadmesTable() throws {
        let dir = Support.temporaryDirectory()
        let bad = dir + "/bad.yaml"
        try "version: 1\nkind: person\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let invalid = try Support.runCLI(["validate", bad])
        #expect(invalid.status == 2, "\(invalid.stderr)")
        #expect(invalid.stderr.hasPrefix(bad + ":"))
        // The README's table: 2 for an invalid pipeline file, as `run --pipeline` exits on it.
        let readme = try String(contentsOf: Support.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let row = readme.split(separator: "\n").first { $0.hasPrefix("| 2 |") }
        #expect(row?.contains("usage error") == true && row?.contains("invalid pipeline file") == true, "\(row ?? "no row")")
        let viaRun = try Support.runCLI(["run", "--pipeline", bad])
        #expect(viaRun.status == invalid.status)
        let unreadable = try Support.runCLI(["validate", dir + "/missing.yaml"])
        #expect(unreadable.status == 1)
        let both = try Support.runCLI(["validate", dir + "/missing.yaml", bad])
        #expect(both.status == 2)
    }

    @Test func mergeTakesTheLoggingOptions() throws {
        let dir = Support.temporaryDirectory()
        try "not a partial".write(toFile: dir + "/a.partial", atomically: true, encoding: .utf8)
        let text = try Support.runCLI(["merge", dir + "/a.partial", "--out", dir + "/m.partial"])
        #expect(text.status == 1)
        #expect(text.stderr.hasPrefix("healthtrail: error: "))
        let json = try Support.runCLI([
            "merge", dir + "/a.partial", "--out", dir + "/m.partial",
            "--log-format", "json", "--log-level", "debug",
        ])
        #expect(json.status == 1)
        let lines = json.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
        #expect(object["level"] as? String == "error" && object["event"] as? String == "failed")
        #expect(try Support.runCLI(["merge", dir + "/a.partial", "--out", dir + "/m.partial", "--log-level", "loud"]).status == 2)
        let help = try Support.runCLI(["merge", "--help"]).stdout
        #expect(help.contains("--log-format") && help.contains("--log-level"))
    }

    @Test func synthIsQuietUnlessAskedForItsSummary() throws {
        let dir = Support.temporaryDirectory()
        let quiet = try Support.runCLI(["synth", dir + "/a.zip", "--days", "2", "--seed", "5"])
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(quiet.stdout.isEmpty && quiet.stderr.isEmpty)
        let loud = try Support.runCLI(["synth", dir + "/b.zip", "--days", "2", "--seed", "5", "--summary"])
        #expect(loud.status == 0, "\(loud.stderr)")
        let summary = try JSONDecoder().decode(SynthSummary.self, from: Data(loud.stdout.utf8))
        #expect(summary == (try ExportSynthesizer.write(to: dir + "/c.zip", options: SynthOptions(days: 2, seed: 5))))
        #expect(summary.workouts > 0 && summary.exportXMLBytes > 0)
        // The flag changes what is printed, not what is written.
        #expect(FileManager.default.contents(atPath: dir + "/a.zip") == FileManager.default.contents(atPath: dir + "/b.zip"))
        #expect(try Support.runCLI(["synth", "--help"]).stdout.contains("--summary"))
    }

    /// A small export with two sources, three heart-rate records, a step count and a route file.
    static func smallExport(_ zip: String) throws {
        let steps = """
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Alex’s iPhone" unit="count" startDate="2024-01-03 08:00:00 +0100" endDate="2024-01-03 08:10:00 +0100" value="4321"/>

            """
        try Support.makeZip(
            zip,
            [
                ("apple_health_export/export.xml", Support.exportXML(Support.heartRateRecords + steps)),
                ("apple_health_export/workout-routes/route_2024-01-03_8.00am.gpx", "<gpx></gpx>"),
            ])
    }

    @Test func inspectPrintsJSONForScripts() throws {
        let dir = Support.temporaryDirectory()
        let zip = dir + "/export.zip"
        try Self.smallExport(zip)
        let result = try Support.runCLI(["inspect", zip, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["format_version"] as? Int == 1)
        #expect(object["tool_version"] as? String == HealthTrailVersion.current)
        let input = try #require(object["input"] as? [String: Any])
        #expect(input["path"] as? String == zip && input["kind"] as? String == "zip")
        #expect(input["main_entry"] as? String == "apple_health_export/export.xml")
        #expect(input["export_version"] as? String == "13" && input["locale"] as? String == "en_US")
        #expect(input["export_date"] as? String == "2024-03-01T08:00:00Z")
        #expect(object["data_first_utc"] as? String == "2024-01-02T15:31:22Z")
        #expect(object["data_last_utc"] as? String == "2024-01-03T07:00:00Z")
        let entries = try #require(object["entries"] as? [String: Int])
        #expect(entries == ["total": 2, "route_files": 1, "ecg_files": 0])
        let counts = try #require(object["counts"] as? [String: Any])
        #expect(
            counts["records_by_type"] as? [String: Int]
                == ["HKQuantityTypeIdentifierHeartRate": 3, "HKQuantityTypeIdentifierStepCount": 1])
        #expect(counts["heart_rate"] as? Int == 3 && counts["workouts"] as? Int == 0)
        #expect(counts["sources"] as? Int == 3 && counts["malformed_records"] as? Int == 0)
        // The same figures as the text, and none of the data's own text or values.
        let text = try Support.runCLI(["inspect", zip]).stdout
        #expect(text.contains("heart-rate samples: 3") && text.contains("Polar"))
        for secret in ["Polar", "Alex", "iPhone", "Apple Watch", "131.5", "4321", "route_2024"] {
            #expect(!result.stdout.contains(secret), "\(secret)")
        }
        // Stable: the same archive gives the same bytes.
        #expect(try Support.runCLI(["inspect", zip, "--json"]).stdout == result.stdout)
        // An error is still one line on stderr, and nothing on stdout.
        let bad = try Support.runCLI(["inspect", dir + "/missing.zip", "--json"])
        #expect(bad.status == 1 && bad.stdout.isEmpty && bad.stderr.split(separator: "\n").count == 1)
    }

    @Test func calendarsUseTheMapWidthAndReadAsTitles() throws {
        let dir = Support.temporaryDirectory()
        _ = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 3, seed: 1))
        for size in [800, 1200] {
            let run = try Support.runCLI([
                "run", dir + "/export.zip", "--out", dir + "/out\(size)", "--quiet",
                "--maps", "calendars", "--svg-size", String(size),
            ])
            #expect(run.status == 0, "\(run.stderr)")
            let titles = [
                "steps": "Steps per day", "resting-hr": "Resting heart rate (bpm)",
                "sleep": "Time asleep per night (h:mm)", "workout-minutes": "Workout time per day (min)",
            ]
            for (metric, title) in titles {
                let svg = try String(contentsOfFile: dir + "/out\(size)/svg/calendar-\(metric).svg", encoding: .utf8)
                #expect(svg.contains("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(size)\" "), "\(metric) \(size)")
                #expect(svg.contains("<title>\(title) · 2023-01-0"), "\(metric)")
            }
        }
        // Wider: larger days (the 2023 calendar has 53 week columns beside 44 px of weekday labels).
        let narrow = try String(contentsOfFile: dir + "/out800/svg/calendar-steps.svg", encoding: .utf8)
        let wide = try String(contentsOfFile: dir + "/out1200/svg/calendar-steps.svg", encoding: .utf8)
        #expect(narrow.contains("class=\"day\" x=\"") && narrow.contains(" width=\"11\" height=\"11\""))
        #expect(wide.contains(" width=\"19\" height=\"19\""))
    }

    /// Runs `command` in sh with the release binary as "$B"; for pipes into it.
    static func shell(_ command: String) throws -> (status: Int32, stdout: String, stderr: String) {
        try Support.runProgram("/bin/sh", ["-c", command, "sh"], environment: ["B": Support.binary, "PATH": "/usr/bin:/bin"])
    }

    @Test func inspectAndRunReadAnArchiveFromStandardInput() throws {
        let dir = Support.temporaryDirectory()
        let zip = dir + "/export.zip"
        _ = try ExportSynthesizer.write(to: zip, options: SynthOptions(days: 2, seed: 3))
        let byName = try Support.runCLI(["inspect", zip])
        #expect(byName.status == 0)
        for (how, command) in [("pipe", "cat '\(zip)' | \"$B\" inspect -"), ("redirect", "\"$B\" inspect - < '\(zip)'")] {
            let piped = try Self.shell(command)
            #expect(piped.status == 0, "\(how): \(piped.stderr)")
            #expect(piped.stdout.hasPrefix("export:   stdin\n"), "\(how)")
            #expect(piped.stdout.split(separator: "\n").dropFirst() == byName.stdout.split(separator: "\n").dropFirst(), "\(how)")
        }
        let json = try Self.shell("cat '\(zip)' | \"$B\" inspect - --json")
        #expect(json.stdout.contains("\"path\" : \"-\""), "\(json.stdout.prefix(300))")

        // run: the same outputs as from the file, the manifest naming stdin, nothing left behind.
        #expect(try Support.runCLI(["run", zip, "--out", dir + "/file", "--quiet"]).status == 0)
        let run = try Self.shell("cat '\(zip)' | \"$B\" run - --out '\(dir)/piped' --quiet")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.isEmpty && run.stderr.isEmpty)
        let manifest = try CohortRunTests.json(dir + "/piped/manifest.json")
        let input = try #require(manifest["input"] as? [String: Any])
        #expect(input["path"] as? String == "stdin" && input["name"] as? String == "stdin")
        let fromFile = try CohortRunTests.json(dir + "/file/manifest.json")["input"] as? [String: Any]
        #expect(input["sha256"] as? String == fromFile?["sha256"] as? String)
        for csv in ["daily.csv", "heart_rate.csv", "workouts.csv", "route_points.csv"] {
            #expect(
                FileManager.default.contents(atPath: dir + "/piped/" + csv) == FileManager.default.contents(atPath: dir + "/file/" + csv), "\(csv)")
        }
        let listed = try FileManager.default.contentsOfDirectory(atPath: dir + "/piped").sorted()
        #expect(listed == (try FileManager.default.contentsOfDirectory(atPath: dir + "/file")).sorted())
        #expect(!listed.contains { $0.contains("stdin") || $0.hasPrefix(".healthtrail-stdin") })
        // Again: nothing new (logged at info: --verbose), said of stdin, not of the spool.
        let again = try Self.shell("cat '\(zip)' | \"$B\" run - --out '\(dir)/piped' --verbose")
        #expect(again.status == 3, "\(again.stderr)")
        #expect(again.stderr.contains("stdin") && !again.stderr.contains("/proc/"))
        // A broken archive on stdin: one line naming stdin; the folder as it was.
        let before = try Support.snapshot(dir + "/piped")
        let broken = try Self.shell("head -c 3000 '\(zip)' | \"$B\" run - --out '\(dir)/piped' --force")
        #expect(broken.status == 1)
        #expect(broken.stderr.hasPrefix("healthtrail: error: stdin: ") && broken.stderr.split(separator: "\n").count == 1, "\(broken.stderr)")
        #expect(try Support.snapshot(dir + "/piped") == before)
    }

    /// A bare export.xml from standard input, piped (spooled to an unnamed file, `/proc/self/fd/N`)
    /// or redirected (read in place, `/proc/self/fd/0`): its entry is `stdin` in the manifest,
    /// its faults, the error line and `inspect`, never the descriptor's number.
    @Test func aBareXMLFromStandardInputIsCalledStdin() throws {
        let dir = Support.temporaryDirectory()
        let xml = dir + "/export.xml"
        let record =
            #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="S" unit="count" startDate="2024-01-01 10:00:00 +0000" endDate="2024-01-01 10:01:00 +0000" value="x"/>"#
        try Support.exportXML(record).write(toFile: xml, atomically: true, encoding: .utf8)
        for (how, feed) in [("pipe", "cat '\(xml)' |"), ("redirect", "< '\(xml)'")] {
            let out = "\(dir)/\(how)"
            let command = how == "pipe" ? "\(feed) \"$B\" run - --out '\(out)' --quiet" : "\"$B\" run - --out '\(out)' --quiet \(feed)"
            let run = try Self.shell(command)
            #expect(run.status == 0, "\(how): \(run.stderr)")
            let manifest = try CohortRunTests.json(out + "/manifest.json")
            let input = try #require(manifest["input"] as? [String: Any])
            #expect(input["main_entry"] as? String == "stdin", "\(how): \(input)")
            let faults = try #require(manifest["faults"] as? [String: Any])
            let first = try #require((faults["first"] as? [[String: Any]])?.first, "\(how): \(faults)")
            #expect(first["entry"] as? String == "stdin", "\(how): \(first)")
            let strict = try Self.shell(command.replacingOccurrences(of: "--quiet", with: "--quiet --strict --force"))
            #expect(strict.status == 1)
            #expect(strict.stderr.hasPrefix("healthtrail: error: stdin: entry stdin: line "), "\(how): \(strict.stderr)")
            let inspect = try Self.shell(how == "pipe" ? "\(feed) \"$B\" inspect -" : "\"$B\" inspect - \(feed)")
            #expect(inspect.stdout.contains("main xml: stdin ("), "\(how): \(inspect.stdout) \(inspect.stderr)")
        }
    }

    @Test func standardInputIsRefusedWhereItCannotWork() throws {
        let dir = Support.temporaryDirectory()
        let empty = try Self.shell("\"$B\" inspect - < /dev/null")
        #expect(empty.status == 1 && empty.stderr == "healthtrail: error: stdin: standard input is empty: expected an export archive\n")
        let synth = try Support.runCLI(["synth", "-"])
        #expect(
            synth.status == 2 && synth.stderr.contains("synth writes a zip file") && synth.stderr.split(separator: "\n").count == 1,
            "\(synth.stderr)")
        let partial = try Support.runCLI(["partial", "-", "--pipeline", dir + "/p.yaml", "--out", dir + "/x.partial"])
        #expect(partial.status == 2 && partial.stderr.contains("standard input"), "\(partial.stderr)")
        let keygen = try Support.runCLI(["keygen", "-"])
        #expect(keygen.status == 2 && keygen.stderr.contains("not - (standard output)"), "\(keygen.stderr)")
        let (_, pipeline) = try CohortRunTests.study(persons: 1, days: 2, broken: false)
        let cohort = try Self.shell("\"$B\" run - --pipeline '\(pipeline)' < /dev/null")
        #expect(cohort.status == 2 && cohort.stderr.contains("cohort"), "\(cohort.stderr)")
    }

    @Test func theSpoolIsOwnerOnlyAndNameless() throws {
        let dir = Support.temporaryDirectory()
        let fd = try StandardInputArchive.unnamedFile(in: dir)
        defer { close(fd) }
        var info = stat()
        #expect(fstat(fd, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(info.st_nlink == 0)   // no name: gone with the process
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test func makeInstallPutsTheBinaryManPageAndCompletionsUnderThePrefix() throws {
        let dir = Support.temporaryDirectory()
        let make = try Support.runProgram(
            "/usr/bin/make",
            [
                "-s", "-C", Support.packageRoot.path, "install-files", "DESTDIR=\(dir)/root",
                "PREFIX=/opt/ht", "BIN=\(Support.binary)", "GEN=\(dir)/gen",
            ])
        #expect(make.status == 0, "\(make.stderr)")
        let prefix = dir + "/root/opt/ht"
        let files = [
            "bin/healthtrail": 0o755, "share/man/man1/healthtrail.1": 0o644,
            "share/bash-completion/completions/healthtrail": 0o644, "share/zsh/site-functions/_healthtrail": 0o644,
            "share/fish/vendor_completions.d/healthtrail.fish": 0o644,
            "share/healthtrail/examples/nightly.yaml": 0o644, "share/healthtrail/examples/cohort.yaml": 0o644,
            "share/healthtrail/examples/releases.yaml": 0o644, "share/healthtrail/examples/README.md": 0o644,
        ]
        for (file, mode) in files {
            let attributes = try FileManager.default.attributesOfItem(atPath: prefix + "/" + file)
            #expect(attributes[.posixPermissions] as? Int == mode, "\(file)")
        }
        #expect(try Support.runProgram(prefix + "/bin/healthtrail", ["-V"]).stdout == HealthTrailVersion.current + "\n")

        // The man page: every command users see, with its options; not the developer tools.
        let page = try String(contentsOfFile: prefix + "/share/man/man1/healthtrail.1", encoding: .utf8)
        #expect(page.hasPrefix(".TH \"HEALTHTRAIL\" \"1\" \"\" \"healthtrail \(HealthTrailVersion.current)\""))
        for command in ["run", "validate", "partial", "merge", "release", "keygen", "inspect", "synth"] {
            #expect(page.contains("\n.SS \(command)\n"), "\(command)")
        }
        #expect(!page.contains("dp\\-sample"))
        // EXIT STATUS: every code the binary exits with (ExitStatus, read from its source, and
        // 128 + SIGINT or SIGTERM); FILES: where the examples were installed.
        let entryPoint = try String(
            contentsOf: Support.packageRoot.appendingPathComponent("Sources/healthtrail/EntryPoint.swift"), encoding: .utf8)
        let codes = entryPoint.matches(of: #/static let [a-zA-Z]+: Int32 = ([0-9]+)/#).map { String($0.output.1) }
        #expect(codes.sorted() == ["0", "1", "2", "3", "4"], "\(codes)")
        let exitStatus = try #require(page.range(of: "\n.SH EXIT STATUS\n")).upperBound
        let section = page[exitStatus...].prefix { _ in true }
        let sectionEnd = section.range(of: "\n.SH ")?.lowerBound ?? section.endIndex
        let listed = section[..<sectionEnd].matches(of: #/\\fB([0-9, ]+)\\fR/#).flatMap {
            $0.output.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        #expect(listed.sorted() == (codes + ["130", "143"]).sorted(), "\(listed)")
        #expect(page.contains("\n.SH FILES\n") && page.contains("/opt/ht/share/healthtrail/examples/"))
        for option in ["\\fB\\-\\-json\\fR", "\\fB\\-V\\fR, \\fB\\-\\-version\\fR", "\\fB\\-\\-summary\\fR", "\\fB\\-\\-log\\-format\\fR"] {
            #expect(page.contains(option), "\(option)")
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/man") {
            let rendered = try Support.runProgram(
                "/usr/bin/man", ["--warnings", "-l", prefix + "/share/man/man1/healthtrail.1"],
                environment: [
                    "LC_ALL": "C.UTF-8", "MANWIDTH": "100", "PATH": "/usr/bin:/bin",
                    "MANPAGER": "cat", "PAGER": "cat",
                ])
            #expect(rendered.status == 0 && rendered.stderr.isEmpty, "\(rendered.stderr)")
            #expect(rendered.stdout.contains("--max-expansion-ratio") && rendered.stdout.contains("healthtrail run"))
        }
        // The completions: each shell's script from the parser, with the commands and their options.
        let bash = try String(contentsOfFile: prefix + "/share/bash-completion/completions/healthtrail", encoding: .utf8)
        #expect(try Support.runProgram("/bin/bash", ["-n", prefix + "/share/bash-completion/completions/healthtrail"]).status == 0)
        for script in [
            bash, try String(contentsOfFile: prefix + "/share/zsh/site-functions/_healthtrail", encoding: .utf8),
            try String(contentsOfFile: prefix + "/share/fish/vendor_completions.d/healthtrail.fish", encoding: .utf8),
        ] {
            #expect(script.contains("inspect") && script.contains("json") && script.contains("summary"))
            #expect(!script.contains("dp-sample"))
        }
    }
}
