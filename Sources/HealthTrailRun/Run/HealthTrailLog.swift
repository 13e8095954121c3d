import Foundation
import Logging
import Synchronization

/// The process's log: swift-log with HealthTrail's one-line backend.
///
/// The command-line tool calls `bootstrap` once, from its options (`--log-format`,
/// `--log-level`, `--quiet`); a program embedding HealthTrailKit may bootstrap swift-log with
/// any backend it likes, and the library's events go there.
package enum HealthTrailLog {
    /// The format chosen at bootstrap.
    private static let chosenFormat = Mutex<LogFormat?>(nil)

    /// The library's logger (label `healthtrail`).
    package static var logger: Logger { Logger(label: "healthtrail") }

    /// The format chosen at bootstrap; nil when the tool did not bootstrap (a library user).
    package static var format: LogFormat? {
        chosenFormat.withLock { $0 }
    }

    /// Installs `LogLineHandler` as the swift-log backend. Later calls change nothing.
    package static func bootstrap(format: LogFormat, level: Logger.Level) {
        chosenFormat.withLock { chosen in
            guard chosen == nil else { return }
            chosen = format
            LoggingSystem.bootstrap { LogLineHandler(label: $0, format: format, level: level) }
        }
    }

    /// The tool's last words before a non-zero exit: one `error` event in the chosen format
    /// (`healthtrail: error: …` as text, before any bootstrap too), with `metadata` beside the event.
    package static func fatal(_ message: String, event: String, metadata: Logger.Metadata = [:]) {
        var all = metadata
        all["event"] = .string(event)
        LogLineHandler.writeLine(
            LogLineHandler.line(
                time: Date(), level: .error, message: message,
                metadata: all, format: format ?? .text))
    }
}
