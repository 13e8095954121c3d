import ArgumentParser
import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailKit

#if canImport(Glibc)
import Glibc
#endif

/// `healthtrail merge PARTIAL... [--list FILE] --out MERGED`.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Add up partial aggregates of a cohort into one (exactly, in any order).",
        discussion: """
            Each partial holds the bounded, noise-free totals of one or more people for the releases \
            of one spec. Merging adds them up: the same partials give the same bytes in any order or \
            grouping, so merges of merges are fine. A partial given twice with the same bytes (a \
            task result delivered twice) counts once; a person in two different partials, partials \
            of another spec or another healthtrail version are refused. Release the result with \
            `healthtrail release --partial`.

            Example:
              healthtrail merge --list partials.txt --out cohort.partial
              healthtrail release --pipeline cohort.yaml --partial cohort.partial --out dp
            """
    )

    @Argument(help: ArgumentHelp("Partial aggregate files.", valueName: "partial"))
    var partials: [String] = []

    @Option(help: ArgumentHelp("A file listing more partials, one path a line.", valueName: "file"))
    var list: String?

    @Option(help: ArgumentHelp("The merged partial aggregate to write (replaced atomically).", valueName: "file"))
    var out: String

    @Flag(name: .shortAndLong, help: "No summary; only warnings and errors logged.")
    var quiet = false

    @OptionGroup(title: "Logging") var logging: LogOptions

    @OptionGroup var versionOption: VersionOption

    func run() throws {
        logging.bootstrap(quiet: quiet)
        umask(0o077)
        var paths = partials
        if let list {
            guard let text = try? String(contentsOfFile: list, encoding: .utf8) else {
                throw InputError(file: list, "cannot read the list of partials")
            }
            paths += text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        guard !paths.isEmpty else { throw ValidationError("give partial aggregate files, or --list FILE") }
        let merged = try PartialAggregate.merge(try paths.map(PartialAggregate.read(path:)))
        try merged.write(to: out)
        guard !quiet else { return }
        print("healthtrail: merged \(paths.count) partials (\(merged.persons.count) persons) → \(out)")
    }
}
