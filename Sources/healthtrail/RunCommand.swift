import ArgumentParser
import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailKit

#if canImport(Glibc)
import Glibc
import HealthTrailRun
#endif

/// `healthtrail run ARCHIVE --out DIR`, or `healthtrail run --pipeline FILE`.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Process an export (or a pipeline file's inputs) into CSV, GeoJSON, SVG and a manifest.",
        discussion: """
            Writes into the output folder (created owner-only): \(OutputSchema.writtenFiles.joined(separator: ", ")). \
            With --format, the tables are written as CSV, in healthtrail.db, as Parquet files, or \
            any of the three (CSV by default).

            Every route point gets the heart rate at that moment (interpolated between the samples \
            around it when both are within --join-tolerance seconds) and its zone; routes.geojson \
            draws each route in about 50 segments coloured by zone.

            Quantities are converted to one unit per kind (bpm, count, m, kcal, kg, s, ms, degC, %); \
            records/ keeps every source's own values, while daily.csv counts one source per time span \
            (Apple Watch, then iPhone, then other apps: see --source-priority). Outputs appear only when \
            the run succeeds: a failed or interrupted run leaves the previous outputs untouched.

            A malformed record (a bad date, a non-numeric value) is skipped and counted in \
            manifest.json under "faults", with its entry and line; --strict makes it fatal.

            An archive already processed into the same folder with the same content (SHA-256), tool \
            version and options is skipped in a fraction of a second (exit 3; --force redoes it). \
            One run at a time writes an output folder: a second one exits 4.

            On a terminal, a run prints a summary of what it read (counts, sizes, times) and logs \
            its start and end. Without one (cron, a pipe, a log file) a run of one export is silent \
            when it succeeds: warnings and errors only, on stderr (a cohort prints its one-line \
            summary). Each stream is judged on its own: the summary needs stdout at a terminal, the \
            progress line and the start and end need stderr at one. --verbose prints the summary and logs the start \
            and end anyway; --log-level chooses what is logged. A pipeline that publishes DP releases \
            (outputs: dp) prints no summary and logs no figure, on a terminal too: its figures would \
            tell what the releases' noise hides. It prints only what its releases published, logs \
            no count, size, time or list of persons, and exits 0 whether or not its archives \
            changed; manifest.json (and a cohort's cohort.json), owner-only, keep every figure. \
            --verbose brings the summary and the figures back, exit codes aside.

            With --pipeline FILE the inputs, output folder, outputs and settings come from a pipeline \
            file (see pipelines/nightly.yaml and pipelines/cohort.yaml; `healthtrail validate FILE` \
            checks one); options given here override the file's. A person pipeline processes the \
            newest archive of its input folder and, when its outputs include dp, releases the \
            pipeline's DP aggregates into <out>/dp/. A cohort pipeline processes every archive as one \
            person, --jobs at a time, each in its own process: per-person outputs under \
            <out>/persons/<pseudonym>/, partial aggregates under <out>/partials/, their exact merge \
            in <out>/cohort/merged.partial, and the DP releases, noise added once, in <out>/dp/. \
            A person's bad archive fails that person only: it is reported and the cohort goes on.

            Exit codes: 0 success, 1 the input or output failed (one line on stderr says which file, \
            entry and line), 2 usage error or invalid pipeline file, 3 nothing new (never for a \
            pipeline that publishes DP releases), 4 another run is writing the folder.

            Examples:
              healthtrail run ~/Downloads/export.zip --out ~/health
              healthtrail run --pipeline pipelines/nightly.yaml --quiet --log-format json
              healthtrail run --pipeline pipelines/cohort.yaml --jobs 2
            """
    )

    @Argument(
        help: ArgumentHelp(
            "The export: export.zip, an apple_health_export/ folder, or export.xml; - reads it from standard input (with --pipeline: overrides its input).",
            valueName: "archive"))
    var archive: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Output folder (created if missing; with --pipeline: overrides its output).", valueName: "dir"))
    var out: String?

    @Option(help: ArgumentHelp("A pipeline file (YAML) declaring inputs, outputs and settings.", valueName: "file"))
    var pipeline: String?

    @Option(name: RunOptionDeclaration.jobs.longName, help: RunOptionDeclaration.jobs.argumentHelp)
    var jobs: Int?

    @Flag(help: "Process the archive even if the output folder already holds its outputs (same content, version and options).")
    var force = false

    @Flag(
        name: .shortAndLong,
        help:
            "No progress line, no summary, only warnings and errors logged, even on a terminal. Without a terminal (cron) a run is as quiet unless --verbose."
    )
    var quiet = false

    @Flag(
        help:
            "Print the run's summary and log its start and end even when stdout and stderr are not a terminal; with a pipeline that publishes DP releases (outputs: dp), its counts, sizes and times too. The exit code stays the same whether or not the archives changed."
    )
    var verbose = false

    @Flag(
        help:
            "Write unknown units, unknown activity types and missing route files into manifest.json as the export names them, not as keyed hashes (for diagnosing an export; not passed to a cohort's persons)."
    )
    var debugManifest = false

    @OptionGroup(title: "Run settings") var settings: RunSettings

    @OptionGroup(title: "Logging") var logging: LogOptions

    @OptionGroup var versionOption: VersionOption

    func validate() throws {
        if pipeline == nil {
            guard archive != nil else { throw ValidationError("give the archive to process (or --pipeline FILE)") }
            guard out != nil else { throw ValidationError("missing --out: the output folder") }
        }
        if let jobs { try RunOptionDeclaration.jobs.check(jobs) }
    }

    func run() throws {
        // Unattended (stderr not a terminal: cron, a pipe): a run that succeeds logs nothing, so
        // that cron mails only failures; warnings and errors are still logged. The summary on
        // stdout is judged by stdout, below: each stream by whether a person watches it.
        logging.bootstrap(quiet: quiet || !(verbose || ProgressLine.stderrIsTerminal))
        Interruption.install()
        umask(0o077)   // health data: everything this run creates is owner-only
        guard let pipeline else {
            var options = RunOptions(inputPath: archive!, outputDirectory: out!)
            try runPerson(&options)
            return
        }
        let spec = try PipelineFile.load(path: pipeline)
        // What a pipeline that publishes DP releases prints, logs and exits with must be the same
        // for any two exports one unit apart: no figure from the data, and no "nothing new" bit.
        let publishesDP = spec.outputs.contains(.dp) && spec.releases != nil
        let figures = !publishesDP || verbose
        switch spec.kind {
        case .person:
            let input = try archive ?? PipelineInputs.archives(for: spec).last!
            var options = spec.runOptions(inputPath: input, outputDirectory: out ?? spec.output)
            if spec.outputs.contains(.dp), spec.releases != nil { options.budgetLedger = try spec.ledgerLocation.resolvedLedgerPath() }
            if spec.outputs.contains(.dp), let formats = settings.formats, !formats.contains(.csv) {
                throw ValidationError("--format must include csv: this pipeline's releases (outputs: dp) are computed from the CSV files")
            }
            // An archive already processed still gets its releases: a release that failed after
            // its run (over budget, disk full) is tried, and reported, again every night instead
            // of hiding behind "nothing new". A replay spends nothing and rewrites no file.
            options.logsFigures = figures
            var nothingNew: NothingNew?
            do { try runPerson(&options) } catch let skipped as NothingNew { nothingNew = skipped }
            if publishesDP, let releases = spec.releases {
                let folder = options.outputDirectory
                let outcomes = try ReleaseRunner.run(
                    spec: releases, dataDirectory: folder, outputDirectory: folder + "/dp", ledger: spec.ledgerLocation)
                // Printed every night: what the releases published is public, and printing it
                // only after a change would tell which nights the export changed.
                if !quiet { ReleaseCommand.printOutcomes(outcomes, spec: releases) }
                if var nothingNew {
                    if figures {
                        if nothingNew.input == StandardInputAlias.path { nothingNew.input = StandardInputArchive.label }
                        HealthTrailLog.logger.info("\(nothingNew)", metadata: ["event": "run.nothing_new"])
                    }
                    return
                }
            }
            if let nothingNew { throw nothingNew }
        case .cohort:
            if let archive, StandardInputArchive.isRequested(archive) {
                throw StandardStreamRefused("- (standard input) is one archive without a name: a cohort reads its archives by name")
            }
            if let formats = settings.formats, !formats.contains(.csv) {
                throw ValidationError("--format must include csv in a cohort: each person's partial totals are read from the CSV files")
            }
            var cohort = CohortOptions(spec: spec, executable: Self.executablePath)
            cohort.outputDirectory = out ?? spec.output
            cohort.archives = try archive.map { [$0] } ?? PipelineInputs.archives(for: spec)
            cohort.jobs = jobs ?? spec.jobs ?? ProcessInfo.processInfo.activeProcessorCount
            cohort.force = force
            cohort.childArguments = Self.forwardedArguments(CommandLine.arguments)
            cohort.logFormat = logging.logFormat
            cohort.logsFigures = figures
            let result = try CohortRun.run(cohort)
            let report = result.report
            if !quiet {
                print(figures ? report.summary(archives: result.failedArchives) : report.releaseSummary(archives: result.failedArchives))
            }
            if report.nothingNew && !publishesDP { throw NothingNew(input: pipeline, directory: cohort.outputDirectory) }
            if report.succeeded == 0 {
                throw InputError(file: pipeline, "every archive of the cohort failed (see \(cohort.outputDirectory)/cohort.json)")
            }
            if settings.strict && report.failed > 0 {
                throw InputError(file: pipeline, "\(report.failed) archive(s) failed (--strict; see \(cohort.outputDirectory)/cohort.json)")
            }
        }
    }

    /// One export into one folder (a person pipeline's, or plain `run ARCHIVE --out DIR`).
    func runPerson(_ options: inout RunOptions) throws {
        // `-`: standard input, spooled to a nameless file in the output folder (a zip is read
        // from its end); the manifest and the messages call it stdin.
        var spool: StandardInputArchive?
        if StandardInputArchive.isRequested(options.inputPath) {
            let opened = try StandardInputArchive.forRun(outputDirectory: options.outputDirectory)
            StandardInputAlias.path = opened.path
            options.inputPath = opened.path
            options.inputLabel = StandardInputArchive.label
            spool = opened
        }
        defer { withExtendedLifetime(spool) {} }
        options.force = force
        // The progress line shows the export's size and entries: a figure too.
        options.showProgress = !quiet && options.logsFigures
        options.debugManifest = debugManifest
        settings.apply(to: &options)
        let manifest = try ExportRun.run(options)
        // The summary is for a person at a terminal, or one who asks for it (--verbose).
        guard !quiet && options.logsFigures && (verbose || isatty(STDOUT_FILENO) == 1) else { return }
        let c = manifest.counts
        let records = c.recordsByType.values.reduce(0, +)
        let copies = manifest.normalisation.recordCopies.values.reduce(0, +)
        print(
            """
            healthtrail: read \(manifest.input.mainEntry) (\(megabytes(manifest.input.mainEntryBytes)) MB, export version \(manifest.input.exportVersion ?? "?")) in \(seconds(manifest.timings["export_xml_s"])); the whole run took \(seconds(manifest.timings["total_s"]))
              \(records) records of \(c.recordsByType.count) types, \(c.heartRate) heart-rate samples, \(c.workouts) workouts, \(c.routeFiles) route files (\(c.routePoints) points), \(c.ecgRecordings ?? 0) ECG recordings
              \(manifest.faults.total) malformed records skipped\(manifest.faults.total > 0 ? " (see manifest.json \"faults\")" : "")\(copies > 0 ? ", \(copies) \(copies == 1 ? "copy" : "copies") of a record counted once" : "")
            outputs in \(options.outputDirectory)/  (manifest.json lists every file and its row count)
            """)
    }

    /// This program, for the cohort's child processes.
    static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// The run settings given on this command line, passed on to each person's `partial`.
    ///
    /// What is a run setting is `RunOptionDeclaration.runSettings`'s to say, and `RunSettings`
    /// declares its options from it, so every option of the run settings is forwarded
    /// (OptionForwardingTests checks every one). `--log-level` is passed on too; the log format
    /// is the cohort's own.
    static func forwardedArguments(_ arguments: [String]) -> [String] {
        RunOptionDeclaration.forwardedArguments(arguments, alsoWithValue: ["--log-level"])
    }

    func megabytes(_ bytes: UInt64) -> String { String(Int((Double(bytes) / 1e6).rounded())) }
    func seconds(_ s: Double?) -> String {
        guard let s else { return "?" }
        return s < 10 ? "\((s * 100).rounded() / 100) s" : "\(Int(s.rounded())) s"
    }
}
