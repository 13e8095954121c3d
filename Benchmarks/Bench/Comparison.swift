import Foundation

// The perf guard: a report compared with an earlier one (`--compare PATH.json`), figure by
// figure, saying which moved beyond noise. Pure functions of the two reports' figures, so the
// tests give known inputs without running anything.

/// What the comparison reads of one report: which archive on which machine, and each counted
/// round's figures. Built from a `BenchResult` (`init(_:)`), or directly by the tests.
struct ComparedReport {
    /// The archive's file name, which the section quotes when the archives differ.
    var archiveName: String
    var archiveBytes: UInt64
    var xmlBytes: UInt64
    /// export.xml's CRC-32 from the central directory; nil in reports written before it was kept.
    var xmlCRC32: UInt32?
    var cores: Int
    var date: String
    var commit: String?
    var rounds: [ComparedRound]
}

/// One counted round of a report, as the comparison needs it.
struct ComparedRound {
    var floorSeconds: Double
    var floorCPUSeconds: Double
    var healthtrailSeconds: Double
    var healthtrailCPUSeconds: Double
    var healthtrailPeakRSSKiB: Int
    /// The run's manifest `timings`, plus `formats_s` of the every-format run when there was one.
    var stageSeconds: [String: Double]
    var databaseBytes: Int?
    var parquetBytes: Int?
}

extension ComparedReport {
    /// The figures of `result`, as written to its JSON file or decoded from an earlier one.
    init(_ result: BenchResult) {
        archiveName = URL(fileURLWithPath: result.export.archivePath).lastPathComponent
        archiveBytes = result.export.archiveBytes
        xmlBytes = result.export.xmlBytes
        xmlCRC32 = result.export.xmlCRC32
        cores = result.cores
        date = result.date
        commit = result.commit
        rounds = result.rounds.map { round in
            var stages = round.manifest?.timings ?? [:]
            if let formats = round.formatsSeconds { stages["formats_s"] = formats }
            return ComparedRound(
                floorSeconds: round.floor.seconds, floorCPUSeconds: round.floor.cpuSeconds,
                healthtrailSeconds: round.healthtrail.seconds, healthtrailCPUSeconds: round.healthtrail.cpuSeconds,
                healthtrailPeakRSSKiB: round.healthtrail.peakRSSKiB, stageSeconds: stages,
                databaseBytes: round.databaseBytes, parquetBytes: round.parquetBytes)
        }
    }
}

/// The rule a change must pass to count as a move rather than noise.
struct NoiseRule: Codable, Equatable {
    /// The smallest relative change that can count (10 %).
    var minimumRelative = 0.10
    /// The smallest change of a time that can count, in seconds at the later report's floor (0.05 s).
    var minimumSeconds = 0.05
    /// The smallest change of peak RSS that can count, in KiB (1 MiB).
    var minimumRSSKiB = 1024.0
    /// Sizes of outputs do not depend on the machine's load: any change beyond this counts (1 %).
    var sizeRelative = 0.01
}

/// One figure of the comparison.
struct FigureChange: Codable, Equatable {
    enum Kind: String, Codable {
        /// Seconds judged as a ratio to the floor's wall time of the same round.
        case time
        /// CPU seconds judged as a ratio to the floor's CPU time of the same round.
        case cpu
        /// Peak RSS in KiB, judged as it is.
        case memory
        /// Bytes of an output, judged as they are.
        case size
        /// Shown, not judged: the floor's own wall time, which is the machine's speed.
        case machine
    }
    enum Verdict: String, Codable {
        /// Within noise, or not judged.
        case unchanged
        /// Slower or larger beyond noise.
        case regressed
        /// Faster or smaller beyond noise.
        case improved
        /// In one report only (a stage added or removed, a format not run).
        case onlyOneSide
    }
    var name: String
    var kind: Kind
    /// Medians of the raw figure (seconds, KiB or bytes); nil on the side that lacks it.
    var before: Double?
    var after: Double?
    /// For times: medians of the per-round ratios to the floor, the values judged.
    var beforeRatio: Double?
    var afterRatio: Double?
    /// Relative change of the judged value (after / before − 1): for times, of the ratio to the floor.
    var change: Double?
    /// The relative change this figure had to exceed.
    var threshold: Double?
    /// For times: the relative change of the median seconds themselves, and the change they had to
    /// exceed (the same rule over the seconds' rounds). A time moved only when both did.
    var secondsChange: Double?
    var secondsThreshold: Double?
    var verdict: Verdict
}

/// A report against an earlier one: every figure's change, or why they cannot be compared.
struct Comparison: Codable, Equatable {
    var beforeDate: String
    var beforeCommit: String?
    /// Why the reports cannot be compared (another archive, another machine); nil when they can.
    var notComparable: String?
    var figures: [FigureChange]
    var rule: NoiseRule

    /// The figures that moved beyond noise, either way.
    var moved: [FigureChange] { figures.filter { $0.verdict == .regressed || $0.verdict == .improved } }
    /// The figures that got slower or larger beyond noise: what `--fail-on-regression` fails on.
    var regressed: [FigureChange] { figures.filter { $0.verdict == .regressed } }
}

/// The stages in the order a run goes through them; others follow, sorted by name.
let stageOrder = ["open_s", "export_xml_s", "join_s", "routes_s", "analyse_s", "close_s", "sha256_s", "total_s"]

/// Compares `after` with `before` under `rule`.
///
/// A figure moved when the change of its median exceeds the larger of `rule.minimumRelative` and
/// the spread of either report's rounds ((max − min) / median of the values judged, how far apart
/// one report's own rounds fall), and its absolute change exceeds `rule.minimumSeconds` (times) or
/// `rule.minimumRSSKiB` (peak RSS).
///
/// A time is judged twice, and moved only when both agree: as its ratio to the floor measured in
/// the same round, which cancels a machine that is slower as a whole, and as seconds, which
/// cancels a floor slowed by a burst of load the run itself escaped (the floor and the run take
/// turns, and a shared machine's load changes within a round: a report whose floor was inflated
/// so would make every stage of the next look slower by its ratio alone).
func compare(_ after: ComparedReport, with before: ComparedReport, rule: NoiseRule = NoiseRule()) -> Comparison {
    var comparison = Comparison(beforeDate: before.date, beforeCommit: before.commit, figures: [], rule: rule)
    if let reason = reasonNotComparable(after, before) {
        comparison.notComparable = reason
        return comparison
    }
    let floorAfter = median(after.rounds.map(\.floorSeconds)) ?? 0
    var figures: [FigureChange] = []

    // The floor: the machine's speed, shown so that a reader sees how far the seconds moved with it.
    let floorBefore = median(before.rounds.map(\.floorSeconds))
    figures.append(
        FigureChange(
            name: "floor wall time", kind: .machine, before: floorBefore, after: floorAfter,
            change: floorBefore.map { floorAfter / $0 - 1 }, verdict: .unchanged))

    figures.append(
        judgeTime(
            "healthtrail wall time", kind: .time, before: before.rounds.map { ($0.healthtrailSeconds, $0.floorSeconds) },
            after: after.rounds.map { ($0.healthtrailSeconds, $0.floorSeconds) }, rule: rule, floorSeconds: floorAfter))
    let floorCPUAfter = median(after.rounds.map(\.floorCPUSeconds)) ?? 0
    figures.append(
        judgeTime(
            "healthtrail CPU time", kind: .cpu, before: before.rounds.map { ($0.healthtrailCPUSeconds, $0.floorCPUSeconds) },
            after: after.rounds.map { ($0.healthtrailCPUSeconds, $0.floorCPUSeconds) }, rule: rule, floorSeconds: floorCPUAfter))
    figures.append(
        judge(
            "healthtrail peak RSS", kind: .memory, before: before.rounds.map { Double($0.healthtrailPeakRSSKiB) },
            after: after.rounds.map { Double($0.healthtrailPeakRSSKiB) }, minimumRelative: rule.minimumRelative,
            minimumAbsolute: rule.minimumRSSKiB, spreadCounts: true))

    let names = Set(before.rounds.flatMap(\.stageSeconds.keys)).union(after.rounds.flatMap(\.stageSeconds.keys))
    for stage in stageOrder.filter(names.contains) + names.subtracting(stageOrder).sorted() {
        func pairs(_ report: ComparedReport) -> [(Double, Double)] {
            report.rounds.compactMap { round in round.stageSeconds[stage].map { ($0, round.floorSeconds) } }
        }
        figures.append(judgeTime(stage, kind: .time, before: pairs(before), after: pairs(after), rule: rule, floorSeconds: floorAfter))
    }

    for (name, bytes) in [("healthtrail.db", \ComparedRound.databaseBytes), ("parquet/", \ComparedRound.parquetBytes)] {
        let beforeBytes = before.rounds.compactMap { $0[keyPath: bytes] }.map { Double($0) }
        let afterBytes = after.rounds.compactMap { $0[keyPath: bytes] }.map { Double($0) }
        guard !beforeBytes.isEmpty || !afterBytes.isEmpty else { continue }
        figures.append(
            judge(
                name, kind: .size, before: beforeBytes, after: afterBytes, minimumRelative: rule.sizeRelative,
                minimumAbsolute: 0, spreadCounts: false))
    }
    comparison.figures = figures
    return comparison
}

/// Why two reports' figures say nothing about each other, or nil when they do.
///
/// The archive must be the same bytes: the same size to the byte, export.xml's inflated size too,
/// and, when both reports know it, export.xml's CRC-32. The file name does not decide: it carries a
/// hash of the generator's sources, which changes with a comment of theirs while the archive
/// stays byte for byte the same. The machine must have as many cores, since HealthTrail spreads
/// its work over them and the single-threaded floor does not.
func reasonNotComparable(_ after: ComparedReport, _ before: ComparedReport) -> String? {
    var sameArchive = after.archiveBytes == before.archiveBytes && after.xmlBytes == before.xmlBytes
    if let crcAfter = after.xmlCRC32, let crcBefore = before.xmlCRC32, crcAfter != crcBefore { sameArchive = false }
    if !sameArchive {
        return "the archives differ (before `\(before.archiveName)`, \(before.archiveBytes) bytes; "
            + "now `\(after.archiveName)`, \(after.archiveBytes) bytes)"
    }
    if after.cores != before.cores {
        return "the machines differ (before \(before.cores) cores, now \(after.cores))"
    }
    if after.rounds.isEmpty || before.rounds.isEmpty {
        return "a report has no counted rounds"
    }
    return nil
}

/// A time judged as its per-round ratio to the floor (`pairs`: the figure and that round's floor).
func judgeTime(
    _ name: String, kind: FigureChange.Kind, before: [(Double, Double)], after: [(Double, Double)], rule: NoiseRule,
    floorSeconds: Double
) -> FigureChange {
    let ratiosBefore = before.filter { $0.1 > 0 }.map { $0.0 / $0.1 }
    let ratiosAfter = after.filter { $0.1 > 0 }.map { $0.0 / $0.1 }
    // The absolute limit, in seconds at the later floor, as a ratio to that floor.
    let minimumRatio = floorSeconds > 0 ? rule.minimumSeconds / floorSeconds : 0
    var figure = judge(
        name, kind: kind, before: ratiosBefore, after: ratiosAfter, minimumRelative: rule.minimumRelative,
        minimumAbsolute: minimumRatio, spreadCounts: true)
    let seconds = judge(
        name, kind: kind, before: before.map { $0.0 }, after: after.map { $0.0 }, minimumRelative: rule.minimumRelative,
        minimumAbsolute: rule.minimumSeconds, spreadCounts: true)
    figure.beforeRatio = figure.before
    figure.afterRatio = figure.after
    figure.before = seconds.before
    figure.after = seconds.after
    figure.secondsChange = seconds.change
    figure.secondsThreshold = seconds.threshold
    if figure.verdict != seconds.verdict && figure.verdict != .onlyOneSide {
        figure.verdict = .unchanged   // one witness only: the ratio moved and the seconds did not, or the reverse
    }
    return figure
}

/// Judges the medians of two reports' per-round values; see `compare`.
func judge(
    _ name: String, kind: FigureChange.Kind, before: [Double], after: [Double], minimumRelative: Double, minimumAbsolute: Double,
    spreadCounts: Bool
) -> FigureChange {
    guard let b = median(before), let a = median(after) else {
        return FigureChange(name: name, kind: kind, before: median(before), after: median(after), verdict: .onlyOneSide)
    }
    let threshold = spreadCounts ? max(minimumRelative, spread(before), spread(after)) : minimumRelative
    guard b > 0 else {
        // A figure that was zero has no relative change: it moved when it grew by more than the
        // absolute limit and than either report's rounds lie apart.
        let noise = spreadCounts ? max(range(before), range(after)) : 0
        let moved = a > max(minimumAbsolute, noise)
        return FigureChange(name: name, kind: kind, before: b, after: a, verdict: moved ? .regressed : .unchanged)
    }
    let change = a / b - 1
    let moved = abs(change) > threshold && abs(a - b) > minimumAbsolute
    return FigureChange(
        name: name, kind: kind, before: b, after: a, change: change, threshold: threshold,
        verdict: moved ? (change > 0 ? .regressed : .improved) : .unchanged)
}

/// max − min of a report's rounds; 0 when there are none.
func range(_ values: [Double]) -> Double {
    guard let low = values.min(), let high = values.max() else { return 0 }
    return high - low
}

/// (max − min) / median of a report's rounds: how far its own rounds fall apart; 0 for one round.
func spread(_ values: [Double]) -> Double {
    guard let middle = median(values), middle > 0, let low = values.min(), let high = values.max() else { return 0 }
    return (high - low) / middle
}

/// The comparison as a Markdown section of the report.
///
/// The reports are named by their dates; their commits stay in the JSON files, since the
/// repository's Markdown holds no commit hashes (DocsNarrationTests).
func markdown(_ comparison: Comparison) -> String {
    var lines = ["### Against the last committed report", ""]
    let before = "the report of \(comparison.beforeDate)"
    if let reason = comparison.notComparable {
        lines.append("The comparison with \(before) does not apply: \(reason).")
        return lines.joined(separator: "\n") + "\n"
    }
    let rule = comparison.rule
    lines.append(
        "Before: \(before); now: this report, on the same archive and as many cores. "
            + "A figure moved when its change exceeds the larger of \(percent(rule.minimumRelative)) "
            + "and the spread of either report's rounds (its noise) and \(fixed(rule.minimumSeconds, 2)) s "
            + "(\(mebibytes(rule.minimumRSSKiB)) MiB for RSS); an output's size, which load does not change, "
            + "when it changes by more than \(percent(rule.sizeRelative)). A time is judged twice and moved only when both agree: "
            + "as its ratio to the floor of the same round (× floor: the change and noise columns), which cancels a slower "
            + "machine, and as median seconds (the columns of s), which cancel a floor slowed by a burst of load.")
    lines.append("")
    let rows = comparison.figures.map { figure -> [String] in
        func cell(_ value: Double?, _ ratio: Double?) -> String {
            guard let value else { return "–" }
            switch figure.kind {
            case .time, .cpu: return fixed(value, 3) + " s" + (ratio.map { ", " + fixed($0, 3) + "×" } ?? "")
            case .machine: return fixed(value, 3) + " s"
            case .memory: return mebibytes(value) + " MiB"
            case .size: return megabytes(UInt64(value)) + " MB"
            }
        }
        let verdict =
            switch (figure.verdict, figure.kind) {
            case (.regressed, .time), (.regressed, .cpu): "**slower**"
            case (.regressed, _): "**larger**"
            case (.improved, .time), (.improved, .cpu): "**faster**"
            case (.improved, _): "**smaller**"
            case (.onlyOneSide, _): "in one report only"
            case (.unchanged, .machine): "the machine, not judged"
            case (.unchanged, _): "within noise"
            }
        // Stage and file names as code; the figures' own names (with spaces) as words.
        let name = figure.name.contains(" ") ? figure.name : "`\(figure.name)`"
        let label =
            switch figure.kind {
            case .time: name + " (× floor)"
            case .cpu: name + " (× floor CPU)"
            case .memory, .size, .machine: name
            }
        return [
            label, cell(figure.before, figure.beforeRatio), cell(figure.after, figure.afterRatio),
            figure.change.map(signedPercent) ?? "–", figure.threshold.map { "±" + percent($0) } ?? "–",
            figure.secondsChange.map(signedPercent) ?? "–", figure.secondsThreshold.map { "±" + percent($0) } ?? "–", verdict,
        ]
    }
    lines.append(table(header: ["figure", "before", "now", "change", "noise", "change of s", "noise of s", "verdict"], rows: rows))
    lines.append("")
    lines.append(verdictLine(comparison))
    return lines.joined(separator: "\n") + "\n"
}

/// The one line that names what moved: `**Moved beyond noise: export_xml_s +30.0 % (slower).**`
func verdictLine(_ comparison: Comparison) -> String {
    if let reason = comparison.notComparable { return "Not compared: \(reason)." }
    let moved = comparison.moved
    guard !moved.isEmpty else { return "**Nothing moved beyond noise.**" }
    let named = moved.map { figure in
        let direction =
            switch (figure.verdict, figure.kind) {
            case (.regressed, .time), (.regressed, .cpu): "slower"
            case (.regressed, _): "larger"
            case (.improved, .time), (.improved, .cpu): "faster"
            default: "smaller"
            }
        return "\(figure.name) " + (figure.change.map(signedPercent) ?? "from 0") + " (\(direction))"
    }
    return "**Moved beyond noise: \(named.joined(separator: ", ")).**"
}

/// `0.123` → `12.3 %`.
func percent(_ fraction: Double) -> String { fixed(fraction * 100, 1) + " %" }
/// `0.123` → `+12.3 %`, `-0.05` → `−5.0 %`.
func signedPercent(_ fraction: Double) -> String { (fraction >= 0 ? "+" : "−") + percent(abs(fraction)) }

/// `healthtrail-bench compare`: an existing report compared again, with no round measured.
struct CompareOptions {
    var report = ""
    var earlier = ""
    var failOnRegression = false

    static let usage = """
        usage: healthtrail-bench compare --report FILE.md --with EARLIER.json
                                         [--fail-on-regression yes|no]

        Reads FILE.json beside FILE.md (a report of the main case), compares it with
        EARLIER.json as --compare would have, and rewrites FILE.md and FILE.json with that
        comparison in place of any they held: no round is measured.
        """

    static func parse(_ arguments: [String]) throws -> CompareOptions {
        var o = CompareOptions()
        for (flag, value) in try flagValuePairs(arguments) {
            switch flag {
            case "--report": o.report = value
            case "--with": o.earlier = value
            case "--fail-on-regression":
                guard value == "yes" || value == "no" else { throw UsageError(message: "--fail-on-regression takes yes or no") }
                o.failOnRegression = value == "yes"
            default: throw UsageError(message: "unknown option \(flag)")
            }
        }
        for (flag, value) in [("--report", o.report), ("--with", o.earlier)] where value.isEmpty {
            throw UsageError(message: "\(flag) is required")
        }
        return o
    }
}

/// Compares the report at `options.report` with `options.earlier` and rewrites it.
func compareReports(_ options: CompareOptions) throws {
    var result = try readEarlierReport(jsonPath(besides: options.report))
    let earlier = try readEarlierReport(options.earlier)
    result.comparison = compare(ComparedReport(result), with: ComparedReport(earlier))
    try writeReport(result, markdownPath: options.report)
    try finish(result, failOnRegression: options.failOnRegression)
}

/// Prints the comparison's verdict line and, asked to, exits 3 when a figure regressed.
func finish(_ result: BenchResult, failOnRegression: Bool) throws {
    guard let comparison = result.comparison else { return }
    print("\n" + verdictLine(comparison))
    let regressed = comparison.regressed
    if failOnRegression && !regressed.isEmpty {
        writeToStandardError("healthtrail-bench: regressed beyond noise: \(regressed.map(\.name).joined(separator: ", "))\n")
        exit(3)
    }
}
