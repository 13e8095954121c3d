import ArgumentParser
import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailKit

#if canImport(Glibc)
import Glibc
#endif

/// `healthtrail release --spec FILE (--data DIR | --partial FILE --out DIR)`.
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

            A release is published per period: its whole from…to (cadence: once, the default), \
            or each whole ISO week or calendar month (cadence: week or month), from the second \
            day after the period ends. A period is \
            drawn once; every later run publishes it again exactly as drawn, whatever the data \
            says now, and spends nothing. Whether a period is drawn, answered or not yet due \
            depends on the spec and the date only, never on the data.

            Every spend is recorded first in the subject's budget ledger, which lives in the \
            budget folder (--budget-dir, default $XDG_STATE_HOME/healthtrail or \
            ~/.local/state/healthtrail), bound to a key kept there: a new output folder continues \
            the same budget as long as the budget folder, key and subject stay the same. A release that would exceed the budget is refused and writes \
            nothing; a ledger cut, edited, swapped or opened with another limit is refused.

            For a cohort, --partial takes the merged partial aggregate of everyone (see \
            `healthtrail merge`) instead of one run's folder: it must have been computed for the \
            releases of this spec, and --out must be given.

            --plan prints, from the spec alone, what each release would publish and the error its \
            values would carry, and what the spec would spend: tune a spec before spending budget.

            Examples:
              healthtrail release --spec pipelines/releases.yaml --plan
              healthtrail run export.zip --out ~/health
              healthtrail release --spec pipelines/releases.yaml --data ~/health
              healthtrail release --pipeline cohort.yaml --partial cohort.partial --out dp
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

    @Option(
        help: ArgumentHelp(
            "The budget folder: its key and every subject's ledger (default: the pipeline's privacy.budget_dir, else $XDG_STATE_HOME/healthtrail).",
            valueName: "dir"))
    var budgetDir: String?

    @Option(help: ArgumentHelp("Whose budget to spend (default: the pipeline's privacy.subject, else self).", valueName: "name"))
    var subject: String?

    @Option(help: ArgumentHelp("A key file to bind the ledger to instead of the budget folder's own.", valueName: "file"))
    var key: String?

    @Option(help: ArgumentHelp("A ledger file to use instead of the subject's ledger in the budget folder.", valueName: "file"))
    var ledger: String?

    @Option(
        help: ArgumentHelp(
            "The date this run counts as today (default: today, UTC): a period is published from the second day after it ends.",
            valueName: "yyyy-MM-dd"))
    var asOf: String?

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
            guard data == nil, partial == nil, out == nil, ledger == nil, budgetDir == nil, asOf == nil else {
                throw ValidationError("--plan reads the spec alone: leave out --data, --partial, --out, --ledger, --budget-dir and --as-of")
            }
            return
        }
        guard (data == nil) != (partial == nil) else { throw ValidationError("give exactly one of --data and --partial") }
        // A partial has no run folder to put the releases in.
        if partial != nil, out == nil { throw ValidationError("--partial needs --out") }
        // A merged partial is a cohort's: its budget is the cohort's, never the default `self`.
        if partial != nil, spec != nil, subject == nil {
            throw ValidationError("a merged partial is a cohort's: give --pipeline (its subject and key), or name the cohort with --subject")
        }
    }

    func run() throws {
        logging.bootstrap(quiet: quiet)
        umask(0o077)
        let releaseSpec: ReleaseSpec
        var location: LedgerLocation
        // What a merged partial's rows say about its persons: the pipeline's rule, or, from a
        // bare release spec, that nothing says.
        var persons = ReleaseRunner.personsNotStated
        if let spec {
            releaseSpec = try ReleaseSpec.load(path: spec, asOf: asOf)
            location = LedgerLocation()
        } else {
            let pipelineSpec = try PipelineFile.load(path: pipeline!)
            guard let releases = pipelineSpec.releases else {
                throw InputError(file: pipeline!, "the pipeline declares no privacy.releases")
            }
            releaseSpec = releases
            location = pipelineSpec.ledgerLocation
            persons = pipelineSpec.kind == .cohort ? pipelineSpec.personsAssumption : ReleaseRunner.personsSelf
        }
        if let budgetDir { location.budgetDirectory = Self.absolute(budgetDir) }
        if let subject { location.subject = subject }
        if let key { location.keyFile = Self.absolute(key) }
        if let ledger { location.ledgerFile = Self.absolute(ledger) }
        if plan {
            print(try ReleasePlan(spec: releaseSpec).text, terminator: "")
            return
        }
        let outcomes: [ReleaseRunner.Outcome]
        if let partial, let out {
            outcomes = try ReleaseRunner.run(
                spec: releaseSpec, partial: try PartialAggregate.read(path: partial),
                outputDirectory: out, ledger: location, asOf: asOf, persons: persons)
        } else {
            let data = data ?? "."
            outcomes = try ReleaseRunner.run(
                spec: releaseSpec, dataDirectory: data, outputDirectory: out ?? data + "/dp", ledger: location, asOf: asOf)
        }
        if !quiet { Self.printOutcomes(outcomes, spec: releaseSpec) }
    }

    /// An absolute path: relative ones are taken from the current folder, so the ledger and
    /// key stay the same files whatever folder a later run starts in.
    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// One line per release: what it published, its guarantee, where it went, whether it spent
    /// budget and when its next period is due; then what each privacy unit will have spent
    /// once every period is out (the spec's, as `--plan` states it: the same every night);
    /// then the ledger.
    static func printOutcomes(_ outcomes: [ReleaseRunner.Outcome], spec: ReleaseSpec) {
        for o in outcomes {
            print("healthtrail: " + ReleaseRunner.summary(of: o))
        }
        for line in (try? ReleasePlan(spec: spec).totalLines) ?? [] { print("healthtrail: this spec: " + line) }
        if let ledger = outcomes.first?.ledgerPath { print("healthtrail: budget ledger: \(ledger)") }
    }
}
