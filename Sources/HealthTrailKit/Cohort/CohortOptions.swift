import HealthTrailRun

/// What a cohort run on one machine is asked to do (`healthtrail run --pipeline cohort.yaml`).
package struct CohortOptions: Sendable {
    /// The cohort pipeline (kind `cohort`): key file, outputs, releases, settings.
    package var spec: PipelineSpec
    /// The `healthtrail` binary each person's `partial` runs in.
    package var executable: String
    /// Where `persons/`, `partials/`, `cohort/`, `dp/` and `cohort.json` go.
    package var outputDirectory: String
    /// One archive per person.
    package var archives: [String] = []
    /// Archives processed at once, each in its own process.
    package var jobs: Int = 1
    /// Redo persons whose outputs are up to date.
    package var force = false
    /// Run settings given on the command line, passed on to every `partial`.
    package var childArguments: [String] = []
    /// The log format the children write in (their lines are passed through).
    package var logFormat: LogFormat = .text
    /// Log how many archives, which persons were processed or unchanged, and the time taken.
    /// False for a cohort that publishes DP releases: the log and cron's mail then say the
    /// same whoever is in the cohort and whatever changed (cohort.json, owner-only, keeps it).
    package var logsFigures = true

    package init(spec: PipelineSpec, executable: String) {
        self.spec = spec
        self.executable = executable
        self.outputDirectory = spec.output
    }
}
