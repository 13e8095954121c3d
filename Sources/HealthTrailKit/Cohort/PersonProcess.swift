import Foundation
import HealthTrailRun
import Logging

/// One person of a cohort: `healthtrail partial` on their archive, in a child process.
enum PersonProcess {
    static func run(archive: String, pseudonym: String, options: CohortOptions) -> CohortReport.Person {
        let out = options.outputDirectory
        let process = Process()
        process.executableURL = URL(fileURLWithPath: options.executable)
        process.arguments =
            [
                "partial", archive, "--pipeline", options.spec.file,
                "--out", out + "/partials/\(pseudonym).partial", "--outputs", out + "/persons/\(pseudonym)",
                "--quiet", "--log-format", "json",
            ]
            + (options.force ? ["--force"] : []) + (options.logsFigures ? ["--verbose"] : []) + options.childArguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        var status: String, failure: String?
        do {
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            // The child logs JSON lines; its last line, when it failed, is the error.
            var events = text.split(separator: "\n").compactMap { ChildLogLine(String($0), archive: archive, pseudonym: pseudonym) }
            switch (process.terminationReason, process.terminationStatus) {
            case (.exit, 0): status = "ok"
            case (.exit, 3): status = "unchanged"
            case (.exit, let code):
                status = "failed"
                failure = (events.last?.level == .error ? events.popLast()?.message : nil) ?? "exit status \(code)"
            case (_, let signal):
                status = "failed"
                failure = "the process ended on signal \(signal)"
            }
            // The child's warnings pass through this process's log, in its format. Without the
            // figures, only warnings and errors: an info line (`run.nothing_new`) would tell an
            // unchanged person from a changed one.
            for event in events where options.logsFigures || event.level >= .warning {
                HealthTrailLog.logger.log(level: event.level, "\(event.message)", metadata: event.metadata)
            }
        } catch {
            status = "failed"
            failure = "cannot start \(options.executable): \(error)"
        }
        return .init(person: pseudonym, status: status, error: failure)
    }

}

/// One JSON log line of a person's process, its text stripped of the archive's path: the
/// cohort's report and log name persons by pseudonym only.
struct ChildLogLine {
    var level: Logger.Level
    var message: String
    var metadata: Logger.Metadata = [:]

    init?(_ line: String, archive: String, pseudonym: String) {
        let name = URL(fileURLWithPath: archive).lastPathComponent
        func scrub(_ text: String) -> String {
            text.replacingOccurrences(of: archive, with: "<archive of \(pseudonym)>")
                .replacingOccurrences(of: name, with: "<archive of \(pseudonym)>")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let message = object["message"] as? String
        else {
            // Not a log line (a crash's last words): kept as an error, scrubbed.
            guard !line.isEmpty else { return nil }
            (level, self.message) = (.error, scrub(line))
            return
        }
        level = (object["level"] as? String).flatMap(Logger.Level.init(rawValue:)) ?? .error
        self.message = scrub(message)
        for (key, value) in object where !["time", "level", "message"].contains(key) {
            metadata[key] = .string(scrub("\(value)"))
        }
    }
}
