import HealthTrailAnalysis
import HealthTrailDecode

/// The first stage: export.xml streamed into the decoder, whose sink writes the records' CSVs
/// as it goes, while the route files are decoded in the background on what the parse leaves of the
/// cores (`PredecodedRoutes`).
enum ExportXMLStage {
    struct Result {
        let decoder: ExportDecoder
        /// What the decoder's records went to: the daily figures and the sleep samples.
        let sink: RunRecordSink
        /// The export's `HealthData` version attribute.
        let exportVersion: String?
    }

    static func run(_ run: RunContext) throws -> Result {
        let (options, staging) = (run.options, run.staging)
        run.routeFiles = PredecodedRoutes(
            entries: run.layout.routeFiles, source: run.source,
            spillPaths: try (0..<3).map { try staging.path(".route-points-\($0).spill") },
            faults: run.faults, progress: run.progress)
        return try run.timed("export_xml_s") {
            let sink = RunRecordSink(outputs: run.outputs, priority: options.sourcePriority)
            let decoder = ExportDecoder(
                sink: sink, faults: run.faults, fileName: run.source.displayName, entryName: run.layout.mainXML.path)
            let spill = try HeartRateSpill(path: staging.path(".heart-rate.spill"))
            run.heartRateSpill = spill
            sink.heartRateSpill = spill
            sink.daily.spillDirectory = staging.stagingDirectory
            sink.daily.spillRunLength = options.spillRunLength
            sink.sleepSamples = SleepOutputs.collection(
                spillPath: try staging.path(".sleep.spill"),
                runLength: options.spillRunLength)
            // The parse is the critical path: it runs alone on this thread, decoding on another.
            decoder.decodeOnOwnThread()
            let exportVersion = try ExportRun.stream(
                run.layout.mainXML, of: run.source, into: decoder, progress: run.progress,
                elideDeviceValues: options.elideDeviceValues)
            try spill.close()
            return Result(decoder: decoder, sink: sink, exportVersion: exportVersion)
        }
    }
}
