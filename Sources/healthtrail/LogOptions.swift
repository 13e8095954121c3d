import ArgumentParser
import HealthTrailKit
import HealthTrailRun
import Logging

/// `--log-format` and `--log-level`, shared by the commands that run unattended.
struct LogOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Log lines as text (people) or json (one object per line, for log shippers).", valueName: "format"))
    var logFormat: LogFormat = .text

    @Option(
        help: ArgumentHelp(
            "Least severe events logged: trace, debug, info, notice, warning, error, critical (default: info; warning with --quiet).",
            valueName: "level"))
    var logLevel: Logger.Level?

    /// Installs the one-line log backend; `quiet` keeps only warnings and errors unless a level is given.
    func bootstrap(quiet: Bool) {
        HealthTrailLog.bootstrap(format: logFormat, level: logLevel ?? (quiet ? .warning : .info))
    }
}

extension LogFormat: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}
