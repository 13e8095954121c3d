import Foundation
import HealthTrailAnalysis
import HealthTrailArchive
import HealthTrailCommit
import HealthTrailXML

/// What the stages of one `ExportRun` share: its input, its staging folder and open outputs,
/// its fault log, progress line and timings, and the work that must end (spill files,
/// background threads) before the staging folder is committed or removed.
final class RunContext {
    let options: RunOptions
    let source: ExportSource
    let layout: ExportLayout
    let staging: OutputStaging
    let outputs: ExportOutputs
    let faults: FaultLog
    let progress: ProgressLine
    let started: Date
    /// Seconds per stage, as the manifest's `timings` give them.
    var timings: [String: Double] = [:]

    /// Route files being decoded in the background (`ExportXMLStage` starts them).
    var routeFiles: PredecodedRoutes?
    /// Heart rate spilled while export.xml is read, until the join has read it back.
    var heartRateSpill: HeartRateSpill?
    /// The overview and density maps, drawn in the background (`RouteStage` starts them).
    var overview: BackgroundTask<(seconds: Double, outsideArea: Int?)>?

    init(options: RunOptions, source: ExportSource, layout: ExportLayout, staging: OutputStaging, started: Date) throws {
        self.options = options
        self.source = source
        self.layout = layout
        self.staging = staging
        self.started = started
        outputs = try ExportOutputs(staging: staging)
        faults = FaultLog(file: source.displayName, strict: options.strict)
        progress = ProgressLine(
            totalBytes: layout.mainXML.uncompressedSize,
            backgroundBytes: layout.routeFiles.reduce(0) { $0 + $1.uncompressedSize },
            enabled: options.showProgress && ProgressLine.stderrIsTerminal)
    }

    /// Times `body` as the manifest's `timings[name]`.
    func timed<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        let clock = Date()
        defer { timings[name] = Date().timeIntervalSince(clock) }
        return try body()
    }

    /// Ends the progress line and removes the spill files, whatever ended the run: none may be
    /// committed.
    func removeScratch() {
        heartRateSpill?.remove()
        routeFiles?.remove()
        progress.finish()
    }

    /// After a failure: stops every background thread that reads the source or writes into
    /// the staging folder, which is about to be removed.
    func abandon() {
        routeFiles?.remove()
        _ = try? overview?.value()
    }
}
