import ArgumentParser
import HealthTrailArchive
import HealthTrailKit

#if canImport(Glibc)
import Glibc
#endif

/// `healthtrail release --spec FILE (--data DIR | --partial FILE --out DIR --ledger FILE)`.
struct ReleaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release",
        abstract: "Release differentially private aggregates of a run's outputs or a cohort's merged partial.",
        discussion: """
            Reads the release spec (see pipelines/releases.yaml): for each release, the contributions \
            are bounded per privacy unit (at most max_partitions partitions and max_contributions \
            values each, clamped to the declared bounds), one noisy value is drawn per public \
            partition (discrete Laplace for epsilon, discrete Gaussian for rho, sampled exactly from \
            the system's secure random source), and dp/<release>.csv is written with the mechanism, \
            epsilon or rho, bounds and 95% error bar on every row.

            Every spend is recorded in the budget ledger before anything is published. Running the \
            same release on the same data again answers from the ledger (same values, no new \
            spend); a release that would exceed the spec's budget is refused and writes nothing; a \
            ledger edited by hand is detected and refuses further releases.

            For a cohort, --partial takes the merged partial aggregate of everyone (see \
            `healthtrail merge`) instead of one run's folder: it must have been computed for the \
            releases of this spec, and --out and --ledger must be given.

            --plan prints, from the spec alone, what each release would publish and the error its \
            values would carry, and what the spec would spend: tune a spec before spending budget.

            Examples:
              healthtrail release --spec pipelines/releases.yaml --plan
              healthtrail run export.zip --out ~/health
              healthtrail release --spec pipelines/releases.yaml --data ~/health
              healthtrail release --spec pipelines/releases.yaml --partial cohort.partial \\
                --out cohort/dp --ledger cohort/privacy-ledger.jsonl
            """
    )

    @Option(help: ArgumentHelp("The release spec (YAML, like pipelines/releases.yaml).", valueName: "file"))
    var spec: String?

    @Option(help: ArgumentHelp("A pipeline file whose privacy.releases to release (instead of --spec).", valueName: "file"))
    var pipeline: String?

    @Option(help: ArgumentHelp("The output folder of `healthtrail run` to read.", valueName: "dir"))
    var data: String?

    @Option(help: ArgumentHelp("A merged partial aggregate to release instead of --data.", valueName: "file"))
    var partial: String?

    @Option(help: ArgumentHelp("Where dp/<release>.csv go (default: <data>/dp).", valueName: "dir"))
    var out: String?

    @Option(help: ArgumentHelp("The budget ledger (default: <data>/privacy-ledger.jsonl).", valueName: "file"))
    var ledger: String?

    @Flag(
        help: ArgumentHelp(
            "Print what each release would publish and spend, from the spec alone: its partitions, its guarantee and the 95 % error of every noisy value. Reads no data, draws no noise, records nothing."
        ))
    var plan = false

    @Flag(name: .shortAndLong, help: "No summary.")
    var quiet = false

    @OptionGroup(title: "Logging") var logging: LogOptions

    @OptionGroup var versionOption: VersionOption

    func validate() throws {
        guard (spec == nil) != (pipeline == nil) else { throw ValidationError("give exactly one of --spec and --pipeline") }
        if plan {
            guard data == nil, partial == nil, out == nil, ledger == nil else {
                throw ValidationError("--plan reads the spec alone: leave out --data, --partial, --out and --ledger")
            }
            return
        }
        guard (data == nil) != (partial == nil) else { throw ValidationError("give exactly one of --data and --partial") }
        // A partial has no run folder to put the releases and the ledger in.
        if partial != nil, out == nil || ledger == nil { throw ValidationError("--partial needs --out and --ledger") }
    }

    func run() throws {
        logging.bootstrap(quiet: quiet)
        umask(0o077)
        let releaseSpec: ReleaseSpec
        if let spec {
            releaseSpec = try ReleaseSpec.load(path: spec)
        } else {
            guard let releases = try PipelineFile.load(path: pipeline!).releases else {
                throw InputError(file: pipeline!, "the pipeline declares no privacy.releases")
            }
            releaseSpec = releases
        }
        if plan {
            print(try ReleasePlan(spec: releaseSpec).text, terminator: "")
            return
        }
        let outcomes: [ReleaseRunner.Outcome]
        if let partial, let out, let ledger {
            outcomes = try ReleaseRunner.run(
                spec: releaseSpec, partial: try PartialAggregate.read(path: partial),
                outputDirectory: out, ledgerPath: ledger)
        } else {
            let data = data ?? "."
            outcomes = try ReleaseRunner.run(
                spec: releaseSpec, dataDirectory: data, outputDirectory: out ?? data + "/dp",
                ledgerPath: ledger ?? data + "/privacy-ledger.jsonl")
        }
        if !quiet { Self.printOutcomes(outcomes) }
    }

    /// One line per release: its guarantee, where it went, and whether it spent budget.
    static func printOutcomes(_ outcomes: [ReleaseRunner.Outcome]) {
        for o in outcomes {
            let replay = o.charged ? "" : " (already released on this data: nothing spent)"
            print("healthtrail: \(o.id): \(o.partitions) partitions, \(o.guarantee) → \(o.path)\(replay)")
        }
    }
}
