import Foundation

/// Renders a result as Markdown whose tables are padded into columns, so that the same text reads
/// well on a terminal and pastes into docs/performance.md unchanged.
func markdown(_ result: BenchResult) -> String {
    let x = result.export
    var lines: [String] = []
    lines.append("### HealthTrail vs. floor" + (result.label.map { " — \($0)" } ?? ""))
    lines.append("")
    lines.append(
        "- Archive: `\(x.archivePath)`, \(megabytes(x.archiveBytes)) MB; "
            + "`\(x.xmlEntry)`: \(megabytes(x.xmlBytes)) MB inflated (MB = 10^6 bytes)")
    lines.append(
        "- \(result.rounds.count) rounds after \(result.warmUpRounds) warm-up round; "
            + "each round runs the floor, the floor on elided device values, then `healthtrail run`")
    lines.append("- \(result.host), \(result.date)")
    lines.append("")
    lines.append(
        table(
            header: ["round", "floor s", "elided floor s", "healthtrail s", "ratio", "floor RSS MiB", "healthtrail RSS MiB"],
            rows: result.rounds.map { r in
                [
                    "\(r.index)", fixed(r.floor.seconds, 3), r.elidedFloor.map { fixed($0.seconds, 3) } ?? "–",
                    fixed(r.healthtrail.seconds, 3), fixed(r.ratio, 2) + "×",
                    mebibytes(r.floor.peakRSSKiB), mebibytes(r.healthtrail.peakRSSKiB),
                ]
            }))
    lines.append("")
    let f = result.floor, h = result.healthtrail
    lines.append(
        table(
            header: ["", "floor", "healthtrail"],
            rows: [
                ["median wall time (s)", fixed(f.medianSeconds, 3), fixed(h.medianSeconds, 3)],
                ["export.xml throughput (MB/s)", fixed(f.megabytesPerSecond, 1), fixed(h.megabytesPerSecond, 1)],
                ["median peak RSS (MiB)", mebibytes(f.medianPeakRSSKiB), mebibytes(h.medianPeakRSSKiB)],
                ["max peak RSS (MiB)", mebibytes(f.maxPeakRSSKiB), mebibytes(h.maxPeakRSSKiB)],
                ["median CPU time, user + sys (s)", fixed(f.medianCPUSeconds, 3), fixed(h.medianCPUSeconds, 3)],
            ]))
    lines.append("")
    lines.append(
        "**healthtrail / floor = \(fixed(result.ratioOfMedians, 2))×** (ratio of median wall times, the headline); "
            + "median of per-round ratios: \(fixed(result.medianOfRoundRatios, 2))×.")
    if let e = result.elidedFloor, let ratio = result.ratioToElidedFloor {
        lines.append("")
        lines.append(
            "Stricter: the floor fed export.xml with its `device` values emptied (what HealthTrail's libxml2 parses; "
                + "`healthtrail-floor --elide-device-values`, one thread) takes \(fixed(e.medianSeconds, 3)) s "
                + "(CPU \(fixed(e.medianCPUSeconds, 3)) s): **healthtrail / elided floor = \(fixed(ratio, 2))×**.")
    }
    lines.append("")
    lines.append(
        "CPU: HealthTrail spends \(fixed(h.medianCPUSeconds / f.medianCPUSeconds, 2))× the floor's CPU time. "
            + "Spread perfectly over this machine's \(result.cores) cores it would take "
            + "\(fixed(result.perfectSpreadRatio, 2))× the floor's wall time: no scheduling can go below that.")
    let manifests = result.rounds.compactMap(\.manifest)
    if let m = manifests.first {
        lines.append("")
        lines.append(
            "The export holds \(m.heartRateSamples) heart-rate samples, \(m.heartRateSamplesForJoin) of them inside "
                + "workout windows (joined to \(m.routePoints) route points of \(m.routeFiles) route files). "
                + "HealthTrail's stages, median seconds from its manifests (the join is `join_s`: reading back the "
                + "spilled heart rate and sorting the windows' samples; the per-point join runs inside `routes_s`):")
        lines.append("")
        let stages = medianStages(manifests)
        lines.append(table(header: stages.map(\.stage), rows: [stages.map { fixed($0.seconds, 3) }]))
        if let all = m.svgBytes["all"] {
            lines.append("")
            func kB(_ bytes: Int?) -> String { fixed(Double(bytes ?? 0) / 1e3, 1) }
            lines.append(
                "SVG maps (`svg_s` above): `density.svg` \(kB(m.svgBytes["density.svg"])) kB, "
                    + "`routes.svg` \(kB(m.svgBytes["routes.svg"])) kB, all of `svg/` \(kB(all)) kB.")
        }
    }
    if let all = result.allFormats, let ratio = result.allFormatsRatio {
        let rounds = result.rounds
        func medianOf(_ values: [Double]) -> Double { median(values) ?? 0 }
        lines.append("")
        lines.append("Every table format (`--format csv,sqlite,parquet`) against the CSV-only run of the same rounds:")
        lines.append("")
        lines.append(
            table(
                header: ["", "csv", "csv,sqlite,parquet"],
                rows: [
                    ["median wall time (s)", fixed(result.healthtrail.medianSeconds, 3), fixed(all.medianSeconds, 3)],
                    ["median peak RSS (MiB)", mebibytes(result.healthtrail.medianPeakRSSKiB), mebibytes(all.medianPeakRSSKiB)],
                    ["max peak RSS (MiB)", mebibytes(result.healthtrail.maxPeakRSSKiB), mebibytes(all.maxPeakRSSKiB)],
                    ["median CPU time, user + sys (s)", fixed(result.healthtrail.medianCPUSeconds, 3), fixed(all.medianCPUSeconds, 3)],
                    ["median `formats_s` (s)", "–", fixed(medianOf(rounds.compactMap(\.formatsSeconds)), 3)],
                ]))
        lines.append("")
        lines.append(
            "**every format / CSV only = \(fixed(ratio, 2))×**; `healthtrail.db` \(megabytes(UInt64(rounds.last?.databaseBytes ?? 0))) MB, "
                + "`parquet/` \(megabytes(UInt64(rounds.last?.parquetBytes ?? 0))) MB.")
    }
    if let resolution = result.rssResolutionKiB {
        lines.append("")
        lines.append(
            "Peak RSS cannot read below \(mebibytes(resolution)) MiB here "
                + "(what `/bin/true` reads as; the driver's own pages leak into `ru_maxrss` through `posix_spawn`).")
    }
    if let comparison = result.comparison {
        lines.append("")
        lines.append(String(markdown(comparison).dropLast()))   // its closing newline
    }
    return lines.joined(separator: "\n") + "\n"
}

/// A Markdown table with every column padded to its widest cell: the first column (labels)
/// left-aligned, the others (numbers) right-aligned so that they line up on the decimal point.
func table(header: [String], rows: [[String]]) -> String {
    let all = [header] + rows
    let widths = header.indices.map { column in all.map { $0[column].count }.max()! }
    func pad(_ cell: String, _ column: Int) -> String {
        let fill = String(repeating: " ", count: widths[column] - cell.count)
        return column > 0 ? fill + cell : cell + fill
    }
    func line(_ cells: [String]) -> String {
        "| " + cells.indices.map { pad(cells[$0], $0) }.joined(separator: " | ") + " |"
    }
    let rule =
        "|"
        + widths.indices.map { column in
            let dashes = String(repeating: "-", count: widths[column])
            return column > 0 ? "-" + dashes + ":|" : " " + dashes + " |"
        }.joined()
    return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
}

/// Writes the Markdown report and, beside it, the same result as JSON (`FILE.md` → `FILE.json`).
func writeReport(_ result: BenchResult, markdownPath: String) throws {
    // The report usually goes to a folder of its own (`Benchmarks/results/`) that may not exist yet.
    let folder = URL(fileURLWithPath: markdownPath).deletingLastPathComponent()
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try markdown(result).write(toFile: markdownPath, atomically: true, encoding: .utf8)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(result).write(to: URL(fileURLWithPath: jsonPath(besides: markdownPath)))
}

/// `report.md` → `report.json`; any other name gets `.json` appended.
func jsonPath(besides markdownPath: String) -> String {
    markdownPath.hasSuffix(".md") ? String(markdownPath.dropLast(3)) + ".json" : markdownPath + ".json"
}

func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
func megabytes(_ bytes: UInt64) -> String { fixed(Double(bytes) / 1e6, 1) }
func mebibytes(_ kib: Int) -> String { mebibytes(Double(kib)) }
func mebibytes(_ kib: Double) -> String { fixed(kib / 1024, 1) }
