import Foundation
import HealthTrailAnalysis
import HealthTrailCommit

/// The last stage before the commit: `manifest.json`, from what every stage counted. Names,
/// counts, sizes and hashes only; text from the data is tagged (`ManifestNames`).
enum ManifestStage {
    /// The archive's size and SHA-256.
    struct ArchiveDigest {
        let size: UInt64
        let sha256: String
    }

    static func manifest(
        _ run: RunContext, xml: ExportXMLStage.Result, routes: RouteStage.Result,
        analysis: AnalysisStage.Result, ecg: ECGStage.Result, written: [(name: String, rows: Int)],
        outsideArea: Int?, archive: ArchiveDigest, optionsSHA256: String
    ) throws -> Manifest {
        let (options, decoder, layout, faults) = (run.options, xml.decoder, run.layout, run.faults)
        let linked = routes.routes
        let cleaning = RouteCleaningCounts(linked.statsByWorkout.values)
        // Text from the data in the manifest is tagged, under the folder's key: made only
        // when there is such text, so most folders never get one.
        let names =
            options.debugManifest
                || (decoder.unknownUnits.isEmpty && analysis.unknownActivities.isEmpty
                    && linked.missingFiles.isEmpty)
            ? ManifestNames.verbatim : try ManifestNames.keyed(outputDirectory: options.outputDirectory)
        return Manifest(
            startedUTC: ExportRun.iso(run.started), finishedUTC: ExportRun.iso(Date()),
            input: .init(
                path: options.inputLabel ?? options.inputPath,
                name: options.inputLabel ?? URL(fileURLWithPath: options.inputPath).lastPathComponent,
                kind: ExportRun.kind(of: run.source), sizeBytes: archive.size, sha256: archive.sha256,
                mainEntry: layout.mainXML.path, mainEntryBytes: layout.mainXML.uncompressedSize,
                exportVersion: xml.exportVersion, exportDate: decoder.exportDate.map { $0.utcString },
                locale: decoder.locale),
            counts: .init(
                recordsByType: Dictionary(uniqueKeysWithValues: decoder.recordTypes.map { ($0.identifier, $0.count) }),
                heartRate: decoder.heartRateSamples, workouts: decoder.workouts.count,
                routeFiles: layout.routeFiles.count, routePoints: linked.points,
                inlineRoutePoints: decoder.inlineRoutePoints, correlations: decoder.correlations,
                activitySummaries: decoder.activitySummaries, hrvBeats: decoder.hrvBeats,
                ecgFiles: layout.ecgFiles.count, sources: decoder.sourceCount,
                ecgRecordings: ecg.recordings, ecgSamples: ecg.samples),
            outputs: Dictionary(uniqueKeysWithValues: written.map { ($0.name, $0.rows) }),
            routes: .init(
                linkedByReference: linked.linkedByReference, linkedByTime: linked.linkedByTime,
                orphans: linked.orphans, missingFiles: linked.missingFiles.map(names.name),
                joinToleranceSeconds: options.joinTolerance, heartRateSamplesForJoin: routes.joinSampleCount,
                zones: routes.zones.zones.map(\.name), zoneBasis: routes.zoneChoice.basis,
                geojsonFeatures: routes.geojsonFeatures,
                svgRoutesOutsideArea: outsideArea, thinnedPoints: linked.thinnedPoints,
                pointsByState: cleaning.pointsByState, duplicateBoundaryPoints: linked.duplicatePoints,
                flaggedWorkouts: cleaning.flaggedWorkouts, trimmedDistanceMeters: cleaning.trimmedMeters),
            faults: .init(total: faults.total, byKind: faults.countsByKind, first: faults.first),
            normalisation: .init(
                unknownUnits: names.names(decoder.unknownUnits),
                unknownActivityTypes: names.names(analysis.unknownActivities),
                sourcePriority: options.sourcePriority.patterns, sleepNights: analysis.sleepNights,
                naps: analysis.naps, regroupedSeries: xml.sink.daily.reopened.map { "\($0)" }.sorted(),
                timeZones: analysis.timeZones, recordCopies: xml.copiesByType),
            timings: run.timings.mapValues { ($0 * 1000).rounded() / 1000 }, runOptionsSHA256: optionsSHA256,
            files: try OutputCommit.stagedFiles(in: run.staging.stagingDirectory), budgetLedger: options.budgetLedger)
    }
}

/// What the route cleaning did, summed over the workouts, for the manifest.
struct RouteCleaningCounts {
    var pointsByState: [String: Int] = [:]
    var flaggedWorkouts: [String: Int] = ["glitch": 0, "vehicle": 0]
    var trimmedMeters = 0.0

    init<Stats: Sequence<RouteStats>>(_ workouts: Stats) {
        for state in PointState.allCases { pointsByState[state.name] = 0 }
        for stats in workouts {
            for state in PointState.allCases { pointsByState[state.name, default: 0] += stats.pointsByState[Int(state.rawValue)] }
            for flag in stats.flags { flaggedWorkouts[flag, default: 0] += 1 }
            trimmedMeters += stats.trimmedDistance
        }
        trimmedMeters = (trimmedMeters * 10).rounded() / 10
    }
}
