import HealthTrailCommit
import Logging

/// The output folder, made ready for a run: refused if it is a root or someone else's, locked
/// against other runs, and wholly one earlier run's (a commit a stopped run began is finished
/// or undone first), with what that run's manifest says.
struct OutputFolderClaim {
    /// Held until the run ends.
    let lock: OutputLock
    /// The manifest of the outputs already there, if HealthTrail wrote them.
    let previous: PreviousRun?

    init(_ directory: String) throws {
        try OutputFolder.refuseRoot(directory)
        try OutputStaging.makeDirectory(directory)
        lock = try OutputLock(directory: directory)
        let log = HealthTrailLog.logger
        if let pid = lock.tookOverFrom {
            log.warning(
                "taking over the outputs of run \(pid), which ended without finishing",
                metadata: ["event": "run.lock_taken_over", "output": .string(directory), "pid": .stringConvertible(Int(pid))])
        }
        // Before anything reads the folder (the "nothing new" check reads its manifest): a
        // commit a stopped run began is finished, so the folder is wholly one run's.
        for recovery in try OutputCommit.rollForward(in: directory) {
            let pid: Logger.MetadataValue = .stringConvertible(Int(recovery.pid))
            if recovery.finishedCommit {
                log.warning(
                    "finished moving into place the outputs of run \(recovery.pid), which was stopped while doing so",
                    metadata: ["event": "run.commit_finished", "output": .string(directory), "pid": pid])
            } else {
                log.info(
                    "removed the unfinished outputs of run \(recovery.pid), which was stopped before they were complete",
                    metadata: ["event": "run.staging_removed", "output": .string(directory), "pid": pid])
            }
        }
        previous = PreviousRun(directory: directory)
        try OutputFolder.refuseForeign(directory, hasManifest: previous != nil)
        if let concern = OutputFolder.sharingConcern(directory) {
            log.warning(
                "\(concern): health data written there may be read or replaced by them",
                metadata: ["event": "run.output_shared", "output": .string(directory)])
        }
    }
}
