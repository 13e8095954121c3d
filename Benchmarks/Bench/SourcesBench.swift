// `healthtrail-bench sources`: the same records written by one source and by a distinct source
// each. Per-record work must not grow with the number of sources, so each
// case's distinct-source archive must run within `--max-ratio` of its one-source twin.

import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailDecode
import HealthTrailKit

struct SourcesBenchOptions {
    var healthtrail = ""
    var records = 100_000
    var runs = 3
    var maxRatio = 2.0
    var outDir = ".bench/sources"
    var report: String?

    static let usage = """
        usage: healthtrail-bench sources --healthtrail BIN [--records 100000] [--runs 3]
                                         [--max-ratio 2] [--out-dir DIR] [--report FILE.md]

        Writes two archives per case (cached in --out-dir), the same --records records with
        one sourceName and with a distinct sourceName each, and times `healthtrail run` on
        each, alternating, one warm-up round and --runs measured rounds. Prints the ratio of
        median wall times, distinct / one, per case, and a FAIL line and exit status 1 when a
        ratio is above --max-ratio. Cases:
          alternating  StepCount and DistanceWalkingRunning by turns, one minute apart
          one-cluster  one long StepCount sample and short ones inside it, all overlapping
        """

    static func parse(_ arguments: [String]) throws -> SourcesBenchOptions {
        var o = SourcesBenchOptions()
        for (flag, value) in try flagValuePairs(arguments) {
            switch flag {
            case "--healthtrail": o.healthtrail = value
            case "--out-dir": o.outDir = value
            case "--report": o.report = value
            case "--records", "--runs":
                let n = try positiveInteger(value, for: flag)
                if flag == "--records" { o.records = n } else { o.runs = n }
            case "--max-ratio":
                guard let r = Double(value), r >= 1 else { throw UsageError(message: "--max-ratio must be a number ≥ 1") }
                o.maxRatio = r
            default: throw UsageError(message: "unknown option \(flag)")
            }
        }
        guard !o.healthtrail.isEmpty else { throw UsageError(message: "--healthtrail is required") }
        return o
    }
}

/// The shapes of export the bench writes, each once with one source and once with many.
enum SourcesBenchCase: String, CaseIterable {
    /// The worst case for per-source work: every record changes type, so every record closes a series.
    case alternating = "alternating"
    /// Every record in one de-duplication cluster, each source excluding the ones ranked after it.
    case oneCluster = "one-cluster"

    /// export.xml's `Record` lines: `records` of them, source `i` or `nil` for the one source.
    func records(_ count: Int, source: (Int) -> String, into emit: (String) throws -> Void) rethrows {
        let start = Timestamp.daysFromCivil(year: 2024, month: 1, day: 1) * 86_400
        func date(_ seconds: Int64) -> String {
            let t = start + seconds, second = t % 86_400
            return Timestamp(utcSeconds: t).localDateString
                + String(format: " %02d:%02d:%02d +0000", second / 3600, second / 60 % 60, second % 60)
        }
        func record(_ type: String, _ unit: String, _ value: String, _ source: String, _ from: Int64, _ to: Int64) -> String {
            " <Record type=\"HKQuantityTypeIdentifier\(type)\" sourceName=\"\(source)\" unit=\"\(unit)\" "
                + "creationDate=\"\(date(to))\" startDate=\"\(date(from))\" endDate=\"\(date(to))\" value=\"\(value)\"/>\n"
        }
        switch self {
        case .alternating:
            for i in 0..<count {
                let from = Int64(i / 2) * 60
                try emit(
                    i % 2 == 0
                        ? record("StepCount", "count", "12", source(i), from, from + 30)
                        : record("DistanceWalkingRunning", "km", "0.01", source(i), from, from + 30))
            }
        case .oneCluster:
            // Record 0 spans all the others; the rest are a second long, two seconds apart.
            try emit(record("StepCount", "count", "5000", source(0), 0, Int64(2 * count + 2)))
            for i in 1..<max(1, count) {
                try emit(record("StepCount", "count", "3", source(i), Int64(2 * i), Int64(2 * i + 1)))
            }
        }
    }
}

/// Writes the archive of one case (when not cached) and returns its path.
func sourcesBenchArchive(_ benchCase: SourcesBenchCase, distinct: Bool, options o: SourcesBenchOptions) throws -> String {
    let path = "\(o.outDir)/\(benchCase.rawValue)-\(o.records)-\(distinct ? "distinct" : "one").zip"
    if FileManager.default.fileExists(atPath: path) { return path }
    let zip = try ZipWriter(path: path + ".tmp")
    try zip.addEntry("apple_health_export/export.xml") { emit in
        func write(_ text: String) throws {
            try ByteSpan.withUTF8(text) { try emit($0) }
        }
        try write(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
                + " <ExportDate value=\"2024-02-01 00:00:00 +0000\"/>\n")
        var chunk = ""
        try benchCase.records(o.records, source: { distinct ? "Source \($0)" : "Source" }) { line in
            chunk += line
            if chunk.utf8.count >= 1 << 16 { try write(chunk); chunk = "" }
        }
        try write(chunk + "</HealthData>\n")
    }
    try zip.finish()
    try FileManager.default.moveItem(atPath: path + ".tmp", toPath: path)
    return path
}

func sourcesBench(_ o: SourcesBenchOptions) throws {
    try FileManager.default.createDirectory(atPath: o.outDir, withIntermediateDirectories: true)
    var archives: [String: String] = [:]
    for benchCase in SourcesBenchCase.allCases {
        for distinct in [false, true] {
            archives["\(benchCase.rawValue)/\(distinct)"] = try sourcesBenchArchive(benchCase, distinct: distinct, options: o)
        }
    }
    var wall: [String: [Double]] = [:], cpu: [String: [Double]] = [:]
    for round in 0...o.runs {
        for benchCase in SourcesBenchCase.allCases {
            // One source first, then distinct sources: both see the same machine state.
            for distinct in [false, true] {
                let key = "\(benchCase.rawValue)/\(distinct)"
                let out = o.outDir + "/out"
                try? FileManager.default.removeItem(atPath: out)
                let m = try measure(
                    [o.healthtrail, "run", archives[key]!, "--out", out, "--quiet"],
                    stdoutPath: o.outDir + "/run.stdout", stderrPath: o.outDir + "/run.stderr")
                print(
                    "\(round == 0 ? "warm-up" : "round \(round)/\(o.runs)"): \(benchCase.rawValue), "
                        + "\(distinct ? "distinct sources" : "one source"): \(fixed(m.seconds, 3)) s")
                fflush(nil)   // every output stream: standard output's progress lines
                if round > 0 { wall[key, default: []].append(m.seconds); cpu[key, default: []].append(m.cpuSeconds) }
            }
        }
    }
    try? FileManager.default.removeItem(atPath: o.outDir + "/out")

    var lines = [
        "# Distinct sources benchmark", "",
        "\(o.records) records per archive, written once with one `sourceName` and once with a distinct one per "
            + "record; `healthtrail run` on each, median of \(o.runs) rounds after a warm-up; \(hostDescription()). "
            + "A case fails when distinct / one (median wall times) is above \(fixed(o.maxRatio, 1))×.", "",
        "| case | one source | distinct sources | distinct / one | CPU distinct / one | verdict |",
        "|---|---|---|---|---|---|",
    ]
    var failures: [String] = []
    for benchCase in SourcesBenchCase.allCases {
        let one = "\(benchCase.rawValue)/false", many = "\(benchCase.rawValue)/true"
        let oneWall = median(wall[one] ?? []) ?? 0, manyWall = median(wall[many] ?? []) ?? 0
        let ratio = manyWall / max(oneWall, 1e-9)
        let cpuRatio = (median(cpu[many] ?? []) ?? 0) / max(median(cpu[one] ?? []) ?? 0, 1e-9)
        let passed = ratio <= o.maxRatio
        if !passed { failures.append("\(benchCase.rawValue) \(fixed(ratio, 2))×") }
        lines.append(
            "| \(benchCase.rawValue) | \(fixed(oneWall, 3)) s | \(fixed(manyWall, 3)) s | \(fixed(ratio, 2))× "
                + "| \(fixed(cpuRatio, 2))× | \(passed ? "ok" : "FAIL") |")
    }
    let text = lines.joined(separator: "\n") + "\n"
    print("\n" + text, terminator: "")
    if let report = o.report { try text.write(toFile: report, atomically: true, encoding: .utf8) }
    if !failures.isEmpty {
        print("FAIL: distinct sources cost more than \(fixed(o.maxRatio, 1))× one source: \(failures.joined(separator: ", "))")
        exit(1)
    }
}
