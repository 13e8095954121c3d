import Foundation
import HealthTrailAnalysis
import HealthTrailArchive
import HealthTrailBase
import HealthTrailCommit
import HealthTrailXML

/// What the stages of one `ExportRun` share: its input, its staging folder and open outputs,
/// its fault log, progress line and timings, and the work that must end (spill files,
/// background threads) before the staging folder is committed or removed. What one stage makes
/// for the next goes in its `Result`, not here.
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

    /// What ends each spill file and background decoding a stage started (`removeAtEnd(_:)`):
    /// none may be committed or outlive the run.
    private var scratch: [() -> Void] = []
    /// What waits for each background task that writes into the staging folder
    /// (`waitBeforeDiscard(_:)`), after a failure, before the folder is removed.
    private var backgroundWriters: [() -> Void] = []

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

    /// Has `removeScratch()` and `abandon()` call `remove`, which removes a spill file or stops
    /// background decoding; calling it more than once does no harm.
    func removeAtEnd(_ remove: @escaping () -> Void) { scratch.append(remove) }

    /// Has `removeScratch()` and `abandon()` remove the spill file at `path`. Only its path is
    /// kept, so the writer that filled it, and its buffer, go as soon as the stage lets go of it.
    func removeAtEnd(file path: String) { scratch.append { unlink(path) } }

    /// Has `abandon()` call `wait`, which waits for a background task that writes into the
    /// staging folder.
    func waitBeforeDiscard(_ wait: @escaping () -> Void) { backgroundWriters.append(wait) }

    /// Ends the progress line and removes the spill files, whatever ended the run: none may be
    /// committed.
    func removeScratch() {
        for remove in scratch { remove() }
        progress.finish()
    }

    /// After a failure: stops every background thread that reads the source or writes into
    /// the staging folder, which is about to be removed.
    func abandon() {
        for remove in scratch { remove() }
        for wait in backgroundWriters { wait() }
    }
}
