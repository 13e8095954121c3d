import Foundation

/// Work started on its own thread now and waited for later: stages that need nothing from the
/// ones running meanwhile (hashing the archive, drawing the overview maps) come off the critical
/// path. `value()` rethrows the task's error.
///
/// `@unchecked Sendable`: `work` is stored before the thread starts and used by it alone;
/// `result` is written once, by the task's thread before it signals `done`, and read only after
/// waiting for `done`, which orders the write before every read.
final class BackgroundTask<T>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var work: (() throws -> T)?
    private var result: Result<T, Error>?

    /// Starts `work` on a thread of its own. What it captures must be given up by the caller or
    /// only read by both threads meanwhile (the route tracks, read-only once prepared).
    init(_ work: @escaping () throws -> T) {
        self.work = work
        let thread = Thread { [self] in
            let work = self.work!
            self.work = nil
            result = Result { try work() }
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Waits for the task; its value or its error.
    func value() throws -> T {
        done.wait()
        done.signal()   // later calls return at once
        return try result!.get()
    }
}
