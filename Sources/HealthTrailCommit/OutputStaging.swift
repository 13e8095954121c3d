import Foundation
import HealthTrailArchive
import HealthTrailBase
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The folder a run writes into before its outputs replace the previous ones.
///
/// Everything is written under `<out>/.staging-<pid>/`; only when the run has succeeded are the
/// files moved into place (`OutputCommit`). A failed or killed run therefore never leaves a
/// half-written file where a good one stood, nor a folder mixing two runs' outputs. Files and
/// folders are created owner-only: this is health data.
///
/// Create it while holding the folder's `OutputLock`: it first finishes or removes what stopped
/// runs left (`OutputCommit.rollForward`).
package final class OutputStaging: Sendable {
    package let outputDirectory: String
    package let stagingDirectory: String
    private let state = Mutex(State())
    /// Entered while `commit` moves files; a signal's handler waits on it.
    private let commitEnded = DispatchGroup()
    /// Held while the staging folder is removed: a signal's handler (`stop`) and the failing run
    /// (`discard`) may both remove it at once, and two removals of one tree each give up at the
    /// first entry the other took, leaving the rest.
    private let removal = Mutex(())

    /// What the run's threads and a signal's handler thread share, changed under `state`'s lock.
    private struct State {
        /// Where the run stands.
        var phase = Phase.writing
        /// The first fsync that failed.
        var syncFailure: InputError?
    }

    private enum Phase {
        /// Outputs are being written into the staging folder.
        case writing
        /// `commit` is moving them into place.
        case committing
        /// They are in place.
        case committed
        /// The run failed or was stopped: nothing was or will be moved.
        case abandoned
    }

    package init(outputDirectory: String) throws {
        self.outputDirectory = outputDirectory
        try OutputStaging.makeDirectory(outputDirectory)
        guard access(outputDirectory, W_OK | X_OK) == 0 else {
            throw InputError(file: outputDirectory, "output folder is not writable: \(String(cString: strerror(errno)))")
        }
        _ = try OutputCommit.rollForward(in: outputDirectory)
        stagingDirectory = outputDirectory + "/.staging-\(getpid())"
        try? FileManager.default.removeItem(atPath: stagingDirectory)
        try OutputStaging.makeDirectory(stagingDirectory)
    }

    /// The staging path of an output, creating its subfolder when needed. A path that could leave
    /// the staging folder (absolute, or with a `..` component) is refused: output names can carry
    /// text from the export.
    package func path(_ relative: String) throws -> String {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !relative.hasPrefix("/"), !parts.contains("..") else {
            throw InputError(file: outputDirectory, "refusing an output path that leaves the output folder")
        }
        let full = stagingDirectory + "/" + relative
        if let slash = relative.lastIndex(of: "/") {
            // Under the lock, and never once the run is abandoned: a signal's handler removing
            // the staging folder must not see it made again by a thread still writing.
            try state.withLock { state in
                guard state.phase != .abandoned else { throw CancellationError() }
                try OutputStaging.makeDirectory(stagingDirectory + "/" + relative[..<slash])
            }
        }
        return full
    }

    // MARK: Whole files synced on another thread

    /// Fsyncs handed to `WriteBehindQueue.fileSyncs` and not yet done.
    private let pendingSyncs = DispatchGroup()
    /// At most this many files wait for their fsync with their descriptor open.
    private let syncSlots = DispatchSemaphore(value: 64)

    /// Writes a whole output (an SVG map) owner-only, leaving its fsync to the thread of
    /// `WriteBehindQueue.fileSyncs`: the threads drawing hundreds of workout maps do not wait
    /// for the disk after each.
    /// `commit` waits for every such fsync first and fails on the first that failed, so no file
    /// is renamed into place before it is on disk.
    package func writeFile(_ bytes: [UInt8], to path: String) throws {
        if let refusal = StagingBudget.covering(path)?.charge(bytes.count, path: path) { throw refusal }
        let fd = try OutputFile.writeUnsynced(bytes, to: path)
        syncSlots.wait()
        pendingSyncs.enter()
        WriteBehindQueue.fileSyncs.submit { [self] in
            if fsync(fd) != 0 && errno != EINVAL {
                let failure = InputError(file: path, "cannot write: \(String(cString: strerror(errno)))")
                state.withLock { state in if state.syncFailure == nil { state.syncFailure = failure } }
            }
            Glibc.close(fd)
            syncSlots.signal()
            pendingSyncs.leave()
        }
    }

    /// Waits for the fsyncs `writeFile` handed over; throws the first that failed.
    package func waitForFileSyncs() throws {
        pendingSyncs.wait()
        if let failure = state.withLock({ $0.syncFailure }) { throw failure }
    }

    /// Moves every staged output into the output folder (`OutputCommit`): afterwards the folder
    /// holds this run's outputs, and the files of the previous run that this one did not write
    /// are gone. `listed` is what the previous manifest lists: the only files a commit replaces
    /// or removes; any other file in the way fails the commit before anything is moved.
    ///
    /// Throws `CancellationError` without moving anything when a signal came first.
    package func commit(replacing listed: Set<String>) throws {
        try waitForFileSyncs()
        try state.withLock { state in
            guard state.phase == .writing else { throw CancellationError() }
            state.phase = .committing
            commitEnded.enter()
        }
        var succeeded = false
        defer {
            state.withLock { $0.phase = succeeded ? .committed : .abandoned }
            commitEnded.leave()
        }
        try OutputCommit(outputDirectory: outputDirectory, stagingDirectory: stagingDirectory)
            .run(listed: listed, journal: OutputCommit.journalPath(outputDirectory, pid: getpid()))
        succeeded = true
    }

    /// Removes the staging folder, leaving the previous outputs as they were.
    package func discard() {
        let removable = state.withLock { state in
            let removable = state.phase == .writing || state.phase == .abandoned
            if state.phase == .writing { state.phase = .abandoned }
            return removable
        }
        if removable { removeStagingFolder() }
    }

    /// Removes the staging folder for good, though the run's other threads may still be writing
    /// (they run until the process exits): the folder is first renamed to `<staging>.removed`,
    /// after which a file opened by its staging path fails instead of being created, and `path`
    /// makes no subfolder once the run is abandoned. Then the renamed folder is removed.
    private func removeStagingFolder() {
        removal.withLock { _ in
            let removed = stagingDirectory + ".removed"
            Self.removeTree(removed)
            if rename(stagingDirectory, removed) == 0 {
                Self.removeTree(removed)
            } else {
                Self.removeTree(stagingDirectory)
            }
        }
    }

    /// Removes a folder and everything in it, tried again a few times: `removeItem` stops at the
    /// first entry that vanishes or appears while it runs.
    private static func removeTree(_ path: String) {
        for _ in 0..<8 {
            try? FileManager.default.removeItem(atPath: path)
            var status = stat()
            if lstat(path, &status) != 0 { return }
        }
    }

    /// For a signal's handler thread: stops the run's outputs where they stand. Before the commit,
    /// the staging folder is removed and no commit can begin; during it, this waits until it has
    /// ended (renames take moments, and a commit stopped halfway would leave the folder mixed
    /// until the next run). Returns whether this run's outputs are the ones in place.
    package func stop() -> Bool {
        let current = state.withLock { state in
            let current = state.phase
            if current == .writing { state.phase = .abandoned }
            return current
        }
        switch current {
        case .writing:
            removeStagingFolder()
            return false
        case .committing:
            commitEnded.wait()
            return state.withLock { $0.phase == .committed }
        case .committed: return true
        case .abandoned: return false
        }
    }

    /// Creates a folder (and its parents) owner-only; an existing folder is kept as it is.
    package static func makeDirectory(_ path: String) throws {
        do {
            try makeOwnerOnlyFolder(path)
        } catch .notAFolder {
            throw InputError(file: path, "output path exists and is not a folder")
        } catch .cannotCreate(let code) {
            throw InputError(file: path, "cannot create output folder: \(String(cString: strerror(code)))")
        }
    }
}
