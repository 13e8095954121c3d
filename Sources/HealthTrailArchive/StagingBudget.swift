import Foundation
import HealthTrailBase
import Synchronization

/// How many bytes a run may write into its staging folder: `factor` times the export's inflated
/// size (every entry's uncompressed size) plus a fixed `allowance` for the outputs whose size
/// does not follow the export's (maps, calendars, the manifest).
///
/// Outputs and scratch (spill) files are written through `OutputBuffer`, which counts each
/// buffer it writes out against the budget of the staging folder the file lies in; whole files
/// (`OutputStaging.writeFile`) and finished databases are counted too. A scratch file removed
/// once read back gives its bytes back (`OutputBuffer.discard`). The first write that would
/// pass the limit is not made, and the run fails with `failure`: one line naming the input,
/// the limit and the file, and nothing replaced. Counting costs a lock per buffer written out,
/// not per value.
package final class StagingBudget: Sendable {
    /// The default multiple of the export's inflated size.
    package static let defaultFactor: UInt64 = 4
    /// The default fixed allowance: 32 MiB.
    package static let defaultAllowance: UInt64 = 32 << 20

    /// The staging folder whose files count against this budget.
    package let folder: String
    /// Bytes the folder may receive.
    package let limit: UInt64
    private let factor: UInt64
    private let allowance: UInt64
    /// The input's name, for the message.
    private let input: String
    private let state = Mutex(Counts())

    /// What the budget has counted, changed under `state`'s lock.
    private struct Counts {
        /// Bytes counted so far, less those given back.
        var counted: UInt64 = 0
        /// The most `counted` reached.
        var peak: UInt64 = 0
        /// The first refused write.
        var refusal: InputError?
    }

    /// - Parameters:
    ///   - folder: the staging folder (files under it count).
    ///   - inflatedBytes: the export's size uncompressed: the sum of its entries' sizes.
    ///   - input: the input's name, for the message.
    package init(
        folder: String, inflatedBytes: UInt64, input: String, factor: UInt64 = defaultFactor, allowance: UInt64 = defaultAllowance
    ) {
        self.folder = folder
        self.factor = factor
        self.allowance = allowance
        self.input = input
        let (scaled, overflow) = inflatedBytes.multipliedReportingOverflow(by: factor)
        let (sum, overflowAgain) = scaled.addingReportingOverflow(allowance)
        limit = overflow || overflowAgain ? UInt64.max : sum
    }

    /// The first write refused, if any: what the run fails with.
    package var failure: InputError? {
        state.withLock { $0.refusal }
    }

    /// The most bytes the folder held at once, as counted.
    package var peakBytes: UInt64 {
        state.withLock { $0.peak }
    }

    /// Throws the first refused write, if any.
    package func check() throws {
        if let failure { throw failure }
    }

    /// Counts `bytes` about to be written to `path`. Returns the refusal (and writes nothing
    /// more, ever: every later call refuses too) when they would pass the limit.
    package func charge(_ bytes: Int, path: String) -> InputError? {
        state.withLock { counts in
            if let refusal = counts.refusal { return refusal }
            let (sum, overflow) = counts.counted.addingReportingOverflow(UInt64(max(0, bytes)))
            guard !overflow, sum <= limit else {
                let name = path.hasPrefix(folder + "/") ? String(path.dropFirst(folder.count + 1)) : path
                let refusal = InputError(
                    file: input,
                    "the run would write more than \(ArchiveLimits.text(bytes: limit)) to its staging folder (\(factor) × the "
                        + "export's inflated size + \(ArchiveLimits.text(bytes: allowance))), at \(name): stopped, nothing was replaced")
                counts.refusal = refusal
                return refusal
            }
            counts.counted = sum
            counts.peak = max(counts.peak, sum)
            return nil
        }
    }

    /// Gives back `bytes` counted for a file that was removed.
    package func release(_ bytes: Int) {
        state.withLock { counts in
            counts.counted -= min(counts.counted, UInt64(max(0, bytes)))
        }
    }

    // MARK: The budgets of the runs under way

    /// Budgets of the runs under way (a cohort runs several at once).
    private static let active = Mutex<[StagingBudget]>([])

    /// Makes files created under `folder` from now on count against this budget.
    package func activate() {
        Self.active.withLock { $0.append(self) }
    }

    /// Ends `activate`: files created afterwards no longer count.
    package func deactivate() {
        Self.active.withLock { $0.removeAll { $0 === self } }
    }

    /// The budget of the staging folder `path` lies in, if a run under way has one. Asked once
    /// per file created.
    package static func covering(_ path: String) -> StagingBudget? {
        active.withLock { $0.first { path.hasPrefix($0.folder + "/") } }
    }
}
