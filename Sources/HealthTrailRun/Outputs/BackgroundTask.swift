import Foundation

/// Work started on its own thread now and waited for later: stages that need nothing from the
/// ones running meanwhile (hashing the archive, drawing the overview maps) come off the critical
/// path. `value()` rethrows the task's error.
final class BackgroundTask<T>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<T, Error>?

    init(_ work: @escaping () throws -> T) {
        let thread = Thread { [self] in
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
