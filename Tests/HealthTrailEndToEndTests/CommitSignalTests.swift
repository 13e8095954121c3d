import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailKit
@testable import HealthTrailSynth

/// A run stopped at any point of moving its outputs into place: once the next run has returned,
/// the folder holds wholly the previous run's outputs or wholly the stopped run's, that next run
/// says what it finished or removed, and its "nothing new" check sees the folder as it is.
///
/// Signals are injected by strace at every `renameat`, `unlink`, `unlinkat`, `rmdir`, `mkdir` and
/// `mkdirat` the run makes (the commit's every step is one of those or the journal's `write`; it
/// moves, removes and creates relative to folders it holds open, `OpenedFolder`), and SIGKILL
/// also comes at seeded random moments.
@Suite(.serialized) struct CommitSignalTests {
    /// Two small archives, and the outputs each writes into a fresh folder.
    struct Fixture {
        var dir: String
        var a: String, b: String
        var aOutputs: [String: Data], bOutputs: [String: Data]
        var aSHA: String, bSHA: String
    }

    static let fixture: Fixture = {
        let dir = Support.temporaryDirectory("CommitSignalTests")
        let a = dir + "/a.zip", b = dir + "/b.zip"
        // Different seeds: different workouts, so different maps, and A's are stale after B.
        _ = try! ExportSynthesizer.write(to: a, options: SynthOptions(days: 3, seed: 21))
        _ = try! ExportSynthesizer.write(to: b, options: SynthOptions(days: 4, seed: 22))
        for (zip, out) in [(a, dir + "/fresh-a"), (b, dir + "/fresh-b")] {
            precondition(try! Support.runCLI(["run", zip, "--out", out, "--quiet"]).status == 0)
        }
        let aOut = outputs(dir + "/fresh-a"), bOut = outputs(dir + "/fresh-b")
        return Fixture(dir: dir, a: a, b: b, aOutputs: aOut.files, bOutputs: bOut.files, aSHA: aOut.sha, bSHA: bOut.sha)
    }()

    /// A folder's outputs but the manifest (whose timings differ run to run), and the SHA-256 of
    /// the input its manifest names.
    static func outputs(_ out: String) -> (files: [String: Data], sha: String) {
        var files = (try? Support.snapshot(out)) ?? [:]
        files["/.healthtrail.lock"] = nil
        let manifest = files.removeValue(forKey: "/manifest.json")
        let json = manifest.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        let sha = (json?["input"] as? [String: Any])?["sha256"] as? String ?? "no manifest"
        return (files, sha)
    }

    /// "A" or "B" when the folder is wholly that run's, else a description of the mix.
    static func state(_ out: String) -> String {
        let f = fixture, now = outputs(out)
        let hidden = ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).filter {
            $0.hasPrefix(".") && $0 != ".healthtrail.lock" && $0 != ".healthtrail-key"
        }
        guard hidden.isEmpty else { return "left behind: \(hidden.sorted())" }
        if now.files == f.aOutputs && now.sha == f.aSHA { return "A" }
        if now.files == f.bOutputs && now.sha == f.bSHA { return "B" }
        let fromA = now.files.filter { f.aOutputs[$0.key] == $0.value }.count
        let fromB = now.files.filter { f.bOutputs[$0.key] == $0.value }.count
        return
            "mixed: \(fromA) files of A, \(fromB) of B, \(now.files.count) in all, manifest of \(now.sha == f.aSHA ? "A" : now.sha == f.bSHA ? "B" : "neither")"
    }

    /// A fresh folder holding A's outputs.
    static func folderWithA() throws -> String {
        let out = Support.temporaryDirectory("CommitSignalOut")
        try FileManager.default.removeItem(atPath: out)
        #expect(try Support.runCLI(["run", fixture.a, "--out", out, "--quiet"]).status == 0)
        #expect(state(out) == "A")
        return out
    }

    /// After a stopped run of B: the next run of B must return 0 (it did the work) or 3 (B was
    /// already wholly in place), leave B wholly in place, and say what it found.
    static func nextRunCompletes(_ out: String, stoppedPID: Int32, wasCommitting: Bool, hadStaging: Bool, _ context: String) throws {
        // What it found is logged at info (a warning when it finishes a commit).
        let next = try Support.runCLI(["run", fixture.b, "--out", out, "--log-level", "info"])
        #expect(next.status == 0 || next.status == 3, "\(context): next run exit \(next.status): \(next.stderr)")
        #expect(state(out) == "B", "\(context)")
        if wasCommitting {
            #expect(next.stderr.contains("finished moving into place the outputs of run \(stoppedPID)"), "\(context): \(next.stderr)")
        } else if hadStaging {
            #expect(next.stderr.contains("removed the unfinished outputs of run \(stoppedPID)"), "\(context): \(next.stderr)")
        }
    }

    /// Runs B over A's outputs under strace, which sends `signal` at the `n`-th call of `call`.
    /// Returns whether the signal was sent (fewer calls than `n`: not), the run's exit code and
    /// line, its pid and whether it left a journal or a staging folder.
    static func injected(_ call: String, _ n: Int, _ signal: String, out: String)
        throws -> (sent: Bool, status: Int32, stderr: String, pid: Int32, journal: Bool, staging: Bool)
    {
        let trace = out + ".strace"
        let run = try Support.runProgram(
            "/usr/bin/strace",
            [
                "-f", "-o", trace, "-e", "trace=\(call)",
                "-e", "inject=\(call):signal=\(signal):when=\(n)",
                Support.binary, "run", fixture.b, "--out", out, "--quiet",
            ])
        let traced = (try? String(contentsOfFile: trace, encoding: .utf8)) ?? ""
        unlink(trace)
        let sent = traced.contains("--- \(signal) ") || traced.contains("+++ killed by \(signal)")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
        // The stopped run's pid, from the names of what it left (its journal or staging folder).
        let pid =
            left.compactMap { name -> Int32? in
                for prefix in [".commit-", ".staging-"] where name.hasPrefix(prefix) { return Int32(name.dropFirst(prefix.count)) }
                return nil
            }.first ?? -1
        return (sent, run.status, run.stderr, pid, left.contains { $0.hasPrefix(".commit-") }, left.contains { $0.hasPrefix(".staging-") })
    }

    /// A folder holding A's outputs, copied from one A wrote (faster than a run per case).
    static func copyOfA(_ name: String) throws -> String {
        let out = Support.temporaryDirectory(name)
        try FileManager.default.removeItem(atPath: out)
        try FileManager.default.copyItem(atPath: templateA, toPath: out)
        return out
    }

    static let templateA: String = try! folderWithA()

    @Test(arguments: [
        ("renameat", "SIGTERM"), ("renameat", "SIGKILL"), ("unlink", "SIGKILL"), ("unlinkat", "SIGKILL"),
        ("rmdir", "SIGKILL"), ("mkdir", "SIGKILL"), ("mkdirat", "SIGKILL"), ("fsync", "SIGKILL"),
    ])
    func aSignalAtEveryStepLeavesOneRunsOutputs(_ call: String, _ signal: String) throws {
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "strace is needed (make test-deps installs it)")
        var sent = 0
        for n in 1...400 {
            let out = try Self.copyOfA("CommitSignal\(call)\(n)")
            defer { try? FileManager.default.removeItem(atPath: out) }
            let stopped = try Self.injected(call, n, signal, out: out)
            let context = "\(signal) at \(call) #\(n)"
            guard stopped.sent else {
                // Fewer calls than n: the run went through, and the sweep is over.
                #expect(stopped.status == 0, "\(context): \(stopped.stderr)")
                #expect(Self.state(out) == "B", "\(context)")
                break
            }
            sent += 1
            if signal == "SIGTERM" {
                // Handled: either before the commit (nothing replaced) or after it (waited for),
                // or the run ended first (exit 0); what it says is what it left.
                #expect([0, 143].contains(stopped.status), "\(context): exit \(stopped.status): \(stopped.stderr)")
                #expect(stopped.stderr.split(separator: "\n").count <= 1, "\(context): \(stopped.stderr)")
                if stopped.status == 0 || stopped.stderr.contains("the new outputs were already in place") {
                    #expect(Self.state(out) == "B", "\(context)")
                } else {
                    #expect(stopped.stderr.contains("nothing was replaced"), "\(context): \(stopped.stderr)")
                    #expect(Self.outputs(out).files == Self.fixture.aOutputs, "\(context)")
                }
            } else {
                #expect(stopped.status == 137, "\(context): exit \(stopped.status)")
            }
            try Self.nextRunCompletes(
                out, stoppedPID: stopped.pid, wasCommitting: stopped.journal,
                hadStaging: stopped.staging, context)
        }
        #expect(sent > 0, "strace never sent \(signal) at \(call)")
    }

    @Test func aKillAtRandomMomentsLeavesOneRunsOutputs() throws {
        var random = SynthRandom(seed: 19)
        let out = try Self.folderWithA()
        // How long an undisturbed run takes here, to spread the kills over it.
        let clock = Date()
        #expect(try Support.runCLI(["run", Self.fixture.b, "--out", out + "-timing", "--quiet"]).status == 0)
        let seconds = Date().timeIntervalSince(clock)
        for round in 0..<16 {
            #expect(try Support.runCLI(["run", Self.fixture.a, "--out", out, "--quiet", "--force"]).status == 0)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Support.binary)
            process.arguments = ["run", Self.fixture.b, "--out", out, "--quiet", "--force"]
            process.standardError = FileHandle.nullDevice
            try process.run()
            let delay = Double(random.next() % 1000) / 1000 * seconds * 1.1
            usleep(UInt32(delay * 1_000_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let left = (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
            try Self.nextRunCompletes(
                out, stoppedPID: process.processIdentifier,
                wasCommitting: left.contains { $0.hasPrefix(".commit-") },
                hadStaging: left.contains { $0.hasPrefix(".staging-") },
                "SIGKILL after \(Int(delay * 1000)) ms (round \(round))")
        }
    }
}
