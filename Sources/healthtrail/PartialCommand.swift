import ArgumentParser
import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailKit

#if canImport(Glibc)
import Glibc
import HealthTrailRun
#endif

/// `healthtrail partial ARCHIVE --pipeline FILE --out FILE`: one person's share of a cohort.
struct PartialCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "partial",
        abstract: "One person's partial aggregate for a cohort: bounded totals, no noise.",
        discussion: """
            Processes one archive as `run` does, then bounds its contributions to each of the cohort \
            pipeline's releases per privacy unit and writes the totals, without noise, to --out. The \
            person is named by a pseudonym: HMAC-SHA256 of the archive's name (alice.zip → alice) \
            under the pipeline's key file, so the same archive gives the same pseudonym on any \
            machine. Partials are merged exactly by `healthtrail merge` and released once by \
            `healthtrail release --partial`. `healthtrail run --pipeline cohort.yaml` does all three \
            on one machine; a Spark job (pipelines/spark/) runs this command once per archive.

            --key-file names the key when the pipeline's path to it does not hold on this machine \
            (a Spark task passes its shipped copy).

            The run's outputs go to --outputs (kept, and skipped next time when nothing changed), or \
            to a temporary folder removed afterwards.

            A partial logs nothing from the data (no count of records, workouts or faults, no \
            time): its totals are released with noise, and the log would tell them without. \
            --verbose logs them; the run's manifest.json (with --outputs) keeps them.

            Exit codes: 0 written, 1 the archive (or an output) failed, 2 usage error or invalid \
            pipeline file, 3 nothing new (same archive, version and settings, same partial): a \
            cohort run reads it, and one that publishes DP releases exits alike either way.

            Example:
              healthtrail partial alice.zip --pipeline cohort.yaml --out alice.partial
            """
    )

    @Argument(help: ArgumentHelp("One person's export (export.zip, folder or export.xml).", valueName: "archive"))
    var archive: String

    @Option(help: ArgumentHelp("The cohort pipeline file: key file, releases, settings.", valueName: "file"))
    var pipeline: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Where the partial aggregate goes.", valueName: "file"))
    var out: String

    @Option(help: ArgumentHelp("Keep the person's run outputs in this folder (default: a temporary folder, removed).", valueName: "dir"))
    var outputs: String?

    @Option(help: ArgumentHelp("The person's name before pseudonymisation (default: the archive's name without extension).", valueName: "name"))
    var person: String?

    // A Spark task gets the pipeline and its key as shipped copies in its own folder, where the
    // path the pipeline names does not exist: it points here at its copy instead.
    @Option(help: ArgumentHelp("The pseudonym key to use instead of the pipeline's privacy.key_file.", valueName: "file"))
    var keyFile: String?

    @Flag(help: "Process the archive even if --outputs already holds its outputs.")
    var force = false

    @Flag(name: .shortAndLong, help: "Only warnings and errors logged.")
    var quiet = false

    @Flag(help: "Log the run's start, end, counts, faults and time, which a partial keeps to its manifest.json otherwise.")
    var verbose = false

    @OptionGroup(title: "Run settings") var settings: RunSettings

    @OptionGroup(title: "Logging") var logging: LogOptions

    @OptionGroup var versionOption: VersionOption

    func run() throws {
        if StandardInputArchive.isRequested(archive) {
            throw StandardStreamRefused("a partial names its person after the archive's file: give the archive's path, not - (standard input)")
        }
        logging.bootstrap(quiet: quiet)
        Interruption.install()
        umask(0o077)
        let spec = try PipelineFile.load(path: pipeline)
        guard let keyFile = keyFile ?? spec.keyFile, let releases = spec.releases else {
            throw InputError(file: pipeline, "partial needs a cohort pipeline with privacy.key_file and privacy.releases")
        }
        var name = person ?? PersonName.of(archive: archive)
        if person == nil, let personsFile = spec.personsFile {
            guard let listed = try PersonMapping(path: personsFile).person(ofArchive: archive) else {
                throw InputError(file: personsFile, "the archive \(PersonMapping.archiveName(of: archive)) is not listed: its person is unknown")
            }
            name = listed
        }
        let pseudonym = try PseudonymKey(path: keyFile).pseudonym(for: name)
        let temporary = outputs == nil ? try Self.temporaryFolder() : nil
        defer { if let temporary { try? FileManager.default.removeItem(atPath: temporary) } }
        var options = spec.runOptions(inputPath: archive, outputDirectory: outputs ?? temporary!)
        options.inputLabel = pseudonym
        options.force = force
        options.showProgress = false
        options.logsFigures = verbose
        settings.apply(to: &options)
        guard options.formats.contains(.csv) else {
            throw ValidationError("--format must include csv: a person's partial totals are read from the CSV files")
        }
        var unchanged = false
        do {
            _ = try ExportRun.run(options)
        } catch is NothingNew {
            unchanged = true
        }
        let partial = try PartialAggregate.build(spec: releases, runDirectory: options.outputDirectory, person: pseudonym)
        if unchanged, FileManager.default.contents(atPath: out).map({ [UInt8]($0) }) == partial.encode() {
            throw NothingNew(input: pseudonym, directory: out)
        }
        try partial.write(to: out)
    }

    /// A private folder under $TMPDIR for a run whose outputs are not kept.
    static func temporaryFolder() throws -> String {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        var template = Array((base + "/healthtrail-partial-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw InputError(file: base, "cannot create a temporary folder: \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
    }
}
