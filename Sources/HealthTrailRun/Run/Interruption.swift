import Dispatch
import Foundation
import HealthTrailCommit
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM or SIGINT during a run (systemd stopping cron, a timeout, Ctrl-C): the run stops
/// at once, its staging folder is removed, and one line says the previous outputs were kept.
///
/// The exit code is 128 + the signal (143 for SIGTERM, 130 for SIGINT), as a shell reports a
/// process killed by it. A signal that arrives while the outputs are being moved into place
/// waits until they all are (moments), and says so: the folder is never left mixing two runs.
/// (SIGKILL cannot be waited for: the next run finishes such a commit, `OutputCommit`.)
package enum Interruption {
    private static let state = Mutex(State())

    /// What the run's threads and the signal's handler share, changed under `state`'s lock.
    private struct State {
        /// The staging folder a signal should remove (nil once the run is over).
        var staging: OutputStaging?
        /// The dispatch sources that handle SIGTERM and SIGINT, kept for the life of the process.
        var sources: [DispatchSourceSignal] = []
        /// The lock of the folder the run holds; weak, so that it is released when the run ends.
        weak var lockHeld: OutputLock?
        /// True once a signal is being handled.
        var stopping = false
    }

    /// Watches SIGTERM and SIGINT for the life of the process (idempotent). The command-line
    /// tool calls it; a program embedding the library keeps its own signal handling.
    package static func install() {
        state.withLock { state in
            guard state.sources.isEmpty else { return }
            state.sources = watchSignals()
        }
    }

    /// Starts handling SIGTERM and SIGINT; returns the dispatch sources that do.
    private static func watchSignals() -> [DispatchSourceSignal] {
        // A parent may start this process with the signals blocked (a spawn from one of its
        // worker threads passes their mask on): unblocked here, on the main thread, so that a
        // signal aimed at this thread, or at the threads it starts, is handled too.
        var watched = sigset_t()
        sigemptyset(&watched)
        for signalNumber in [SIGTERM, SIGINT] { sigaddset(&watched, signalNumber) }
        pthread_sigmask(SIG_UNBLOCK, &watched, nil)
        return [SIGTERM, SIGINT].map { signalNumber in
            signal(signalNumber, SIG_IGN)   // the dispatch source, not the default action, handles it
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { interrupted(by: signalNumber) }
            source.resume()
            return source
        }
    }

    /// The staging folder a signal should remove (nil once the run is over).
    static func guarding(_ folder: OutputStaging?) {
        state.withLock { $0.staging = folder }
    }

    /// The output folder's lock, whose recorded pid a signal clears before the process exits:
    /// a run stopped this way ended cleanly, and the next one must not warn that it did not.
    static func holding(_ lock: OutputLock) {
        state.withLock { $0.lockHeld = lock }
    }

    /// True once a signal is being handled: the process is about to exit with its code.
    static var isStopping: Bool {
        state.withLock { $0.stopping }
    }

    /// For a thread about to report an error and exit: when a signal is being handled, the error
    /// is most likely its consequence (the staging folder removed under the run), and the
    /// handler's line and exit code are the true ones, so this thread waits for that exit.
    package static func yieldToSignalHandler() {
        while isStopping { sleep(60) }
    }

    static func interrupted(by signalNumber: Int32) {
        let (folder, held) = state.withLock { state in
            state.stopping = true
            return (state.staging, state.lockHeld)
        }
        let name = signalNumber == SIGTERM ? "SIGTERM" : "SIGINT"
        var message = "interrupted by \(name)"
        if let folder {
            message +=
                folder.stop()
                ? ": the new outputs were already in place, and are complete"
                : ": nothing was replaced, the previous outputs are kept as they were"
        }
        // After `stop`: a commit it waited for has ended, and nothing of the run is left to finish.
        held?.clearHolder()
        HealthTrailLog.fatal(message, event: "run.interrupted")
        _exit(128 + signalNumber)
    }
}
