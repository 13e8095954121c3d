import HealthTrailAnalysis
import HealthTrailArchive
import HealthTrailBase
import HealthTrailDecode

/// The first stage: export.xml streamed into the decoder, whose sink writes the records' CSVs
/// as it goes, while the route files are decoded in the background on what the parse leaves of the
/// cores (`PredecodedRoutes`).
///
/// Copies of a record (`RecordCopyFinder`) are known only once the whole file is read: when
/// there are any, export.xml is read a second time, and every copy is dropped before anything
/// sees it, so that every output is the one the export without its copies gives.
enum ExportXMLStage {
    struct Result {
        let decoder: ExportDecoder
        /// What the decoder's records went to: the daily figures and the sleep samples.
        let sink: RunRecordSink
        /// The export's `HealthData` version attribute.
        let exportVersion: String?
        /// Copies of an earlier record, dropped, per record type identifier.
        let copiesByType: [String: Int]
        /// The route files, decoding in the background: `RouteStage` links them to workouts.
        let routeFiles: PredecodedRoutes
        /// The heart rate of export.xml, spilled for `RouteStage`'s join.
        let heartRateSpill: HeartRateSpill
    }

    static func run(_ run: RunContext) throws -> Result {
        let staging = run.staging
        let routeFiles = PredecodedRoutes(
            entries: run.layout.routeFiles, source: run.source,
            spillPaths: try (0..<3).map { try staging.path(".route-points-\($0).spill") },
            faults: run.faults, progress: run.progress)
        run.removeAtEnd { routeFiles.remove() }
        return try run.timed("export_xml_s") {
            var first: Reading? = try read(run, dropping: nil, faults: run.faults)
            let copies = try first!.sink.copyFinder!.finish()
            if copies.isEmpty {
                return Result(
                    decoder: first!.decoder, sink: first!.sink, exportVersion: first!.exportVersion, copiesByType: [:],
                    routeFiles: routeFiles, heartRateSpill: first!.heartRateSpill)
            }
            let copiesByType = copies.countsByType
            // The first reading's spill files go before the second's are made under the same names.
            first!.heartRateSpill.remove()
            first = nil
            try run.outputs.restartExportXMLTables()
            // Its faults were counted by the first reading already.
            let second = try read(run, dropping: copies, faults: FaultLog(file: run.source.displayName, strict: run.options.strict))
            return Result(
                decoder: second.decoder, sink: second.sink, exportVersion: second.exportVersion, copiesByType: copiesByType,
                routeFiles: routeFiles, heartRateSpill: second.heartRateSpill)
        }
    }

    /// One reading of export.xml.
    private struct Reading {
        let decoder: ExportDecoder
        let sink: RunRecordSink
        let heartRateSpill: HeartRateSpill
        let exportVersion: String?
    }

    /// Reads export.xml into a new sink: the first time noting every record for `RecordCopyFinder`,
    /// the second time dropping the `copies` the first found.
    private static func read(_ run: RunContext, dropping copies: RecordCopies?, faults: FaultLog) throws -> Reading {
        let (options, staging) = (run.options, run.staging)
        let sink = RunRecordSink(outputs: run.outputs, priority: options.sourcePriority)
        let decoder = ExportDecoder(sink: sink, faults: faults, fileName: run.source.displayName, entryName: run.layout.mainXML.path)
        let spill = try HeartRateSpill(path: staging.path(".heart-rate.spill"))
        run.removeAtEnd(file: spill.path)
        sink.heartRateSpill = spill
        sink.daily.spillDirectory = staging.stagingDirectory
        sink.daily.spillRunLength = options.spillRunLength
        sink.sleepSamples = SleepOutputs.collection(spillPath: try staging.path(".sleep.spill"), runLength: options.spillRunLength)
        if let copies {
            sink.copies = copies
        } else {
            sink.copyFinder = RecordCopyFinder(spillPath: try staging.path(".record-copies.spill"), runLength: options.spillRunLength)
        }
        // The parse is the critical path: it runs alone on this thread, decoding on another.
        decoder.decodeOnOwnThread()
        let exportVersion = try ExportRun.stream(
            run.layout.mainXML, of: run.source, into: decoder, progress: run.progress,
            elideDeviceValues: options.elideDeviceValues)
        try spill.close()
        return Reading(decoder: decoder, sink: sink, heartRateSpill: spill, exportVersion: exportVersion)
    }
}
