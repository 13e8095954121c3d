import ArgumentParser
import HealthTrailKit
import HealthTrailRun

/// `-V`/`--version`, taken by the root command and by every subcommand alike.
///
/// ArgumentParser's own version flag has no short name, so HealthTrail declares both names
/// itself. `Main` answers a lone `-V` or `--version` before parsing, as ArgumentParser does for
/// `--help`: `healthtrail inspect -V` prints the version even though `inspect` lacks its archive.
/// The flag declared here makes the names appear in help, the man page and the completions, and
/// catches them when bundled with other short flags (`-qV`).
struct VersionOption: ParsableArguments {
    @Flag(name: [.customShort("V"), .customLong("version")], help: "Print the version and exit.")
    var version = false

    func validate() throws {
        if version { throw CleanExit.message(HealthTrailVersion.current) }
    }

    /// True when `arguments` (without the program name) ask for the version: `-V` or
    /// `--version` before any `--`, and no help flag, which wins as it does in ArgumentParser.
    static func isRequested(in arguments: [String]) -> Bool {
        let options = arguments.prefix { $0 != "--" }
        if options.contains(where: { $0 == "-h" || $0 == "--help" || $0 == "-help" }) { return false }
        return options.contains { $0 == "-V" || $0 == "--version" }
    }
}
