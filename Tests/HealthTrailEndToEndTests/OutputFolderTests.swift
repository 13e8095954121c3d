import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailCommit
@testable import HealthTrailKit

/// A run touches only its own files: it refuses folders it did not fill and roots, replaces or
/// removes only what its previous manifest lists, and opens nothing through a planted link.
@Suite(.serialized) struct OutputFolderTests {
    static let heartRate =
        #"<Record type="HKQuantityTypeIdentifierHeartRate" sourceName="W" unit="count/min" startDate="2024-01-02 08:00:00 +0100" endDate="2024-01-02 08:00:00 +0100" value="70"/>"#
    static let steps =
        #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="P" unit="count" startDate="2024-01-02 08:00:00 +0100" endDate="2024-01-02 08:10:00 +0100" value="5"/>"#

    static func archive(_ dir: String, _ name: String, _ body: String) throws -> String {
        let zip = dir + "/" + name
        try Support.makeZip(zip, [("apple_health_export/export.xml", Support.exportXML(body))])
        return zip
    }

    /// A link planted where HealthTrail writes a file of its own (a journal, a temporary) is
    /// refused, and the file it points at is left as it was.
    @Test func aWholeFileWriteNeverFollowsALink() throws {
        let dir = Support.temporaryDirectory()
        let victim = dir + "/victim.txt", planted = dir + "/.commit-1"
        try "mine\n".write(toFile: victim, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: victim)
        #expect(throws: InputError.self) { try OutputFile.write(Array("journal\n".utf8), to: planted) }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "mine\n")
    }

    /// A signal's handler removes the staging folder while the run's other threads still write:
    /// once it is discarded, a file opened by its staging path is not created, no subfolder is
    /// made again, and nothing of the run is left in the output folder.
    @Test func aDiscardedStagingFolderCannotBeFilledAgain() throws {
        let out = Support.temporaryDirectory()
        let staging = try OutputStaging(outputDirectory: out)
        let spill = try staging.path(".route-points-2.spill")
        let early = open(spill, O_CREAT | O_WRONLY, 0o600)
        #expect(early >= 0)
        staging.discard()
        let late = open(spill, O_CREAT | O_WRONLY, 0o600)
        #expect(late == -1 && errno == ENOENT)
        if late >= 0 { close(late) }
        if early >= 0 { close(early) }
        #expect(throws: CancellationError.self) { try staging.path("svg/workouts/a.svg") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix(".staging-") } == [])
    }

    /// A run killed while removing its staging folder leaves `.staging-<pid>.removed`; the next
    /// run removes it as it removes any stopped run's staging folder.
    @Test func aHalfRemovedStagingFolderIsClearedByTheNextRun() throws {
        let out = Support.temporaryDirectory()
        let left = out + "/.staging-999999.removed"
        try FileManager.default.createDirectory(atPath: left + "/svg", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: left + "/svg/a.svg"))
        _ = try OutputCommit.rollForward(in: out)
        #expect(!FileManager.default.fileExists(atPath: left))
    }

    @Test func aFolderItDidNotFillIsRefusedAndLeftAlone() throws {
        let dir = Support.temporaryDirectory()
        let zip = try Self.archive(dir, "export.zip", Self.heartRate)
        let mine = dir + "/mydocs"
        try FileManager.default.createDirectory(atPath: mine + "/records", withIntermediateDirectories: true)
        try "mine".write(toFile: mine + "/records/mine.csv", atomically: false, encoding: .utf8)
        try "notes".write(toFile: mine + "/my-notes.txt", atomically: false, encoding: .utf8)
        let before = try Support.snapshot(mine)

        let run = try Support.runCLI(["run", zip, "--out", mine, "--quiet"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("holds 2 items HealthTrail did not write and no manifest.json"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
        var after = try Support.snapshot(mine)
        after["/.healthtrail.lock"] = nil
        #expect(after == before)
    }

    @Test func theUsersFilesAmongTheOutputsStayAndStaleOutputsGo() throws {
        let dir = Support.temporaryDirectory()
        let out = dir + "/out"
        let a = try Self.archive(dir, "a.zip", Self.heartRate + "\n" + Self.steps)
        #expect(try Support.runCLI(["run", a, "--out", out, "--quiet"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: out + "/records/step_count.csv"))
        try "mine".write(toFile: out + "/records/mine.csv", atomically: false, encoding: .utf8)
        try "notes".write(toFile: out + "/svg/my-notes.txt", atomically: false, encoding: .utf8)
        try "notes".write(toFile: out + "/notes.txt", atomically: false, encoding: .utf8)

        // B has no steps: records/step_count.csv is A's and stale; the user's files stay.
        let b = try Self.archive(dir, "b.zip", Self.heartRate)
        let run = try Support.runCLI(["run", b, "--out", out, "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/records/step_count.csv"))
        for file in ["/records/mine.csv", "/svg/my-notes.txt", "/notes.txt"] {
            #expect(FileManager.default.fileExists(atPath: out + file), "\(file) was removed")
        }
        // And the manifest lists exactly what HealthTrail wrote.
        let manifest = try CohortRunTests.json(out + "/manifest.json")
        let listed = Set(try #require(manifest["files"] as? [String]))
        var written = Set(try Support.snapshot(out).keys.map { String($0.dropFirst()) })
        written.subtract([".healthtrail.lock", "manifest.json", "records/mine.csv", "svg/my-notes.txt", "notes.txt"])
        #expect(listed == written)
    }

    @Test func aFileOfTheUsersWhereAnOutputWouldGoIsNotReplaced() throws {
        let dir = Support.temporaryDirectory()
        let out = dir + "/out"
        #expect(try Support.runCLI(["run", try Self.archive(dir, "a.zip", Self.heartRate), "--out", out, "--quiet"]).status == 0)
        try FileManager.default.createDirectory(atPath: out + "/records", withIntermediateDirectories: true)
        try "mine".write(toFile: out + "/records/step_count.csv", atomically: false, encoding: .utf8)
        let before = try Support.snapshot(out)
        let run = try Support.runCLI(["run", try Self.archive(dir, "b.zip", Self.heartRate + "\n" + Self.steps), "--out", out, "--quiet"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("records/step_count.csv: exists and was not written by HealthTrail"), "\(run.stderr)")
        var after = try Support.snapshot(out)
        after["/.healthtrail.lock"] = nil
        var expected = before
        expected["/.healthtrail.lock"] = nil
        #expect(after == expected)
    }

    /// The issue's reproduction: after a run, the user replaces `out/records` with a link to a
    /// folder of their own holding files of the same names; a run without `records/` tables
    /// must not delete them through the link. It stops with one line naming the link, and
    /// neither the link, the user's folder nor the previous outputs change.
    @Test func aLinkWhereAnOutputFolderStoodIsNeverDeletedThrough() throws {
        let dir = Support.temporaryDirectory()
        let out = dir + "/out", mine = dir + "/mine"
        #expect(try Support.runCLI(["run", try Self.archive(dir, "a.zip", Self.heartRate + "\n" + Self.steps), "--out", out, "--quiet"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: out + "/records/step_count.csv"))
        try FileManager.default.createDirectory(atPath: mine, withIntermediateDirectories: true)
        try "my steps\n".write(toFile: mine + "/step_count.csv", atomically: false, encoding: .utf8)
        try "my notes\n".write(toFile: mine + "/notes.txt", atomically: false, encoding: .utf8)
        try FileManager.default.removeItem(atPath: out + "/records")
        #expect(symlink("../mine", out + "/records") == 0)
        let mineBefore = try Support.snapshot(mine)
        let outBefore = try Support.snapshot(out).filter { $0.key != "/.healthtrail.lock" }

        let run = try Support.runCLI(["run", try Self.archive(dir, "b.zip", Self.workoutOnly), "--out", out, "--quiet"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("out/records: is a symbolic link where HealthTrail keeps a folder of outputs"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(try Support.snapshot(mine) == mineBefore)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: out + "/records") == "../mine")
        #expect(try Support.snapshot(out).filter { $0.key != "/.healthtrail.lock" } == outBefore)
    }

    static let workoutOnly =
        #"<Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="10" durationUnit="min" sourceName="W" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:10:00 +0100"></Workout>"#

    /// The previous run's files in the commit tests below, at every depth of folders.
    static let previousFiles = ["records/a.csv", "svg/overview.svg", "svg/workouts/2024/x.svg"]

    /// An output folder holding `previousFiles` (its manifest lists them), a staging folder
    /// holding `staged` and a manifest, and the folder or file at `link` moved out to `mine`
    /// (with a file of the user's own beside what it held) and replaced by a link to it.
    static func folderWithLink(at link: String, staged: [String]) throws -> (out: String, mine: String, staging: String) {
        let dir = Support.temporaryDirectory()
        let out = dir + "/out", mine = dir + "/mine", staging = out + "/.staging-999999"
        for (root, files) in [(out, previousFiles + [OutputCommit.manifestName]), (staging, staged + [OutputCommit.manifestName])] {
            for file in files {
                let path = root + "/" + file
                try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try "\(root == out ? "previous" : "new") \(file)\n".write(toFile: path, atomically: false, encoding: .utf8)
            }
        }
        try FileManager.default.moveItem(atPath: out + "/" + link, toPath: mine)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: mine, isDirectory: &isFolder), isFolder.boolValue {
            try "mine\n".write(toFile: mine + "/own.txt", atomically: false, encoding: .utf8)
        }
        #expect(symlink(mine, out + "/" + link) == 0)
        return (out, mine, staging)
    }

    static func isLink(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK
    }

    /// A link at any folder a stale file or a new output lies under stops the commit before
    /// anything moves, with the link's path and why; what the link points to is unchanged.
    @Test(arguments: [
        ("records", [String]()), ("svg", []), ("svg/workouts", []), ("svg/workouts/2024", []),
        ("svg", ["svg/workouts/2024/y.svg"]), ("svg/workouts", ["svg/workouts/2024/y.svg"]),
        ("svg/workouts/2024", ["svg/workouts/2024/y.svg"]),
    ])
    func aLinkAtAnyDepthStopsTheCommit(_ link: String, _ staged: [String]) throws {
        let (out, mine, staging) = try Self.folderWithLink(at: link, staged: staged)
        let before = try Support.snapshot(mine)
        let commit = OutputCommit(outputDirectory: out, stagingDirectory: staging)
        do {
            try commit.run(listed: Set(Self.previousFiles + [OutputCommit.manifestName]), journal: OutputCommit.journalPath(out, pid: 999999))
            Issue.record("the commit went through the link at \(link)")
        } catch let error as InputError {
            #expect(error.file == out + "/" + link && error.message == OpenedFolder.linkInTheWay, "\(error)")
        }
        #expect(try Support.snapshot(mine) == before, "\(link)")
        #expect(Self.isLink(out + "/" + link))
        #expect(try String(contentsOfFile: out + "/manifest.json", encoding: .utf8) == "previous manifest.json\n")
        #expect(!FileManager.default.fileExists(atPath: OutputCommit.journalPath(out, pid: 999999)))
    }

    /// A link where a previous output file stood is replaced (a new output of that name) or
    /// removed (a stale one) as a link: the file it points to stays.
    @Test(arguments: [[String](), ["svg/workouts/2024/x.svg"]])
    func aLinkWhereAnOutputFileStoodIsRemovedAsALink(_ staged: [String]) throws {
        let link = "svg/workouts/2024/x.svg"
        let (out, mine, staging) = try Self.folderWithLink(at: link, staged: staged)
        try OutputCommit(outputDirectory: out, stagingDirectory: staging)
            .run(listed: Set(Self.previousFiles + [OutputCommit.manifestName]), journal: OutputCommit.journalPath(out, pid: 999999))
        #expect(try String(contentsOfFile: mine, encoding: .utf8) == "previous \(link)\n")
        #expect(!Self.isLink(out + "/" + link))
        if staged.isEmpty {
            #expect(!FileManager.default.fileExists(atPath: out + "/svg/workouts"))
        } else {
            #expect(try String(contentsOfFile: out + "/" + link, encoding: .utf8) == "new \(link)\n")
        }
        #expect(try String(contentsOfFile: out + "/manifest.json", encoding: .utf8) == "new manifest.json\n")
    }

    /// The next run finishing a killed run's commit from its journal walks the same way: a link
    /// at any depth stops it with the link's path; nothing is moved into or deleted from the
    /// folder the link points to.
    @Test(arguments: [
        ("records", ["new.csv"]), ("svg", ["new.csv"]), ("svg/workouts", ["new.csv"]), ("svg/workouts/2024", ["new.csv"]),
        ("svg/workouts/2024", ["svg/workouts/2024/y.svg"]),
    ])
    func finishingAStoppedCommitNeverFollowsALink(_ link: String, _ staged: [String]) throws {
        let (out, mine, staging) = try Self.folderWithLink(at: link, staged: staged)
        // The journal of a commit killed after step 1: every previous file is stale.
        try OutputFile.write(
            Array(([".staging-999999"] + Self.previousFiles).map { $0 + "\n" }.joined().utf8), to: OutputCommit.journalPath(out, pid: 999999))
        let before = try Support.snapshot(mine)
        do {
            _ = try OutputCommit.rollForward(in: out)
            Issue.record("the roll-forward went through the link at \(link)")
        } catch let error as InputError {
            #expect(error.file == out + "/" + link && error.message == OpenedFolder.linkInTheWay, "\(error)")
        }
        #expect(try Support.snapshot(mine) == before, "\(link)")
        #expect(Self.isLink(out + "/" + link))
        for file in staged { #expect(FileManager.default.fileExists(atPath: staging + "/" + file), "\(file) moved") }
    }

    @Test func rootsAndTheHomeFolderAreRefused() throws {
        let dir = Support.temporaryDirectory()
        let zip = try Self.archive(dir, "export.zip", Self.heartRate)
        let home = dir + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        for (out, phrase) in [
            ("/", "a top-level folder"), ("/tmp", "a top-level folder"), (home, "the home folder"), (home + "/.", "the home folder"),
        ] {
            let run = try Support.runProgram(Support.binary, ["run", zip, "--out", out, "--quiet"], environment: environment)
            #expect(run.status == 1, "\(out)")
            #expect(run.stderr.contains("refusing to write outputs into \(phrase)"), "\(out): \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: "/.healthtrail.lock"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: home).isEmpty)
    }

    @Test func aLinkPlantedAsTheLockFileIsNotFollowed() throws {
        let dir = Support.temporaryDirectory()
        let zip = try Self.archive(dir, "export.zip", Self.heartRate)
        let out = dir + "/out"
        #expect(try Support.runCLI(["run", zip, "--out", out, "--quiet"]).status == 0)
        try "precious\n".write(toFile: dir + "/victim.txt", atomically: false, encoding: .utf8)
        unlink(out + "/.healthtrail.lock")
        #expect(symlink(dir + "/victim.txt", out + "/.healthtrail.lock") == 0)
        let run = try Support.runCLI(["run", zip, "--out", out, "--force", "--quiet"])
        #expect(run.status == 1)
        #expect(run.stderr.contains(".healthtrail.lock: cannot open the lock file: it is a symbolic link"), "\(run.stderr)")
        #expect(try String(contentsOfFile: dir + "/victim.txt", encoding: .utf8) == "precious\n")
    }

    @Test func anOutputFolderOthersCanWriteIsWarnedAbout() throws {
        let dir = Support.temporaryDirectory()
        let out = dir + "/shared"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        #expect(chmod(out, 0o777) == 0)
        let run = try Support.runCLI(["run", try Self.archive(dir, "export.zip", Self.heartRate), "--out", out])
        #expect(run.status == 0)
        #expect(run.stderr.contains("others can write into the output folder"), "\(run.stderr)")
    }

    /// `--out` given as a link: the folder it points to is judged, not the link's own mode
    /// (0777 for every link on Linux).
    @Test func anOutputFolderGivenAsALinkIsJudgedByItsFolder() throws {
        let dir = Support.temporaryDirectory()
        let real = dir + "/real", out = dir + "/out"
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        #expect(chmod(real, 0o755) == 0)
        #expect(symlink(real, out) == 0)
        let zip = try Self.archive(dir, "export.zip", Self.heartRate)
        let run = try Support.runCLI(["run", zip, "--out", out])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("others can write"), "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: real + "/manifest.json"))
        #expect(chmod(real, 0o777) == 0)
        let shared = try Support.runCLI(["run", zip, "--out", out, "--force"])
        #expect(shared.status == 0, "\(shared.stderr)")
        #expect(shared.stderr.contains("others can write into the output folder"), "\(shared.stderr)")
    }

    @Test func aFIFOIsRefusedNotWaitedFor() throws {
        let dir = Support.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/exports", withIntermediateDirectories: true)
        let old = try Self.archive(dir + "/exports", "old.zip", Self.heartRate)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: old)
        #expect(mkfifo(dir + "/exports/newest.zip", 0o600) == 0)
        // The FIFO is the newest *.zip of the nightly folder.
        try """
        version: 1
        kind: person
        input:
          path: exports
          pick: newest
        output: out
        outputs: [csv]
        """.write(toFile: dir + "/nightly.yaml", atomically: true, encoding: .utf8)
        for arguments in [["run", dir + "/exports/newest.zip", "--out", dir + "/out"], ["run", "--pipeline", dir + "/nightly.yaml"]] {
            let run = try Support.runProgram(Support.binary, arguments + ["--quiet"], timeout: 60)
            #expect(run.status == 1, "\(arguments): exit \(run.status) (137: still blocked after a minute)")
            #expect(run.stderr.contains("newest.zip: not a regular file (a FIFO)"), "\(run.stderr)")
        }
    }

    @Test func anUnreadableRoutesFolderFailsTheRunWithALine() throws {
        let dir = Support.temporaryDirectory()
        let export = dir + "/apple_health_export"
        try FileManager.default.createDirectory(atPath: export + "/workout-routes", withIntermediateDirectories: true)
        try Support.exportXML(Self.heartRate).write(toFile: export + "/export.xml", atomically: false, encoding: .utf8)
        try "<gpx/>".write(toFile: export + "/workout-routes/route_2024-01-02_8.00am.gpx", atomically: false, encoding: .utf8)
        #expect(chmod(export + "/workout-routes", 0o000) == 0)
        defer { chmod(export + "/workout-routes", 0o700) }
        for path in [(dir as NSString).deletingLastPathComponent, dir, export, export + "/export.xml"] { chmod(path, 0o755) }
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        chmod(out, 0o777)
        // Root reads any folder: run as nobody then, as a user would be, from a copy of the
        // binary nobody can reach (the checkout may sit in a folder only root can enter).
        let binary = dir + "/healthtrail"
        try FileManager.default.copyItem(atPath: Support.binary, toPath: binary)
        chmod(binary, 0o755)
        let asUser = geteuid() == 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", binary] : [binary]
        let run = try Support.runProgram(asUser[0], Array(asUser.dropFirst()) + ["run", export, "--out", out, "--quiet"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("entry workout-routes: cannot list the folder: Permission denied"), "\(run.stderr)")
    }

    @Test(arguments: [true, false])
    func aFileSizeLimitEndsTheRunWithALine(shellIgnoresSIGXFSZ: Bool) throws {
        let dir = Support.temporaryDirectory()
        let large = try UnattendedRunTests.largeArchive(dir, days: 20, seed: 6)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let trap = shellIgnoresSIGXFSZ ? "trap '' XFSZ; " : ""
        process.arguments = ["-c", "ulimit -f 2048; \(trap)exec \"$0\" run \"$1\" --out \"$2\" --quiet", Support.binary, large, dir + "/out"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 1, "\(process.terminationStatus): \(message)")
        #expect(message.contains("File too large"), "\(message)")
        #expect(message.split(separator: "\n").count == 1)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir + "/out").filter { $0 != ".healthtrail.lock" }
        #expect(left.isEmpty, "\(left)")
    }
}
