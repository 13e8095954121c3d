import Crypto
import Foundation
import HealthTrailAnalysis
import HealthTrailArchive
import HealthTrailBase
import HealthTrailCommit
import HealthTrailDecode
import HealthTrailXML
import Logging

/// What `healthtrail run` was asked to do.
package struct RunOptions: Sendable {
    package var inputPath: String
    package var outputDirectory: String
    /// Make the first malformed record fatal instead of counting and skipping it.
    package var strict = false
    /// Draw a progress line (only on a terminal).
    package var showProgress = false
    /// Which source counts where several overlap (steps, energy, sleep).
    package var sourcePriority = SourcePriority.default
    /// How far (seconds) a heart-rate sample may lie from a route point to give it a bpm.
    package var joinTolerance: Int64 = RunOptions.defaultJoinTolerance
    /// `joinTolerance` unless a run says otherwise.
    package static let defaultJoinTolerance: Int64 = 15
    /// Where the maximum heart rate behind the five zones comes from: the workouts by default,
    /// `--max-hr`, or the date of birth.
    package var zones = ZoneChoice.fromWorkouts
    /// Add per-point timestamps to routes.geojson (kepler.gl's trip layer).
    package var geojsonTimes = false
    /// The length of a split in splits.csv.
    package var splitUnit = SplitUnit.km
    /// SVG maps and calendars under `svg/`; nil for none.
    package var maps: MapOutputs? = MapOutputs()
    /// Process the archive even when the output folder already holds its outputs.
    package var force = false
    /// Write routes.geojson.
    package var geojson = true
    /// The formats every table is written in: CSV files, `healthtrail.db`, `parquet/`.
    package var formats: TableFormats = [.csv]
    /// Write `report.html`, the page of trends, workouts, sleep and ECG for a browser.
    package var report = true
    /// Write every ECG recording's samples to `ecg_samples.csv` (`ecg.csv` is always written).
    package var ecgSamples = false
    /// The budget ledger this folder's releases are recorded in (a pipeline with `dp`), for the
    /// manifest: the ledger is the subject's, not the folder's, so the folder says where it is.
    /// Not part of `outputFingerprint`: it changes no output file.
    package var budgetLedger: String?
    /// Zip-bomb limits: the largest expansion ratio per entry and total uncompressed size. They
    /// refuse inputs but never change outputs, so they are not part of `outputFingerprint`.
    package var archiveLimits = ArchiveLimits.default
    /// What the manifest and the log call the input instead of its path: a cohort member's
    /// pseudonym, so that no output names the person.
    package var inputLabel: String?
    /// Samples sorted in memory at once before a sorted run goes to a spill file in the staging
    /// folder (cumulative series, sleep samples, the heart rate of workout windows). Memory, not
    /// outputs, depends on it; tests make it small to send every run through the disk.
    var spillRunLength = 1 << 16
    /// The staging budget (`StagingBudget`): this many times the export's inflated size, plus
    /// `stagingAllowance` bytes. Tests lower them to see the limit hold.
    var stagingFactor = StagingBudget.defaultFactor
    var stagingAllowance = StagingBudget.defaultAllowance
    /// Write unknown units, unknown activity types and missing route files' paths into
    /// manifest.json as the export has them, instead of as keyed hashes (`ManifestNames`).
    package var debugManifest = false
    /// Log the run's start, end and figures (records, workouts, points, files, seconds, faults).
    /// False for a run that publishes DP releases: read from the log or cron's mail, its
    /// figures would tell what the releases' noise hides, so only manifest.json keeps them.
    /// Not part of `outputFingerprint`: it changes no output file.
    package var logsFigures = true
    /// Empty export.xml's `device` values before libxml2 reads them (`DeviceValueElision`).
    /// Outputs do not depend on it; tests turn it off to show that.
    var elideDeviceValues = true

    /// Everything here that changes the outputs, as one line: a run with other options is not
    /// a repeat of an earlier one.
    var outputFingerprint: String {
        let m =
            maps.map {
                "\($0.kinds.map(\.rawValue).sorted()) \($0.options.size) \($0.options.colourScale.rawValue) "
                    + "\(String(describing: $0.options.densityBoundingBox)) \($0.options.minimumPoints)"
            } ?? "none"
        return "strict=\(strict) priority=\(sourcePriority.patterns) tolerance=\(joinTolerance) zones=\(zones) "
            + "geojsonTimes=\(geojsonTimes) maps=\(m)" + (geojson ? "" : " geojson=false")
            + (debugManifest ? " debugManifest=true" : "")
            + (formats == [.csv] ? "" : " formats=\(formats.names.joined(separator: ","))")
            + (splitUnit == .km ? "" : " splitUnit=\(splitUnit.rawValue)")
            + (ecgSamples ? " ecgSamples=true" : "")
            + (report ? "" : " report=false")
    }

    package init(inputPath: String, outputDirectory: String) {
        self.inputPath = inputPath
        self.outputDirectory = outputDirectory
    }
}

/// One run over one export: stream export.xml, then the route files, then write workouts,
/// sleep, daily figures and the manifest, then move every output into place at once.
///
/// Any error leaves the output folder as it was: outputs are staged and committed only at the
/// end. The stages (`ExportXMLStage`, `RouteStage`, `AnalysisStage`, `ManifestStage`) share a
/// `RunContext` and hand each other their `Result`s.
package enum ExportRun {
    package static func run(_ options: RunOptions) throws -> Manifest {
        let started = Date()
        let source = try openExportSource(path: options.inputPath, limits: options.archiveLimits, label: options.inputLabel)
        let layout = try ExportLayout(source: source)
        let folder = try OutputFolderClaim(options.outputDirectory)
        defer { withExtendedLifetime(folder) {} }
        Interruption.holding(folder.lock)
        // The archive's SHA-256, on its own thread while the export is read: for the manifest,
        // and (waited for at once) to recognise a repeat run.
        let hash = BackgroundTask { () throws -> (digest: ManifestStage.ArchiveDigest, seconds: Double) in
            let clock = Date()
            let (size, digest) = try sha256(of: source, main: layout.mainXML)
            return (ManifestStage.ArchiveDigest(size: size, sha256: digest), Date().timeIntervalSince(clock))
        }
        let optionsSHA = SHA256.hash(data: Array(options.outputFingerprint.utf8)).map { String(format: "%02x", $0) }.joined()
        if !options.force, let previous = folder.previous,
            previous.toolVersion == HealthTrailVersion.current, previous.optionsSHA256 == optionsSHA,
            let (archive, _) = try? hash.value(), previous.inputSize == archive.size, previous.inputSHA256 == archive.sha256
        {
            throw NothingNew(input: options.inputPath, directory: options.outputDirectory)
        }
        let staging = try OutputStaging(outputDirectory: options.outputDirectory)
        // Kept after the run too: a signal then must not report the new outputs as not written.
        Interruption.guarding(staging)
        let budget = StagingBudget(
            folder: staging.stagingDirectory,
            inflatedBytes: source.entries.reduce(0) { total, entry in
                let (sum, overflow) = total.addingReportingOverflow(entry.uncompressedSize)
                return overflow ? .max : sum
            },
            input: source.displayName, factor: options.stagingFactor, allowance: options.stagingAllowance)
        budget.activate()
        defer { budget.deactivate() }
        let log = HealthTrailLog.logger
        let label = options.inputLabel ?? options.inputPath
        if options.logsFigures {
            log.info("run started", metadata: ["event": "run.started", "input": .string(label), "output": .string(options.outputDirectory)])
        }
        var context: RunContext?
        do {
            let run = try RunContext(options: options, source: source, layout: layout, staging: staging, started: started)
            context = run
            defer { run.removeScratch() }
            run.timings["open_s"] = Date().timeIntervalSince(started)

            // A stage that passed the staging budget stops the run at its end at the latest.
            let xml = try ExportXMLStage.run(run)
            try budget.check()
            // The other formats of the tables export.xml filled, written while the routes and the
            // analysis run.
            let formats =
                options.formats == [.csv] ? nil : try TableFormatStage.start(run, first: run.outputs.closeExportXMLTables())
            let routes = try RouteStage.run(run, xml: xml)
            try budget.check()
            let analysis = try AnalysisStage.run(run, decoder: xml.decoder, sink: xml.sink, routes: routes)
            try budget.check()
            let ecg = try run.timed("ecg_s") { try ECGStage.run(run) }
            try budget.check()
            // The CSV files' fsyncs wait for the disk while the overview is still drawn.
            let csvFiles = try run.timed("close_s") { try run.outputs.closeAll() }
            // report.html, from the CSV files just closed, on a thread of its own while the other
            // formats are written and the overview drawn; waited for first when those formats
            // are to remove the CSV files.
            let report =
                options.report
                ? BackgroundTask { () throws -> Double in
                    let clock = Date()
                    try ReportOutputs.write(staging: staging)
                    return Date().timeIntervalSince(clock)
                } : nil
            if let report { run.waitBeforeDiscard { _ = try? report.value() } }
            if !options.formats.contains(.csv), let report { run.timings["report_s"] = try report.value() }
            let tables =
                try formats.map { formats in try run.timed("formats_s") { try formats.finish(run, written: csvFiles, zones: routes.zones) } }
                ?? TableFormatStage.Result(written: csvFiles, database: nil)
            let written = tables.written
            if let report { run.timings["report_s"] = try report.value() }
            let drawnOverview = try routes.overview?.value()
            if options.maps != nil { run.timings["svg_s"] = analysis.calendarSeconds + (drawnOverview?.seconds ?? 0) }
            let (archive, hashSeconds) = try hash.value()
            run.timings["sha256_s"] = hashSeconds
            run.timings["total_s"] = Date().timeIntervalSince(started)

            let manifest = try ManifestStage.manifest(
                run, xml: xml, routes: routes, analysis: analysis, ecg: ecg, written: written,
                outsideArea: drawnOverview?.outsideArea, archive: archive,
                optionsSHA256: optionsSHA)
            try writeJSON(manifest, to: staging.path(OutputCommit.manifestName))
            try tables.finish(manifestAt: staging.path(OutputCommit.manifestName))
            try budget.check()
            try staging.commit(replacing: folder.previous?.files ?? [])
            // Counts and durations only: nothing read from the data.
            guard options.logsFigures else { return manifest }
            if run.faults.total > 0 {
                log.warning(
                    "\(run.faults.total) malformed records skipped (manifest.json lists them)",
                    metadata: ["event": "run.faults", "input": .string(label), "faults": .stringConvertible(run.faults.total)])
            }
            log.info(
                "run finished",
                metadata: [
                    "event": "run.finished", "input": .string(label), "output": .string(options.outputDirectory),
                    "seconds": .stringConvertible(((run.timings["total_s"] ?? 0) * 100).rounded() / 100),
                    "records": .stringConvertible(xml.decoder.recordTypes.reduce(0) { $0 + $1.count }),
                    "workouts": .stringConvertible(xml.decoder.workouts.count), "route_points": .stringConvertible(routes.routes.points),
                    "files": .stringConvertible(written.count + 1),
                ])
            return manifest
        } catch {
            _ = try? hash.value()   // nothing may still read the source
            context?.abandon()   // nor decode route files or draw maps into the staging folder
            staging.discard()
            // A write the budget refused fails whatever stage noticed it first: the budget's
            // line says why.
            throw budget.failure ?? error
        }
    }

    /// Streams export.xml through the prolog filter into the decoder; returns the export version.
    /// `elideDeviceValues` empties the `device` attributes' values on the inflating thread
    /// (`DeviceValueElision`): the decoder never reads them, and they are half of libxml2's work.
    static func stream(
        _ entry: ArchiveEntry, of source: ExportSource, into decoder: ExportDecoder,
        progress: ProgressLine, elideDeviceValues: Bool = true
    ) throws -> String? {
        progress.begin(String(entry.fileName))
        // Whatever ends the stream, the decoding thread (if any) ends before this returns.
        defer { decoder.waitForDecoding() }
        var filter = PrologFilter()
        // Inflate on a second thread while this one parses (see PrefetchingReader). An archive
        // error (bad CRC, truncated entry) met while decoding still has events queued must not
        // hide a fault those events raise under --strict: decoding in the callbacks, that fault
        // would have come first.
        do {
            try PrefetchingReader.read(entry, of: source, elision: elideDeviceValues ? DeviceValueElision() : nil) { chunk, entryBytes in
                progress.advance(entryBytes)
                if filter.done {
                    try decoder.feed(chunk)
                    return
                }
                switch filter.consume(chunk) {
                case .needMore:
                    return
                case .notAnExport:
                    throw InputError(
                        file: source.displayName, entry: entry.path, "no <HealthData> element in the first 4 MB: not an Apple Health export")
                case .ready(let prolog, let resumeAt):
                    try decoder.feed(prolog)
                    try decoder.feed(chunk, from: resumeAt)
                }
            }
        } catch {
            throw decoder.waitForDecoding() ?? error
        }
        guard filter.done else {
            throw InputError(file: source.displayName, entry: entry.path, "file ends before the <HealthData> element")
        }
        try decoder.finish()
        return filter.exportVersion
    }

    static func kind(of source: ExportSource) -> String {
        switch source {
        case is ZipArchive: return "zip"
        case is DirectorySource: return "folder"
        default: return "xml"
        }
    }

    /// SHA-256 of the archive file (for a folder: of its export.xml).
    package static func sha256(of source: ExportSource, main: ArchiveEntry) throws -> (UInt64, String) {
        let file = try source.checksummedFile(main: main)
        var hasher = SHA256()
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var size: UInt64 = 0
        while case let n = try file.read(into: &chunk, at: size), n > 0 {
            hasher.update(data: chunk[..<n])
            size += UInt64(n)
        }
        return (size, hasher.finalize().map { String(format: "%02x", $0) }.joined())
    }

    static func iso(_ date: Date) -> String {
        Timestamp(utcSeconds: Int64(date.timeIntervalSince1970.rounded(.down))).utcString
    }

    static func writeJSON<T: Encodable>(_ value: T, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        try OutputFile.write(Array(data) + [0x0A], to: path)
    }
}
