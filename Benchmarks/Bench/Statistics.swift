import Foundation

/// The middle value (mean of the two middle ones for an even count); nil when empty.
///
/// Medians rather than means: on a shared, noisy machine one round stalled by another process
/// should not move the result.
func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// One round: the floor, then HealthTrail, back to back on the same warm page cache.
struct Round: Codable {
    var index: Int
    var floor: Measurement
    var healthtrail: Measurement
    /// The floor with export.xml's device values emptied before libxml2 (`--elide-device-values`).
    var elidedFloor: Measurement?
    /// HealthTrail's time over the floor's within this round.
    var ratio: Double
    /// The run's own manifest (stage timings, counts).
    var manifest: RunManifest?
    /// The same run writing every table format (`--format csv,sqlite,parquet`).
    var allFormats: Measurement?
    /// That run's `formats_s`, and the bytes of its database and of its Parquet files.
    var formatsSeconds: Double?
    var databaseBytes: Int?
    var parquetBytes: Int?

    init(index: Int, floor: Measurement, healthtrail: Measurement) {
        self.index = index
        self.floor = floor
        self.healthtrail = healthtrail
        ratio = healthtrail.seconds / floor.seconds
    }
}

/// Medians and maxima of one tool over all counted rounds.
struct ToolSummary: Codable {
    var medianSeconds: Double
    /// export.xml bytes / median seconds, in MB/s (MB = 10^6 bytes).
    var megabytesPerSecond: Double
    var medianPeakRSSKiB: Double
    var maxPeakRSSKiB: Int
    /// Median CPU seconds (user + system, all threads).
    var medianCPUSeconds: Double

    init(_ measurements: [Measurement], xmlBytes: UInt64) {
        medianSeconds = median(measurements.map(\.seconds))!
        megabytesPerSecond = Double(xmlBytes) / 1e6 / medianSeconds
        medianPeakRSSKiB = median(measurements.map { Double($0.peakRSSKiB) })!
        maxPeakRSSKiB = measurements.map(\.peakRSSKiB).max()!
        medianCPUSeconds = median(measurements.map(\.cpuSeconds))!
    }
}

/// Everything the report shows; also the schema of the JSON file.
struct BenchResult: Codable {
    var label: String?
    var date: String
    var host: String
    var export: ExportInfo
    var warmUpRounds: Int
    var rounds: [Round]
    var floor: ToolSummary
    var healthtrail: ToolSummary
    /// Headline: median HealthTrail time / median floor time.
    var ratioOfMedians: Double
    /// Median over rounds of each round's HealthTrail / floor ratio, a cross-check of the headline.
    var medianOfRoundRatios: Double
    /// The floor on the document HealthTrail's libxml2 sees (device values emptied), and
    /// HealthTrail's median time over its median: how far HealthTrail's own work is from free.
    var elidedFloor: ToolSummary?
    var ratioToElidedFloor: Double?
    /// Peak RSS, in KiB, that a do-nothing child reads as (see `rssResolution`).
    var rssResolutionKiB: Int?
    /// The run writing every table format, and its median time over the CSV-only run's.
    var allFormats: ToolSummary?
    var allFormatsRatio: Double?
    /// Cores of the machine: HealthTrail's wall time cannot fall below its CPU time / cores.
    var cores: Int
    /// HealthTrail's median CPU time / cores / the floor's median wall time: the ratio it would
    /// reach if its work were spread perfectly over every core.
    var perfectSpreadRatio: Double
    /// The commit measured (`--commit`, `git describe --always --dirty`), when known.
    var commit: String?
    /// Median seconds of each stage over the rounds' manifests (`timings`), and `formats_s` of the
    /// every-format runs: the stage table of the report.
    var stageMedianSeconds: [String: Double]?
    /// Bytes of `healthtrail.db` and of `parquet/` written by the last every-format run.
    var databaseBytes: Int?
    var parquetBytes: Int?
    /// This report against an earlier one (`--compare`).
    var comparison: Comparison?

    init(label: String?, date: String, host: String, export: ExportInfo, rounds: [Round], rssResolutionKiB: Int?, commit: String?) {
        self.label = label
        self.date = date
        self.commit = commit
        self.host = host
        self.export = export
        warmUpRounds = 1
        self.rounds = rounds
        floor = ToolSummary(rounds.map(\.floor), xmlBytes: export.xmlBytes)
        healthtrail = ToolSummary(rounds.map(\.healthtrail), xmlBytes: export.xmlBytes)
        ratioOfMedians = healthtrail.medianSeconds / floor.medianSeconds
        medianOfRoundRatios = median(rounds.map(\.ratio))!
        let elided = rounds.compactMap(\.elidedFloor)
        if elided.count == rounds.count, !elided.isEmpty {
            let summary = ToolSummary(elided, xmlBytes: export.xmlBytes)
            elidedFloor = summary
            ratioToElidedFloor = healthtrail.medianSeconds / summary.medianSeconds
        }
        self.rssResolutionKiB = rssResolutionKiB
        let formats = rounds.compactMap(\.allFormats)
        if formats.count == rounds.count, !formats.isEmpty {
            let summary = ToolSummary(formats, xmlBytes: export.xmlBytes)
            allFormats = summary
            allFormatsRatio = summary.medianSeconds / healthtrail.medianSeconds
        }
        cores = ProcessInfo.processInfo.activeProcessorCount
        perfectSpreadRatio = healthtrail.medianCPUSeconds / Double(cores) / floor.medianSeconds
        var stages = Dictionary(uniqueKeysWithValues: medianStages(rounds.compactMap(\.manifest)).map { ($0.stage, $0.seconds) })
        stages["formats_s"] = median(rounds.compactMap(\.formatsSeconds))
        stageMedianSeconds = stages
        databaseBytes = rounds.last?.databaseBytes
        parquetBytes = rounds.last?.parquetBytes
    }
}
