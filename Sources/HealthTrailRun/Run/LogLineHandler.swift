import Foundation
import HealthTrailBase
import HealthTrailDecode
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// A swift-log backend that writes every event as exactly one line on stderr.
///
/// One `write(2)` per line, so lines from the parallel jobs of a cohort never interleave.
/// Events carry an `event` metadata key (`run.finished`, `cohort.person_failed`, …) that log
/// shippers can filter on. What goes into a line is chosen by the callers, and they log names,
/// counts, durations and pseudonyms only: never a value from the health data.
package struct LogLineHandler: LogHandler {
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]
    package let label: String
    package let format: LogFormat

    /// - Parameters:
    ///   - label: the logger's label (`healthtrail`).
    ///   - format: text or JSON lines.
    ///   - level: the least severe level written.
    package init(label: String, format: LogFormat, level: Logger.Level = .info) {
        self.label = label
        self.format = format
        self.logLevel = level
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var all = metadata
        if let explicit = event.metadata { all.merge(explicit) { $1 } }
        Self.writeLine(Self.line(time: Date(), level: event.level, message: event.message.description, metadata: all, format: format))
    }

    /// One formatted line (with its newline).
    package static func line(
        time: Date, level: Logger.Level, message: String, metadata: Logger.Metadata,
        format: LogFormat
    ) -> String {
        let stamp = Timestamp(utcSeconds: Int64(time.timeIntervalSince1970.rounded(.down))).utcString
        switch format {
        case .text:
            // `healthtrail: run finished [run.finished] (records=120345 seconds=3.7)`, with the
            // level named from warnings up (`healthtrail: error: …`, the shape docs/bad-input.md
            // documents). No time: a terminal does not need it, and cron's mail and journald add
            // their own; `json` carries it.
            let event = metadata["event"].map { "\($0)" }
            let rest = metadata.filter { $0.key != "event" }.sorted { $0.key < $1.key }
                .map { "\($0.key)=\(quotedIfNeeded("\($0.value)"))" }
            var text = "healthtrail: " + (level >= .warning ? "\(level): " : "") + message
            if let event, level < .error { text += " [\(event)]" }
            if !rest.isEmpty { text += " (" + rest.joined(separator: " ") + ")" }
            return text + "\n"
        case .json:
            var object: [String: Any] = ["time": stamp, "level": level.rawValue, "message": message]
            for (key, value) in metadata { object[key] = jsonValue(value) }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            return String(decoding: data, as: UTF8.self) + "\n"
        }
    }

    static func jsonValue(_ value: Logger.MetadataValue) -> Any {
        switch value {
        case .string(let s): return s
        // Numbers logged as numbers (`.stringConvertible(42)`) stay numbers in JSON.
        case .stringConvertible(let c):
            switch c {
            case let i as Int: return i
            case let i as Int64: return i
            case let d as Double: return d.isFinite ? d : "\(d)"
            case let b as Bool: return b
            default: return "\(c)"
            }
        case .array(let a): return a.map(jsonValue)
        case .dictionary(let d): return d.mapValues(jsonValue)
        }
    }

    static func quotedIfNeeded(_ s: String) -> String {
        s.contains(where: { $0 == " " || $0 == "\"" }) ? "\"" + s.replacingOccurrences(of: "\"", with: "\\\"") + "\"" : s
    }

    /// Writes `text` on stderr in one `write(2)`, erasing a progress line drawn there first.
    static func writeLine(_ text: String) {
        TerminalLine.stderr.writeLine(text)
    }
}
