import ArgumentParser
import HealthTrailKit
#if canImport(Glibc)
import Glibc
#endif

/// `healthtrail release --spec FILE --data DIR`.
struct ReleaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release",
        abstract: "Release differentially private aggregates of a run's outputs.",
        discussion: """
        Reads the release spec (see pipelines/releases.yaml): for each release, the contributions
        are bounded per privacy unit (at most max_partitions partitions and max_contributions
        values each, clamped to the declared bounds), one noisy value is drawn per public
        partition (discrete Laplace for epsilon, discrete Gaussian for rho, sampled exactly from
        the system's secure random source), and dp/<release>.csv is written with the mechanism,
        epsilon or rho, bounds and 95% error bar on every row.

        Every spend is recorded in the budget ledger before anything is published. Running the
        same release on the same data again answers from the ledger (same values, no new
        spend); a release that would exceed the spec's budget is refused and writes nothing; a
        ledger edited by hand is detected and refuses further releases.

        Example:
          healthtrail run export.zip --out ~/health
          healthtrail release --spec pipelines/releases.yaml --data ~/health
        """
    )

    @Option(help: ArgumentHelp("The release spec (YAML).", valueName: "file"))
    var spec: String

    @Option(help: ArgumentHelp("The output folder of `healthtrail run` to read.", valueName: "dir"))
    var data: String

    @Option(help: ArgumentHelp("Where dp/<release>.csv go (default: <data>/dp).", valueName: "dir"))
    var out: String?

    @Option(help: ArgumentHelp("The budget ledger (default: <data>/privacy-ledger.jsonl).", valueName: "file"))
    var ledger: String?

    @Flag(name: .shortAndLong, help: "No summary.")
    var quiet = false

    func run() throws {
        umask(0o077)
        let releaseSpec = try ReleaseSpec.load(path: spec)
        let outcomes = try ReleaseRunner.run(spec: releaseSpec, dataDirectory: data, outputDirectory: out ?? data + "/dp",
                                             ledgerPath: ledger ?? data + "/privacy-ledger.jsonl")
        guard !quiet else { return }
        for o in outcomes {
            print("healthtrail: \(o.id): \(o.partitions) partitions → \(o.path)\(o.charged ? "" : " (already released on this data: nothing spent)")")
        }
    }
}
