import Foundation

/// One thread that makes the `write` system calls of buffered files, in the order they were
/// handed over, so that the thread filling a buffer never waits for the kernel to copy it.
///
/// During export.xml the parsing thread is the critical path and the other core has time to
/// spare: a `CSVWriter` with write-behind hands a full buffer here and fills its second one
/// meanwhile. Each writer has at most one buffer in flight, so the queue never holds more jobs
/// than there are writers.
///
/// `@unchecked Sendable`: `jobs` is read and written with `condition` locked. The jobs are not
/// `Sendable` closures: each submitter hands over what its job uses (a full buffer, a file
/// descriptor) and waits for the job's signal before touching it again.
package final class WriteBehindQueue: @unchecked Sendable {
    /// The process's queue for `write`s, started on first use and never stopped (its thread
    /// sleeps when idle).
    package static let shared = WriteBehindQueue()
    /// A second one for the fsyncs of whole files (`OutputStaging.writeFile`): an fsync waits for
    /// the disk, and the buffers queued on `shared` must not wait behind it.
    package static let fileSyncs = WriteBehindQueue()

    private let condition = NSCondition()
    private var jobs: [() -> Void] = []

    private init() {
        let thread = Thread { [unowned self] in
            while true {
                condition.lock()
                while jobs.isEmpty { condition.wait() }
                let batch = jobs
                jobs.removeAll(keepingCapacity: true)
                condition.unlock()
                for job in batch { job() }
            }
        }
        thread.stackSize = 1 << 18
        thread.start()
    }

    /// Runs `job` on the queue's thread after every job submitted before it.
    package func submit(_ job: @escaping () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }
}
