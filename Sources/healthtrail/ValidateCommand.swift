import ArgumentParser
import HealthTrailKit

#if canImport(Glibc)
import Glibc
#endif

/// `healthtrail validate FILE...`: checks pipeline files without running them.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check pipeline files: every mistake, with its line.",
        discussion: """
            A pipeline file (YAML, version 1) declares an unattended run: kind (person: one person's \
            newest export; cohort: every archive of a study), input.path (a file, a folder or a glob \
            like ~/study/*.zip), output, outputs (csv, geojson, svg, report, dp), run settings, and under \
            privacy the differentially private releases (a release file such as \
            pipelines/releases.yaml, or an inline list), their budget and, for a cohort, the \
            pseudonym key. ~ is your home; other relative paths are relative to the pipeline file.

            Privacy unit: privacy.unit may be left out when every release states its own \
            privacy_unit. When privacy.unit is given it fills in the releases that leave theirs out, \
            and a release stating a different unit is a mistake. A person pipeline cannot use the \
            unit person (one archive holds one person).

            For each file, prints "FILE: ok — <what it will do>" or every problem as \
            file:line:column: key: message (problems in the release file it names carry that \
            file's name). Existence of the input archives and of the key file is checked by the run.

            Commented examples: pipelines/nightly.yaml (a person, every night) and \
            pipelines/cohort.yaml (a study, with pseudonyms and person-level privacy).

            Exit codes: 0 every file is valid, 1 a file could not be read, 2 a file has mistakes \
            (or a usage error); with several files, the worst of them.
            """
    )

    @Argument(help: ArgumentHelp("Pipeline files (YAML).", valueName: "file"))
    var files: [String]

    @OptionGroup var versionOption: VersionOption

    /// Exits as `run --pipeline` would on the worst file: 2 (an invalid pipeline, as the
    /// README's exit codes say) over 1 (a file that cannot be read) over 0.
    func run() throws {
        var status = ExitStatus.ok
        for file in files {
            do {
                let spec = try PipelineFile.load(path: file)
                print("\(file): ok — \(spec.summary)")
            } catch let invalid as PipelineInvalid {
                for line in invalid.lines { writeToStandardError(line + "\n") }
                status = max(status, ExitStatus.usage)
            } catch {
                writeToStandardError("\(error)\n")
                status = max(status, ExitStatus.failed)
            }
        }
        if status != ExitStatus.ok { throw ExitCode(status) }
    }
}
