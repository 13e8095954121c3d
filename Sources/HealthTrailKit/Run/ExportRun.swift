import Crypto
import Foundation
import Logging

/// What `healthtrail run` was asked to do.
public struct RunOptions: Sendable {
    public var inputPath: String
    public var outputDirectory: String
    /// Make the first malformed record fatal instead of counting and skipping it.
    public var strict = false
    /// Draw a progress line (only on a terminal).
    public var showProgress = false
    /// Which source counts where several overlap (steps, energy, sleep).
    public var sourcePriority = SourcePriority.default
    /// How far (seconds) a heart-rate sample may lie from a route point to give it a bpm.
    public var joinTolerance: Int64 = 15
    /// Heart-rate zones: the four default ones, five from a maximum, or from the date of birth.
    public var zones = ZoneChoice.standard
    /// Add per-point timestamps to routes.geojson (kepler.gl's trip layer).
    public var geojsonTimes = false
    /// SVG maps and calendars under `svg/`; nil for none.
    public var maps: MapOutputs? = MapOutputs()
    /// Process the archive even when the output folder already holds its outputs.
    public var force = false
    /// Write routes.geojson.
    public var geojson = true
    /// Zip-bomb limits: the largest expansion ratio per entry and total uncompressed size. They
    /// refuse inputs but never change outputs, so they are not part of `outputFingerprint`.
    public var archiveLimits = ArchiveLimits.default
    /// What the manifest and the log call the input instead of its path: a cohort member's
    /// pseudonym, so that no output names the person.
    public var inputLabel: String?
    /// Samples sorted in memory at once before a sorted run goes to a spill file in the staging
    /// folder (cumulative series, sleep samples, the heart rate of workout windows). Memory, not
    /// outputs, depends on it; tests make it small to send every run through the disk.
    var spillRunLength = 1 << 16
    /// Write unknown units, unknown activity types and missing route files' paths into
    /// manifest.json as the export has them, instead of as keyed hashes (`ManifestNames`).
    public var debugManifest = false
    /// Empty export.xml's `device` values before libxml2 reads them (`DeviceValueElision`).
    /// Outputs do not depend on it; tests turn it off to show that.
    var elideDeviceValues = true

    /// Everything here that changes the outputs, as one line: a run with other options is not
    /// a repeat of an earlier one.
    var outputFingerprint: String {
        let m = maps.map { "\($0.kinds.map(\.rawValue).sorted()) \($0.options.size) \($0.options.colourScale.rawValue) "
            + "\(String(describing: $0.options.densityBoundingBox)) \($0.options.minimumPoints)" } ?? "none"
        return "strict=\(strict) priority=\(sourcePriority.patterns) tolerance=\(joinTolerance) zones=\(zones) "
            + "geojsonTimes=\(geojsonTimes) maps=\(m)" + (geojson ? "" : " geojson=false")
            + (debugManifest ? " debugManifest=true" : "")
    }

    public init(inputPath: String, outputDirectory: String) {
        self.inputPath = inputPath
        self.outputDirectory = outputDirectory
    }
}

/// One run over one export: stream export.xml, then the route files, then write workouts,
/// sleep, daily figures and the manifest, then move every output into place at once.
///
/// Any error leaves the output folder as it was: outputs are staged and committed only at the end.
public enum ExportRun {
    public static func run(_ options: RunOptions) throws -> Manifest {
        let started = Date()
        var timings: [String: Double] = [:]
        let source = try openExportSource(path: options.inputPath, limits: options.archiveLimits)
        let layout = try ExportLayout(source: source)
        try OutputFolder.refuseRoot(options.outputDirectory)
        try OutputStaging.makeDirectory(options.outputDirectory)
        let lock = try OutputLock(directory: options.outputDirectory)
        defer { withExtendedLifetime(lock) {} }
        let log = HealthTrailLog.logger
        let label = options.inputLabel ?? options.inputPath
        if let pid = lock.tookOverFrom {
            log.warning("taking over the outputs of run \(pid), which ended without finishing",
                        metadata: ["event": "run.lock_taken_over", "output": .string(options.outputDirectory), "pid": .stringConvertible(Int(pid))])
        }
        // Before anything reads the folder (the "nothing new" check reads its manifest): a
        // commit a stopped run began is finished, so the folder is wholly one run's.
        for recovery in try OutputCommit.rollForward(in: options.outputDirectory) {
            let pid: Logger.MetadataValue = .stringConvertible(Int(recovery.pid))
            if recovery.finishedCommit {
                log.warning("finished moving into place the outputs of run \(recovery.pid), which was stopped while doing so",
                            metadata: ["event": "run.commit_finished", "output": .string(options.outputDirectory), "pid": pid])
            } else {
                log.info("removed the unfinished outputs of run \(recovery.pid), which was stopped before they were complete",
                         metadata: ["event": "run.staging_removed", "output": .string(options.outputDirectory), "pid": pid])
            }
        }
        let previous = PreviousRun(directory: options.outputDirectory)
        try OutputFolder.refuseForeign(options.outputDirectory, hasManifest: previous != nil)
        if let concern = OutputFolder.sharingConcern(options.outputDirectory) {
            log.warning("\(concern): health data written there may be read or replaced by them",
                        metadata: ["event": "run.output_shared", "output": .string(options.outputDirectory)])
        }
        // The archive's SHA-256, on its own thread while the export is read: for the manifest,
        // and (waited for at once) to recognise a repeat run.
        let hash = BackgroundTask { () throws -> (UInt64, String, Double) in
            let clock = Date()
            let (size, digest) = try sha256(of: source, main: layout.mainXML)
            return (size, digest, Date().timeIntervalSince(clock))
        }
        let optionsSHA = SHA256.hash(data: Array(options.outputFingerprint.utf8)).map { String(format: "%02x", $0) }.joined()
        if !options.force, let previous,
           previous.toolVersion == HealthTrailVersion.current, previous.optionsSHA256 == optionsSHA,
           let (size, digest, _) = try? hash.value(), previous.inputSize == size, previous.inputSHA256 == digest {
            throw NothingNew(input: options.inputPath, directory: options.outputDirectory)
        }
        let staging = try OutputStaging(outputDirectory: options.outputDirectory)
        // Kept after the run too: a signal then must not report the new outputs as not written.
        Interruption.guarding(staging)
        log.info("run started", metadata: ["event": "run.started", "input": .string(label), "output": .string(options.outputDirectory)])
        var overview: BackgroundTask<(seconds: Double, outsideArea: Int?)>?
        var routeFiles: PredecodedRoutes?
        do {
            let outputs = try ExportOutputs(staging: staging)
            timings["open_s"] = Date().timeIntervalSince(started)
            let faults = FaultLog(file: source.displayName, strict: options.strict)
            let progress = ProgressLine(totalBytes: layout.mainXML.uncompressedSize,
                                        backgroundBytes: layout.routeFiles.reduce(0) { $0 + $1.uncompressedSize },
                                        enabled: options.showProgress && ProgressLine.stderrIsTerminal)
            defer { progress.finish() }

            // Route files are decoded meanwhile, on what the export.xml threads leave of the cores
            // (two background threads), and by this thread once export.xml is read.
            let predecoded = PredecodedRoutes(entries: layout.routeFiles, source: source,
                                              spillPaths: try (0..<3).map { try staging.path(".route-points-\($0).spill") },
                                              faults: faults, progress: progress)
            routeFiles = predecoded
            defer { predecoded.remove() }   // spill files must not be committed

            var clock = Date()
            let decoder = ExportDecoder(outputs: outputs, faults: faults, fileName: source.displayName,
                                        entryName: layout.mainXML.path, priority: options.sourcePriority)
            let spill = try HeartRateSpill(path: staging.path(".heart-rate.spill"))
            defer { spill.remove() }
            decoder.heartRateSpill = spill
            decoder.daily?.spillDirectory = staging.stagingDirectory
            decoder.daily?.spillRunLength = options.spillRunLength
            decoder.sleepSamples = SleepOutputs.collection(spillPath: try staging.path(".sleep.spill"),
                                                           runLength: options.spillRunLength)
            // The parse is the critical path: it runs alone on this thread, decoding on another.
            decoder.decodeOnOwnThread()
            let exportVersion = try stream(layout.mainXML, of: source, into: decoder, progress: progress,
                                           elideDeviceValues: options.elideDeviceValues)
            try spill.close()
            timings["export_xml_s"] = Date().timeIntervalSince(clock)

            clock = Date()
            try predecoded.wait()
            timings["routes_wait_s"] = Date().timeIntervalSince(clock)

            clock = Date()
            let plan = try RouteLinker.plan(layout: layout, routes: predecoded, workouts: decoder.workouts)
            // Every source is known now (export.xml is read): ranked once for all outputs.
            let sourceRanking = decoder.daily!.sourceRanking(decoder.sources)
            let join = try HeartRateJoin(spill: spill, windows: plan.windows, tolerance: options.joinTolerance,
                                         sourceOrder: sourceRanking.order,
                                         sortSpillPath: staging.path(".heart-rate-join.spill"),
                                         runLength: options.spillRunLength)
            spill.remove()
            let zones = options.zones.resolve(dateOfBirth: decoder.me?.dateOfBirth, on: decoder.exportDate)
            timings["join_s"] = Date().timeIntervalSince(clock)

            clock = Date()
            let geojson = options.geojson ? try GeoJSONWriter(path: staging.path("routes.geojson"), includeTimes: options.geojsonTimes) : nil
            if options.maps?.kinds.contains(.workouts) == true { _ = try staging.path("svg/workouts/.") }   // before two threads write there
            let mapContext = options.maps.map { maps in
                MapContext(staging: staging, options: maps.options, drawWorkouts: maps.kinds.contains(.workouts),
                           filesPerWorkout: plan.files.reduce(into: [:]) { $0[$1.workoutID, default: 0] += 1 },
                           offsets: Dictionary(decoder.workouts.map { ($0.id, WorkoutFigures($0).offsetMinutes) },
                                               uniquingKeysWith: { a, _ in a }))
            }
            let routes = try RouteLinker.run(plan, routes: predecoded, inlineRoutes: decoder.inlineRoutes, join: join,
                                             zones: zones, csv: outputs.routePoints, geojson: geojson, maps: mapContext,
                                             faults: faults)
            predecoded.remove()
            try geojson?.close()
            timings["routes_s"] = Date().timeIntervalSince(clock)

            // The overview and density maps need only the route tracks: drawn meanwhile.
            overview = options.maps.map { maps in
                BackgroundTask { () throws -> (seconds: Double, outsideArea: Int?) in
                    let clock = Date()
                    defer { routes.tracks.discard() }   // spill files must not be committed
                    let outsideArea = try MapOutputs.writeOverviewAndDensity(routes.tracks, options: maps.options,
                                                                             kinds: maps.kinds, staging: staging)
                    return (Date().timeIntervalSince(clock), outsideArea)
                }
            }

            clock = Date()
            let daily = decoder.daily!
            daily.closeSeries(except: nil, sources: decoder.sources)
            try daily.throwSpillFailure()
            let workoutWriter = try outputs.addWriter(OutputSchema.workouts.name, header: OutputSchema.workouts.header(zones: zones))
            var unknownActivities: [String: Int] = [:]
            for w in decoder.workouts.sorted(by: { ($0.start, $0.id) < ($1.start, $1.id) }) {
                let figures = WorkoutFigures(w)
                WorkoutRow.write(w, figures: figures, routeFiles: routes.filesByWorkout[w.id] ?? [],
                                 route: routes.statsByWorkout[w.id], zoneCount: zones.zones.count, to: workoutWriter)
                daily.workout(localDay: CumulativeSeries.localDay(w.start.utcSeconds, Int16(figures.offsetMinutes)),
                              minutes: w.durationSeconds / 60)
                if !ActivityCatalog.name(for: w.activityType).isKnown { unknownActivities[w.activityType, default: 0] += 1 }
            }
            let sleep = try SleepOutputs.write(decoder.sleepSamples, sources: decoder.sources, ranks: sourceRanking.patternRanks,
                                               outputs: outputs, daily: daily)
            daily.write(to: try outputs.addWriter(OutputSchema.daily.name, header: OutputSchema.daily.names))
            timings["analyse_s"] = Date().timeIntervalSince(clock)
            var calendars = 0.0
            if let maps = options.maps, maps.kinds.contains(.calendars) {
                clock = Date()
                try MapOutputs.writeCalendars(daily, options: maps.options, staging: staging)
                calendars = Date().timeIntervalSince(clock)
            }
            // The CSV files' fsyncs wait for the disk while the overview is still drawn.
            clock = Date()
            let written = try outputs.closeAll()
            timings["close_s"] = Date().timeIntervalSince(clock)
            let drawnOverview = try overview?.value()
            if options.maps != nil { timings["svg_s"] = calendars + (drawnOverview?.seconds ?? 0) }

            let (size, digest, hashSeconds) = try hash.value()
            timings["sha256_s"] = hashSeconds
            timings["total_s"] = Date().timeIntervalSince(started)

            // Text from the data in the manifest is tagged, under the folder's key: made only
            // when there is such text, so most folders never get one.
            let names = options.debugManifest || (decoder.unknownUnits.isEmpty && unknownActivities.isEmpty
                                                  && routes.missingFiles.isEmpty)
                ? ManifestNames.verbatim : try ManifestNames.keyed(outputDirectory: options.outputDirectory)
            let manifest = Manifest(
                startedUTC: iso(started), finishedUTC: iso(Date()),
                input: .init(path: options.inputLabel ?? options.inputPath,
                             name: options.inputLabel ?? URL(fileURLWithPath: options.inputPath).lastPathComponent,
                             kind: kind(of: source), sizeBytes: size, sha256: digest, mainEntry: layout.mainXML.path,
                             mainEntryBytes: layout.mainXML.uncompressedSize, exportVersion: exportVersion,
                             exportDate: decoder.exportDate.map { $0.utcString }, locale: decoder.locale),
                counts: .init(recordsByType: Dictionary(uniqueKeysWithValues: decoder.recordTypes.map { ($0.identifier, $0.count) }),
                              heartRate: decoder.heartRateSamples, workouts: decoder.workouts.count,
                              routeFiles: layout.routeFiles.count, routePoints: routes.points,
                              inlineRoutePoints: decoder.inlineRoutePoints, correlations: decoder.correlations,
                              activitySummaries: decoder.activitySummaries, hrvBeats: decoder.hrvBeats,
                              ecgFiles: layout.ecgFiles.count, sources: decoder.sources.count),
                outputs: Dictionary(uniqueKeysWithValues: written.map { ($0.name, $0.rows) }),
                routes: .init(linkedByReference: routes.linkedByReference, linkedByTime: routes.linkedByTime,
                              orphans: routes.orphans, missingFiles: routes.missingFiles.map(names.name),
                              joinToleranceSeconds: options.joinTolerance, heartRateSamplesForJoin: join.sampleCount,
                              zones: zones.zones.map(\.name), geojsonFeatures: geojson?.features ?? 0,
                              svgRoutesOutsideArea: drawnOverview?.outsideArea, thinnedPoints: routes.thinnedPoints),
                faults: .init(total: faults.total, byKind: faults.countsByKind, first: faults.first),
                normalisation: .init(unknownUnits: names.names(decoder.unknownUnits), unknownActivityTypes: names.names(unknownActivities),
                                     sourcePriority: options.sourcePriority.patterns, sleepNights: sleep.nights, naps: sleep.naps,
                                     regroupedSeries: daily.reopened.map { "\($0)" }.sorted()),
                timings: timings.mapValues { ($0 * 1000).rounded() / 1000 }, runOptionsSHA256: optionsSHA,
                files: try OutputCommit.stagedFiles(in: staging.stagingDirectory))
            clock = Date()
            try writeJSON(manifest, to: staging.path(OutputCommit.manifestName))
            try staging.commit(replacing: previous?.files ?? [])
            if ProcessInfo.processInfo.environment["HEALTHTRAIL_TRACE_TIMINGS"] != nil {
                fputs("manifest+commit: \(Date().timeIntervalSince(clock)) s\n", stderr)
            }
            // Counts and durations only: nothing read from the data.
            if faults.total > 0 {
                log.warning("\(faults.total) malformed records skipped (manifest.json lists them)",
                            metadata: ["event": "run.faults", "input": .string(label), "faults": .stringConvertible(faults.total)])
            }
            log.info("run finished", metadata: [
                "event": "run.finished", "input": .string(label), "output": .string(options.outputDirectory),
                "seconds": .stringConvertible(((timings["total_s"] ?? 0) * 100).rounded() / 100),
                "records": .stringConvertible(decoder.recordTypes.reduce(0) { $0 + $1.count }),
                "workouts": .stringConvertible(decoder.workouts.count), "route_points": .stringConvertible(routes.points),
                "files": .stringConvertible(written.count + 1)])
            return manifest
        } catch {
            _ = try? hash.value()        // nothing may still read the source
            routeFiles?.remove()         // nor decode route files into the staging folder
            _ = try? overview?.value()   // nor write into the staging folder being removed
            staging.discard()
            throw error
        }
    }

    /// Streams export.xml through the prolog filter into the decoder; returns the export version.
    /// `elideDeviceValues` empties the `device` attributes' values on the inflating thread
    /// (`DeviceValueElision`): the decoder never reads them, and they are half of libxml2's work.
    static func stream(_ entry: ArchiveEntry, of source: ExportSource, into decoder: ExportDecoder,
                       progress: ProgressLine, elideDeviceValues: Bool = true) throws -> String? {
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
                    throw InputError(file: source.displayName, entry: entry.path, "no <HealthData> element in the first 4 MB: not an Apple Health export")
                case .ready(let prolog, let resumeAt):
                    try prolog.withUnsafeBytes { try decoder.feed($0) }
                    try decoder.feed(UnsafeRawBufferPointer(rebasing: chunk[resumeAt...]))
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
    static func sha256(of source: ExportSource, main: ArchiveEntry) throws -> (UInt64, String) {
        var hasher = SHA256()
        var size: UInt64 = 0
        if let zip = source as? ZipArchive {
            try streamWholeFile(zip.file, entryName: nil) { hasher.update(bufferPointer: $0); size += UInt64($0.count) }
        } else {
            try source.read(main) { hasher.update(bufferPointer: $0); size += UInt64($0.count) }
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

/// A `workouts.csv` row.
enum WorkoutRow {
    /// Where a row's `avg_hr`, `max_hr` and `min_hr` come from (`hr_source`).
    enum HeartRateSource: String {
        /// The export's own figures for the workout (`WorkoutStatistics`, or legacy metadata).
        case workout
        /// The heart rate joined to the route's points, for workouts the export gives none.
        case route
    }

    /// The row's heart-rate figures: the export's when it has any of them (never mixed with the
    /// route's), else the route's joined samples when any point has one, else none.
    static func heartRate(_ f: WorkoutFigures, route: RouteStats?)
        -> (average: Double?, maximum: Double?, minimum: Double?, source: HeartRateSource?) {
        if f.averageHeartRate != nil || f.maximumHeartRate != nil || f.minimumHeartRate != nil {
            return (f.averageHeartRate, f.maximumHeartRate, f.minimumHeartRate, .workout)
        }
        if let route, let mean = route.meanBPM { return (mean, route.maximumBPM, route.minimumBPM, .route) }
        return (nil, nil, nil, nil)
    }

    static func write(_ w: Workout, figures f: WorkoutFigures, routeFiles: [String], route: RouteStats?, zoneCount: Int,
                      to out: CSVWriter) {
        let hr = heartRate(f, route: route)
        out.field(w.id); out.comma()
        out.field(w.activity); out.comma()
        out.utc(w.start.utcSeconds); out.comma()
        out.utc(w.end.utcSeconds); out.comma()
        out.offset(f.offsetMinutes); out.comma()
        out.decimal(w.durationSeconds, digits: 1); out.comma()
        out.field(w.source); out.comma()
        out.field(routeFiles.joined(separator: ";")); out.comma()
        if let d = f.distanceMeters { out.decimal(d, digits: 1) }
        out.comma()
        if let e = f.energyKcal { out.decimal(e, digits: 1) }
        out.comma()
        if let h = hr.average { out.decimal(h, digits: 1) }
        out.comma()
        if let h = hr.maximum { out.decimal(h, digits: 1) }
        out.comma()
        if let indoor = f.indoor { out.field(indoor ? "true" : "false") }
        out.comma()
        if let zone = f.timeZone { out.field(zone) }
        out.comma()
        out.int(Int64(f.parts))
        out.comma()
        if let h = hr.minimum { out.decimal(h, digits: 1) }
        out.comma()
        if let source = hr.source { out.field(source.rawValue) }
        for value in [f.elevationAscendedMeters, f.weatherTemperatureC, f.weatherHumidityPercent] {
            out.comma()
            if let value { out.decimal(value, digits: 1) }
        }
        // Figures from the route's points (empty for workouts without a route); seconds in
        // zone only when some point has a heart rate.
        let zoneSeconds = (0..<zoneCount).map { i in route?.knownTimeInZone.flatMap { i < $0.count ? $0[i] : nil } }
        for value in [route?.distance, route?.movingTime, route?.paceSecondsPerKilometre, route?.elevationGain] + zoneSeconds {
            out.comma()
            if let value { out.decimal(value, digits: 1) }
        }
        out.endRow()
    }
}

/// What the manifest of the outputs already in a folder says about the run that made them.
struct PreviousRun {
    var toolVersion: String
    var optionsSHA256: String
    var inputSHA256: String
    var inputSize: UInt64

    /// The files it wrote: the only ones the next run may replace or remove.
    var files: Set<String>

    init?(directory: String) {
        guard let data = FileManager.default.contents(atPath: directory + "/manifest.json"),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              json["tool"] as? String == "healthtrail",
              let version = json["tool_version"] as? String, let options = json["run_options_sha256"] as? String,
              let input = json["input"] as? [String: Any], let sha = input["sha256"] as? String,
              let size = (input["size_bytes"] as? NSNumber)?.uint64Value else { return nil }
        (toolVersion, optionsSHA256, inputSHA256, inputSize) = (version, options, sha, size)
        if let listed = json["files"] as? [String] {
            files = Set(listed.filter(OutputCommit.isSafeRelativePath))
        } else {
            // Written before manifests listed their files: its CSVs, the GeoJSON and the maps.
            let outputs = (json["outputs"] as? [String: Any]).map { Array($0.keys) } ?? []
            let maps = (try? FileManager.default.subpathsOfDirectory(atPath: directory + "/svg")) ?? []
            files = Set((outputs + ["routes.geojson"] + maps.filter { $0.hasSuffix(".svg") }.map { "svg/" + $0 })
                .filter(OutputCommit.isSafeRelativePath))
        }
        files.insert(OutputCommit.manifestName)
    }
}
