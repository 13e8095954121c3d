import ArgumentParser
import HealthTrailKit

/// `healthtrail`: the root command; the work is in its subcommands.
struct HealthTrailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthtrail",
        abstract: "Turn Apple Health export archives into analytics files (CSV, GeoJSON, SVG, DP releases).",
        discussion: """
            Give it the export.zip from the Health app (Profile ▸ Export All Health Data), an unzipped \
            apple_health_export/ folder, or a bare export.xml. The archive is streamed: nothing is \
            extracted to disk and memory stays flat however large the export is. For cron and \
            cohorts, a pipeline file declares the run (see pipelines/nightly.yaml, pipelines/cohort.yaml).

            Examples:
              healthtrail run ~/Downloads/export.zip --out ~/health
              healthtrail validate pipelines/nightly.yaml
              healthtrail run --pipeline pipelines/nightly.yaml --quiet
              healthtrail run --pipeline pipelines/cohort.yaml --jobs 2
              healthtrail inspect ~/Downloads/export.zip
              healthtrail synth /tmp/fake-export.zip --days 30 --seed 7
            """,
        subcommands: [
            RunCommand.self, ValidateCommand.self, PartialCommand.self, MergeCommand.self, ReleaseCommand.self,
            KeygenCommand.self, InspectCommand.self,
            SynthCommand.self, DPSampleCommand.self,
        ]
    )

    @OptionGroup var versionOption: VersionOption
}
