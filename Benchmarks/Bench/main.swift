// healthtrail-bench: times `healthtrail run` against `healthtrail-floor` on one archive.
//
// Each round runs the floor, then HealthTrail, so both see the same machine state; one warm-up
// round (not counted) fills the page cache and faults in the binaries. The report gives medians,
// and its headline is median HealthTrail time / median floor time. See Benchmarks/README.md.

import Foundation

/// Runs one round's three children (the floor, the floor on elided device values, HealthTrail);
/// round 0 is the warm-up.
func runRound(_ index: Int, options: Options, export: ExportInfo) throws -> Round {
    let logs = options.outDir + "/logs"
    let floorOut = logs + "/floor.stdout"
    let floor = try measure(
        [options.floor, options.archive],
        stdoutPath: floorOut, stderrPath: logs + "/floor.stderr")
    try checkFloorRead(export, output: floorOut)
    let elidedOut = logs + "/elided-floor.stdout"
    let elidedFloor = try measure(
        [options.floor, "--elide-device-values", options.archive],
        stdoutPath: elidedOut, stderrPath: logs + "/elided-floor.stderr")
    try checkFloorRead(export, output: elidedOut)

    let runDir = options.outDir + "/run-\(index)"
    try? FileManager.default.removeItem(atPath: runDir)   // A stale folder from an interrupted bench.
    let healthtrail = try measure(
        [options.healthtrail, "run", options.archive, "--out", runDir, "--quiet"],
        stdoutPath: logs + "/healthtrail.stdout", stderrPath: logs + "/healthtrail.stderr")
    let manifest = RunManifest(outputDirectory: runDir)
    // Outputs of a ~1 GB export are large: keep only one round's on disk at a time.
    try FileManager.default.removeItem(atPath: runDir)
    var round = Round(index: index, floor: floor, healthtrail: healthtrail)
    round.elidedFloor = elidedFloor
    round.manifest = manifest
    if options.allFormats {
        round.allFormats = try measure(
            [options.healthtrail, "run", options.archive, "--out", runDir, "--quiet", "--format", "csv,sqlite,parquet"],
            stdoutPath: logs + "/formats.stdout", stderrPath: logs + "/formats.stderr")
        round.formatsSeconds = RunManifest.timing("formats_s", outputDirectory: runDir)
        round.databaseBytes = (try? FileManager.default.attributesOfItem(atPath: runDir + "/healthtrail.db")[.size] as? Int) ?? nil
        let parquet = FileManager.default.enumerator(atPath: runDir + "/parquet")?.compactMap { $0 as? String } ?? []
        round.parquetBytes = parquet.reduce(0) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: runDir + "/parquet/" + name)[.size] as? Int) ?? 0)
        }
        try FileManager.default.removeItem(atPath: runDir)
    }
    return round
}

/// Fails unless the floor inflated exactly the main XML's declared size: a floor that stopped
/// early, or chose another entry, would make every ratio meaningless.
func checkFloorRead(_ export: ExportInfo, output path: String) throws {
    let text = readTextFile(path) ?? ""
    guard inflatedBytes(inFloorOutput: text) == export.xmlBytes else {
        throw BenchError(
            "the floor did not report inflating \(export.xmlBytes) bytes of \(export.xmlEntry); it printed: \(text.isEmpty ? "nothing" : text)")
    }
}

/// Prints one line per round as it finishes, so a long bench shows progress.
func progress(_ round: Round, of total: Int) {
    let label = round.index == 0 ? "warm-up" : "round \(round.index)/\(total)"
    print(
        "\(label): floor \(fixed(round.floor.seconds, 3)) s, elided floor \(fixed(round.elidedFloor?.seconds ?? 0, 3)) s, "
            + "healthtrail \(fixed(round.healthtrail.seconds, 3)) s"
            + (round.allFormats.map { ", every format \(fixed($0.seconds, 3)) s" } ?? ""))
    fflush(nil)   // every output stream: standard output's progress lines
}

/// `uname` in one line plus the core count: enough to tell two machines' reports apart.
func hostDescription() -> String {
    var name = utsname()
    uname(&name)
    func field<T>(_ value: T) -> String {
        withUnsafeBytes(of: value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
    return "\(field(name.sysname)) \(field(name.release)) \(field(name.machine)), "
        + "\(ProcessInfo.processInfo.activeProcessorCount) cores"
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The whole bench: measure, summarise, print, and write the report if asked.
func main(_ options: Options) throws {
    let export = try ExportInfo(archivePath: options.archive)
    // Read before measuring: a wrong path fails in a second, not after minutes of rounds.
    let earlier = try options.compare.map(readEarlierReport)
    try FileManager.default.createDirectory(atPath: options.outDir + "/logs", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: options.outDir + "/logs") }
    let resolution = rssResolution(scratchDir: options.outDir + "/logs")

    var rounds: [Round] = []
    for index in 0...options.runs {
        let round = try runRound(index, options: options, export: export)
        progress(round, of: options.runs)
        if index > 0 { rounds.append(round) }
    }
    let date = ISO8601DateFormatter().string(from: Date())
    var result = BenchResult(
        label: options.label, date: date, host: hostDescription(), export: export,
        rounds: rounds, rssResolutionKiB: resolution, commit: options.commit)
    if let earlier {
        result.comparison = compare(ComparedReport(result), with: ComparedReport(earlier))
    }
    print("")
    print(markdown(result), terminator: "")
    if let report = options.report {
        try writeReport(result, markdownPath: report)
        print("\nwrote \(report) and \(jsonPath(besides: report))")
    }
    try finish(result, failOnRegression: options.failOnRegression)
}

/// An earlier report's JSON (`--compare`), as `writeReport` wrote it.
func readEarlierReport(_ path: String) throws -> BenchResult {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw BenchError("--compare: cannot read \(path)")
    }
    do {
        return try JSONDecoder().decode(BenchResult.self, from: data)
    } catch {
        throw BenchError("--compare: \(path) is not a report this driver wrote: \(error)")
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    if arguments.first == "cohort" {
        try cohortBench(CohortBenchOptions.parse(Array(arguments.dropFirst())))
    } else if arguments.first == "busy" {
        try busyHostBench(BusyHostBenchOptions.parse(Array(arguments.dropFirst())))
    } else if arguments.first == "sources" {
        try sourcesBench(SourcesBenchOptions.parse(Array(arguments.dropFirst())))
    } else if arguments.first == "compare" {
        try compareReports(CompareOptions.parse(Array(arguments.dropFirst())))
    } else {
        try main(Options.parse(arguments))
    }
} catch let error as UsageError {
    if let message = error.message { writeToStandardError("healthtrail-bench: \(message)\n") }
    let usage =
        switch arguments.first {
        case "cohort": CohortBenchOptions.usage
        case "busy": BusyHostBenchOptions.usage
        case "sources": SourcesBenchOptions.usage
        case "compare": CompareOptions.usage
        default: Options.usage
        }
    writeToStandardError(usage + "\n")
    exit(error.message == nil ? 0 : 2)
} catch {
    writeToStandardError("healthtrail-bench: \(error)\n")
    exit(1)
}

/// Writes `text` on standard error, unbuffered as `stderr` is.
func writeToStandardError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}
