import Foundation
import HealthTrailBase

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
public final class StagingBudget: @unchecked Sendable {
    /// The default multiple of the export's inflated size.
    public static let defaultFactor: UInt64 = 4
    /// The default fixed allowance: 32 MiB.
    public static let defaultAllowance: UInt64 = 32 << 20

    /// The staging folder whose files count against this budget.
    public let folder: String
    /// Bytes the folder may receive.
    public let limit: UInt64
    private let factor: UInt64
    private let allowance: UInt64
    /// The input's name, for the message.
    private let input: String
    private let lock = NSLock()
    /// Bytes counted so far, less those given back (guarded by `lock`).
    private var counted: UInt64 = 0
    /// The most `counted` reached (guarded by `lock`).
    private var peak: UInt64 = 0
    /// The first refused write (guarded by `lock`).
    private var refusal: InputError?

    /// - Parameters:
    ///   - folder: the staging folder (files under it count).
    ///   - inflatedBytes: the export's size uncompressed: the sum of its entries' sizes.
    ///   - input: the input's name, for the message.
    public init(
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
    public var failure: InputError? {
        lock.lock()
        defer { lock.unlock() }
        return refusal
    }

    /// The most bytes the folder held at once, as counted.
    public var peakBytes: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return peak
    }

    /// Throws the first refused write, if any.
    public func check() throws {
        if let failure { throw failure }
    }

    /// Counts `bytes` about to be written to `path`. Returns the refusal (and writes nothing
    /// more, ever: every later call refuses too) when they would pass the limit.
    public func charge(_ bytes: Int, path: String) -> InputError? {
        lock.lock()
        defer { lock.unlock() }
        if let refusal { return refusal }
        let (sum, overflow) = counted.addingReportingOverflow(UInt64(max(0, bytes)))
        guard !overflow, sum <= limit else {
            let name = path.hasPrefix(folder + "/") ? String(path.dropFirst(folder.count + 1)) : path
            refusal = InputError(
                file: input,
                "the run would write more than \(ArchiveLimits.text(bytes: limit)) to its staging folder (\(factor) × the "
                    + "export's inflated size + \(ArchiveLimits.text(bytes: allowance))), at \(name): stopped, nothing was replaced")
            return refusal
        }
        counted = sum
        peak = max(peak, sum)
        return nil
    }

    /// Gives back `bytes` counted for a file that was removed.
    public func release(_ bytes: Int) {
        lock.lock()
        defer { lock.unlock() }
        counted -= min(counted, UInt64(max(0, bytes)))
    }

    // MARK: The budgets of the runs under way

    /// Budgets of the runs under way (a cohort runs several at once), guarded by `registryLock`.
    nonisolated(unsafe) private static var active: [StagingBudget] = []
    private static let registryLock = NSLock()

    /// Makes files created under `folder` from now on count against this budget.
    public func activate() {
        Self.registryLock.lock()
        Self.active.append(self)
        Self.registryLock.unlock()
    }

    /// Ends `activate`: files created afterwards no longer count.
    public func deactivate() {
        Self.registryLock.lock()
        Self.active.removeAll { $0 === self }
        Self.registryLock.unlock()
    }

    /// The budget of the staging folder `path` lies in, if a run under way has one. Asked once
    /// per file created.
    public static func covering(_ path: String) -> StagingBudget? {
        registryLock.lock()
        defer { registryLock.unlock() }
        return active.first { path.hasPrefix($0.folder + "/") }
    }
}
