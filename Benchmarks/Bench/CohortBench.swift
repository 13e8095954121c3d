// `healthtrail-bench cohort`: a cohort of synthesized persons through `healthtrail run --pipeline`,
// once per --jobs value per round, the rounds alternating so each setting sees the same machine.

import Foundation

struct CohortBenchOptions {
    var healthtrail = ""
    var pipeline = "pipelines/cohort.yaml"
    var persons = 20
    var days = 30
    var runs = 3
    var jobs = [1, 2]
    var outDir = ".bench/cohort"
    var report: String?

    static let usage = """
        usage: healthtrail-bench cohort --healthtrail BIN [--pipeline pipelines/cohort.yaml] [--persons 20]
                                        [--days 30] [--runs 3] [--jobs 1,2] [--out-dir DIR] [--report FILE.md]

        Synthesizes --persons archives (seeds 1…N, cached in --out-dir), then times
        `healthtrail run --pipeline P --jobs J` from scratch for each J, one warm-up round and
        --runs measured rounds; reports the median wall time per J.
        """

    static func parse(_ arguments: [String]) throws -> CohortBenchOptions {
        var o = CohortBenchOptions()
        for (flag, value) in try flagValuePairs(arguments) {
            switch flag {
            case "--healthtrail": o.healthtrail = value
            case "--pipeline": o.pipeline = value
            case "--out-dir": o.outDir = value
            case "--report": o.report = value
            case "--persons", "--days", "--runs":
                let n = try positiveInteger(value, for: flag)
                if flag == "--persons" { o.persons = n } else if flag == "--days" { o.days = n } else { o.runs = n }
            case "--jobs":
                o.jobs = value.split(separator: ",").compactMap { Int($0) }
                guard !o.jobs.isEmpty, o.jobs.allSatisfy({ $0 >= 1 }) else { throw UsageError(message: "--jobs takes e.g. 1,2") }
            default: throw UsageError(message: "unknown option \(flag)")
            }
        }
        guard !o.healthtrail.isEmpty else { throw UsageError(message: "--healthtrail is required") }
        return o
    }
}

/// Makes the study folder once: archives, key, and the pipeline with `~` pointing at it.
func prepareStudy(_ o: CohortBenchOptions) throws -> (pipeline: String, megabytes: Double) {
    let study = FileManager.default.currentDirectoryPath + "/" + o.outDir + "/study-\(o.persons)x\(o.days)d"
    let archives = study + "/study/archives"
    try FileManager.default.createDirectory(atPath: archives, withIntermediateDirectories: true)
    var bytes: UInt64 = 0
    for seed in 1...o.persons {
        let path = archives + "/p\(seed).zip"
        if !FileManager.default.fileExists(atPath: path) {
            _ = try measure(
                [o.healthtrail, "synth", path + ".tmp", "--days", "\(o.days)", "--seed", "\(seed)"],
                stdoutPath: "/dev/null", stderrPath: "/dev/null")
            try FileManager.default.moveItem(atPath: path + ".tmp", toPath: path)
        }
        bytes += (try FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt64) ?? 0
    }
    let key = study + "/study/pseudonym.key"
    if !FileManager.default.fileExists(atPath: key) {
        _ = try measure([o.healthtrail, "keygen", key], stdoutPath: "/dev/null", stderrPath: "/dev/null")
    }
    let text = try String(contentsOfFile: o.pipeline, encoding: .utf8).replacingOccurrences(of: "~/", with: study + "/")
    let pipeline = study + "/cohort.yaml"
    try text.write(toFile: pipeline, atomically: true, encoding: .utf8)
    return (pipeline, Double(bytes) / 1e6)
}

func cohortBench(_ o: CohortBenchOptions) throws {
    let (pipeline, megabytes) = try prepareStudy(o)
    var seconds: [Int: [Double]] = [:]
    for round in 0...o.runs {
        for jobs in o.jobs {
            let out = o.outDir + "/out-j\(jobs)"
            try? FileManager.default.removeItem(atPath: out)
            let m = try measure(
                [o.healthtrail, "run", "--pipeline", pipeline, "--jobs", "\(jobs)", "--out", out, "--quiet"],
                stdoutPath: o.outDir + "/cohort.stdout", stderrPath: o.outDir + "/cohort.stderr")
            print("\(round == 0 ? "warm-up" : "round \(round)/\(o.runs)"): --jobs \(jobs): \(fixed(m.seconds, 2)) s")
            fflush(nil)   // every output stream: standard output's progress lines
            if round > 0 { seconds[jobs, default: []].append(m.seconds) }
        }
    }
    var lines = [
        "# Cohort benchmark", "",
        "\(o.persons) synthesized persons × \(o.days) days (\(fixed(megabytes, 1)) MB of zip archives), "
            + "`healthtrail run --pipeline cohort.yaml` from an empty output folder: every person's run, partial, "
            + "the merge and the four DP releases. Median of \(o.runs) rounds after a warm-up; \(hostDescription()).", "",
        "| --jobs | median wall time | per person | rounds |", "|---|---|---|---|",
    ]
    let base = median(seconds[o.jobs[0]] ?? []) ?? 0
    for jobs in o.jobs {
        let m = median(seconds[jobs] ?? []) ?? 0
        lines.append(
            "| \(jobs) | \(fixed(m, 2)) s\(jobs == o.jobs[0] ? "" : " (\(fixed(base / max(m, 1e-9), 2))× faster)") | "
                + "\(fixed(m / Double(o.persons), 3)) s | \((seconds[jobs] ?? []).map { fixed($0, 2) }.joined(separator: ", ")) |")
    }
    let text = lines.joined(separator: "\n") + "\n"
    print("\n" + text, terminator: "")
    if let report = o.report { try text.write(toFile: report, atomically: true, encoding: .utf8) }
}
