import Dispatch
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM or SIGINT during a run (systemd stopping cron, a timeout, Ctrl-C): the run stops
/// at once, its staging folder is removed, and one line says the previous outputs were kept.
///
/// The exit code is 128 + the signal (143 for SIGTERM, 130 for SIGINT), as a shell reports a
/// process killed by it. A signal that arrives while the outputs are being renamed into place
/// leaves the staging folder alone: its commit journal makes the next run finish the commit.
public enum Interruption {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var staging: OutputStaging?
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    /// Watches SIGTERM and SIGINT for the life of the process (idempotent). The command-line
    /// tool calls it; a program embedding the library keeps its own signal handling.
    public static func install() {
        lock.lock(); defer { lock.unlock() }
        guard sources.isEmpty else { return }
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)   // the dispatch source, not the default action, handles it
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { interrupted(by: signalNumber) }
            source.resume()
            sources.append(source)
        }
    }

    /// The staging folder a signal should remove (nil once the run is over).
    static func guarding(_ folder: OutputStaging?) {
        lock.lock(); staging = folder; lock.unlock()
    }

    static func interrupted(by signalNumber: Int32) {
        lock.lock()
        let folder = staging
        lock.unlock()
        let name = signalNumber == SIGTERM ? "SIGTERM" : "SIGINT"
        var message = "interrupted by \(name): nothing was replaced, the previous outputs are kept as they were"
        if let folder {
            if folder.isCommitting {
                message = "interrupted by \(name) while moving the outputs into place: the next run completes it"
            } else {
                folder.discard()
            }
        }
        HealthTrailLog.fatal(message, event: "run.interrupted")
        _exit(128 + signalNumber)
    }
}
