import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailCommit
@testable import HealthTrailKit
@testable import HealthTrailSynth

/// What cron relies on: a repeat run changes nothing, a killed run loses nothing, two runs on one
/// folder never write at once.
@Suite(.serialized) struct UnattendedRunTests {
    /// Every file below `dir` with its bytes, inode and modification time (nanoseconds), except
    /// the lock file, which is not an output (each run writes its pid there).
    static func fingerprint(_ dir: String) throws -> [String: FileState] {
        var result: [String: FileState] = [:]
        for (name, data) in try Support.snapshot(dir) where name != "/.healthtrail.lock" {
            var st = stat()
            #expect(stat(dir + name, &st) == 0)
            result[name] = FileState(
                bytes: data, inode: UInt64(st.st_ino), mtimeNanoseconds: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
        }
        return result
    }

    /// The files whose state differs between two fingerprints (for readable failures).
    static func changed(_ a: [String: FileState], _ b: [String: FileState]) -> [String] {
        Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }.sorted()
    }

    struct FileState: Equatable {
        var bytes: Data
        var inode: UInt64
        var mtimeNanoseconds: Int64
    }

    /// A synthesized archive big enough that a debug build takes a few seconds over it.
    static func largeArchive(_ dir: String, days: Int = 40, seed: UInt64 = 5) throws -> String {
        let path = dir + "/large-\(days)-\(seed).zip"
        _ = try ExportSynthesizer.write(to: path, options: SynthOptions(days: days, seed: seed))
        return path
    }

    @Test func aSecondRunOnTheSameInputIsSkippedAndTouchesNoOutput() throws {
        let dir = Support.temporaryDirectory()
        let zip = dir + "/export.zip"
        _ = try ExportSynthesizer.write(to: zip, options: SynthOptions(days: 3, seed: 2))
        #expect(try Support.runCLI(["run", zip, "--out", dir + "/out", "--quiet"]).status == 0)
        let before = try Self.fingerprint(dir + "/out")
        #expect(before["/manifest.json"] != nil && before.count > 10)

        let again = try Support.runCLI(["run", zip, "--out", dir + "/out", "--log-level", "info"])
        #expect(again.status == 3)
        #expect(again.stderr.contains("nothing new"))
        #expect(Self.changed(try Self.fingerprint(dir + "/out"), before) == [])
        // --force redoes it: same bytes, new files.
        #expect(try Support.runCLI(["run", zip, "--out", dir + "/out", "--quiet", "--force"]).status == 0)
        let forced = try Self.fingerprint(dir + "/out")
        #expect(forced["/manifest.json"]?.inode != before["/manifest.json"]?.inode)
        #expect(forced["/daily.csv"]?.bytes == before["/daily.csv"]?.bytes)
    }

    /// Starts `healthtrail run` and returns once its staging folder holds a heart_rate.csv with
    /// data in it: the run is then mid-way, writing.
    static func startRun(_ archive: String, out: String, extra: [String] = []) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Support.binary)
        process.arguments = ["run", archive, "--out", out, "--quiet", "--force"] + extra
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let staged = out + "/.staging-\(process.processIdentifier)/heart_rate.csv"
        for _ in 0..<6000 {   // at most a minute
            var st = stat()
            if stat(staged, &st) == 0 && st.st_size > 0 { return process }
            guard process.isRunning else { break }
            usleep(10_000)
        }
        Issue.record("the run never reached the point of writing (exit \(process.isRunning ? -1 : process.terminationStatus))")
        return process
    }

    @Test func aRunKilledMidwayLeavesThePreviousOutputsByteIdentical() throws {
        let dir = Support.temporaryDirectory()
        let small = dir + "/small.zip"
        _ = try ExportSynthesizer.write(to: small, options: SynthOptions(days: 3, seed: 2))
        #expect(try Support.runCLI(["run", small, "--out", dir + "/out", "--quiet"]).status == 0)
        let before = try Support.snapshot(dir + "/out").filter { $0.key != "/.healthtrail.lock" }

        let run = try Self.startRun(try Self.largeArchive(dir), out: dir + "/out")
        kill(run.processIdentifier, SIGKILL)
        run.waitUntilExit()
        #expect(run.terminationReason == .uncaughtSignal && run.terminationStatus == SIGKILL)
        let after = try Support.snapshot(dir + "/out").filter { !$0.key.hasPrefix("/.staging-") && $0.key != "/.healthtrail.lock" }
        #expect(after == before, "a killed run changed the previous outputs")

        // The next run takes over: says so, clears the dead run's staging folder, succeeds.
        let next = try Support.runCLI(["run", small, "--out", dir + "/out", "--force"])
        #expect(next.status == 0)
        #expect(next.stderr.contains("taking over the outputs of run \(run.processIdentifier)"))
        let left = try FileManager.default.contentsOfDirectory(atPath: dir + "/out").filter { $0.hasPrefix(".staging-") }
        #expect(left.isEmpty)
    }

    @Test func twoOverlappingRunsOneExitsWith4() throws {
        let dir = Support.temporaryDirectory()
        let archive = try Self.largeArchive(dir, days: 30, seed: 8)
        let first = try Self.startRun(archive, out: dir + "/out")
        let second = try Support.runCLI(["run", archive, "--out", dir + "/out", "--force"])
        #expect(second.status == 4)
        #expect(second.stderr.contains("another healthtrail run (pid \(first.processIdentifier)) is writing these outputs"))
        first.waitUntilExit()
        #expect(first.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: dir + "/out/manifest.json"))
    }
}

/// The commit's journal: a run killed while renaming its outputs into place is finished by the next.
@Suite struct CommitJournalTests {
    /// The pid of a process that has ended.
    static func deadPID() throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/true")
        try p.run()
        p.waitUntilExit()
        return p.processIdentifier
    }

    @Test func aCommitKilledHalfwayIsRolledForward() throws {
        let out = Support.temporaryDirectory()
        let fm = FileManager.default
        try "old a\n".write(toFile: out + "/a.csv", atomically: false, encoding: .utf8)
        try "old b\n".write(toFile: out + "/b.csv", atomically: false, encoding: .utf8)
        try fm.createDirectory(atPath: out + "/svg", withIntermediateDirectories: true)
        try "old map".write(toFile: out + "/svg/old.svg", atomically: false, encoding: .utf8)
        // The killed run had staged a.csv, b.csv and svg/new.svg, and moved b.csv in before it died.
        let pid = try Self.deadPID()
        let staging = out + "/.staging-\(pid)"
        try fm.createDirectory(atPath: staging + "/svg", withIntermediateDirectories: true)
        try "new a\n".write(toFile: staging + "/a.csv", atomically: false, encoding: .utf8)
        try "new map".write(toFile: staging + "/svg/new.svg", atomically: false, encoding: .utf8)
        try "new b\n".write(toFile: out + "/b.csv", atomically: false, encoding: .utf8)
        // The journal names the staging folder, then the previous run's files this one does not write.
        try ".staging-\(pid)\nsvg/old.svg\n".write(toFile: out + "/.commit-\(pid)", atomically: false, encoding: .utf8)

        let next = try OutputStaging(outputDirectory: out)
        next.discard()
        #expect(try String(contentsOfFile: out + "/a.csv", encoding: .utf8) == "new a\n")
        #expect(try String(contentsOfFile: out + "/b.csv", encoding: .utf8) == "new b\n")
        #expect(try fm.contentsOfDirectory(atPath: out + "/svg") == ["new.svg"])
        #expect(try fm.contentsOfDirectory(atPath: out).sorted() == ["a.csv", "b.csv", "svg"])
    }

    @Test func aStagingFolderWithoutAJournalIsDiscarded() throws {
        let out = Support.temporaryDirectory()
        try "old a\n".write(toFile: out + "/a.csv", atomically: false, encoding: .utf8)
        let pid = try Self.deadPID()
        try FileManager.default.createDirectory(atPath: out + "/.staging-\(pid)", withIntermediateDirectories: true)
        try "half-written".write(toFile: out + "/.staging-\(pid)/a.csv", atomically: false, encoding: .utf8)
        try OutputStaging(outputDirectory: out).discard()
        #expect(try String(contentsOfFile: out + "/a.csv", encoding: .utf8) == "old a\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["a.csv"])
    }
}

/// Faults mid-run: a signal, a full disk. Previous outputs intact, no partial file left, a
/// non-zero exit and a line saying what happened.
@Suite(.serialized) struct RunFaultTests {
    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalMidRunKeepsThePreviousOutputsAndSaysSo(_ signalNumber: Int32) throws {
        let dir = Support.temporaryDirectory()
        let small = dir + "/small.zip"
        _ = try ExportSynthesizer.write(to: small, options: SynthOptions(days: 3, seed: 2))
        #expect(try Support.runCLI(["run", small, "--out", dir + "/out", "--quiet"]).status == 0)
        let before = try Support.snapshot(dir + "/out").filter { $0.key != "/.healthtrail.lock" }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Support.binary)
        process.arguments = ["run", try UnattendedRunTests.largeArchive(dir), "--out", dir + "/out", "--force", "--quiet"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let staged = dir + "/out/.staging-\(process.processIdentifier)/heart_rate.csv"
        var st = stat()
        for _ in 0..<6000 where !(stat(staged, &st) == 0 && st.st_size > 0) && process.isRunning { usleep(10_000) }
        kill(process.processIdentifier, signalNumber)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()

        #expect(process.terminationReason == .exit && process.terminationStatus == 128 + signalNumber)
        #expect(message.contains("interrupted by \(signalNumber == SIGTERM ? "SIGTERM" : "SIGINT")"))
        #expect(message.contains("previous outputs are kept"))
        let after = try Support.snapshot(dir + "/out").filter { $0.key != "/.healthtrail.lock" }
        #expect(after == before)   // the staging folder is gone too: nothing but the previous outputs

        // A clean stop leaves no pid in the lock file: the next run is not told it took over
        // from a run that died.
        #expect(try String(contentsOfFile: dir + "/out/.healthtrail.lock", encoding: .utf8) == "")
        let next = try Support.runCLI(["run", small, "--out", dir + "/out", "--force"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(!next.stderr.contains("ended without finishing"), "\(next.stderr)")
    }

    @Test func aFullDiskMidRunFailsCleanly() throws {
        // A file-size limit stands in for a full disk: writes past it fail with EFBIG, as ENOSPC
        // would, and the run must fail the same way (SIGXFSZ ignored, as a shell can arrange).
        let dir = Support.temporaryDirectory()
        let small = dir + "/small.zip"
        _ = try ExportSynthesizer.write(to: small, options: SynthOptions(days: 2, seed: 3))
        #expect(try Support.runCLI(["run", small, "--out", dir + "/out", "--quiet"]).status == 0)
        let before = try Support.snapshot(dir + "/out").filter { $0.key != "/.healthtrail.lock" }
        let large = try UnattendedRunTests.largeArchive(dir, days: 20, seed: 6)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // 2048 blocks (1 MB in dash's 512-byte blocks, 2 MB in bash's): more than every output of
        // the small archive (route_points.csv 0.7 MB), less than the large one's (3.8 MB).
        process.arguments = [
            "-c", "ulimit -f 2048; trap '' XFSZ; exec \"$0\" run \"$1\" --out \"$2\" --force --quiet",
            Support.binary, large, dir + "/out",
        ]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(message.contains("File too large"), "\(message)")
        #expect(message.split(separator: "\n").count == 1)
        let after = try Support.snapshot(dir + "/out").filter { $0.key != "/.healthtrail.lock" }
        #expect(after == before)
    }
}
