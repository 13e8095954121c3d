// `healthtrail-bench busy`: one archive run on a quiet machine, then beside CPU hogs (one
// `yes > /dev/null` per core, as other cron jobs would be), the rounds alternating. A run may
// slow down by its fair share of the cores beside the hogs; it must never stall waiting for a
// core nothing else wants (route files decoded at idle priority once did). Fails above --limit.

import Foundation

struct BusyHostBenchOptions {
    var healthtrail = ""
    var days = 300
    var runs = 3
    var limit = 4.0
    var outDir = ".bench/busy"
    var report: String?

    static let usage = """
        usage: healthtrail-bench busy --healthtrail BIN [--days 300] [--runs 3] [--limit 4]
                                      [--out-dir DIR] [--report FILE.md]

        Synthesizes a --days archive (seed 42, cached in --out-dir), then times
        `healthtrail run` on it --runs times on a quiet machine and --runs times beside one
        CPU-bound `yes > /dev/null` per core, alternating. Exits 1 when the median time beside
        the hogs exceeds --limit times the quiet median.
        """

    static func parse(_ arguments: [String]) throws -> BusyHostBenchOptions {
        var o = BusyHostBenchOptions()
        for (flag, value) in try flagValuePairs(arguments) {
            switch flag {
            case "--healthtrail": o.healthtrail = value
            case "--out-dir": o.outDir = value
            case "--report": o.report = value
            case "--days", "--runs":
                let n = try positiveInteger(value, for: flag)
                if flag == "--days" { o.days = n } else { o.runs = n }
            case "--limit":
                guard let x = Double(value), x > 1 else { throw UsageError(message: "--limit must be a number above 1") }
                o.limit = x
            default: throw UsageError(message: "unknown option \(flag)")
            }
        }
        guard !o.healthtrail.isEmpty else { throw UsageError(message: "--healthtrail is required") }
        return o
    }
}

/// CPU-bound processes, one per core, stopped when the value is released.
final class CPUHogs {
    private var pids: [pid_t] = []

    init(count: Int) throws {
        for _ in 0..<count {
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/usr/bin/yes"), nil]
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            let spawned = posix_spawn(&pid, "/usr/bin/yes", &actions, nil, argv, environ)
            guard spawned == 0 else { throw BenchError("could not start /usr/bin/yes: \(String(cString: strerror(spawned)))") }
            pids.append(pid)
        }
        usleep(200_000)   // running before the measured run starts
    }

    deinit {
        for pid in pids { kill(pid, SIGKILL) }
        for pid in pids { var status: Int32 = 0; waitpid(pid, &status, 0) }
    }
}

func busyHostBench(_ o: BusyHostBenchOptions) throws {
    try FileManager.default.createDirectory(atPath: o.outDir, withIntermediateDirectories: true)
    let archive = o.outDir + "/busy-\(o.days)d.zip"
    if !FileManager.default.fileExists(atPath: archive) {
        _ = try measure(
            [o.healthtrail, "synth", archive + ".tmp", "--days", "\(o.days)", "--seed", "42"],
            stdoutPath: "/dev/null", stderrPath: "/dev/null")
        try FileManager.default.moveItem(atPath: archive + ".tmp", toPath: archive)
    }
    let cores = ProcessInfo.processInfo.activeProcessorCount
    var quiet: [Double] = [], busy: [Double] = [], routesWait: [Double] = []
    for round in 0...o.runs {
        for beside in [false, true] {
            let out = o.outDir + "/out"
            try? FileManager.default.removeItem(atPath: out)
            let hogs = beside ? try CPUHogs(count: cores) : nil
            let m = try measure(
                [o.healthtrail, "run", archive, "--out", out, "--quiet"],
                stdoutPath: o.outDir + "/run.stdout", stderrPath: o.outDir + "/run.stderr")
            withExtendedLifetime(hogs) {}
            let wait = RunManifest(outputDirectory: out)?.timings["routes_wait_s"] ?? 0
            print(
                "\(round == 0 ? "warm-up" : "round \(round)/\(o.runs)"): \(beside ? "beside \(cores) hogs" : "quiet")"
                    + ": \(fixed(m.seconds, 2)) s (routes_wait_s \(fixed(wait, 2)))")
            fflush(nil)   // every output stream: standard output's progress lines
            guard round > 0 else { continue }
            if beside { busy.append(m.seconds); routesWait.append(wait) } else { quiet.append(m.seconds) }
        }
    }
    let q = median(quiet) ?? 0, b = median(busy) ?? 0
    let ratio = b / max(q, 1e-9)
    let verdict = ratio <= o.limit ? "PASS" : "FAIL"
    let text =
        [
            "# Busy-host benchmark", "",
            "`healthtrail run` on a \(o.days)-day synthesized archive (seed 42), quiet and beside \(cores) CPU hogs "
                + "(`yes > /dev/null`, one per core), rounds alternating; median of \(o.runs) after a warm-up; \(hostDescription()).", "",
            "| machine | median wall time | rounds |", "|---|---|---|",
            "| quiet | \(fixed(q, 2)) s | \(quiet.map { fixed($0, 2) }.joined(separator: ", ")) |",
            "| beside \(cores) hogs | \(fixed(b, 2)) s | \(busy.map { fixed($0, 2) }.joined(separator: ", ")) |", "",
            "Beside the hogs / quiet: **\(fixed(ratio, 2))×** (limit \(fixed(o.limit, 1))×): \(verdict). "
                + "Median `routes_wait_s` beside the hogs: \(fixed(median(routesWait) ?? 0, 2)) s.",
        ].joined(separator: "\n") + "\n"
    print("\n" + text, terminator: "")
    if let report = o.report { try text.write(toFile: report, atomically: true, encoding: .utf8) }
    if ratio > o.limit { throw BenchError("a run beside CPU hogs took \(fixed(ratio, 2))× its quiet time (limit \(fixed(o.limit, 1))×)") }
}
