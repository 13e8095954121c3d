import Foundation
import HealthTrailArchive
import HealthTrailBase

/// Reads pipeline files (`pipelines/nightly.yaml`, `pipelines/cohort.yaml`): YAML, version 1.
///
/// Loading checks everything that can be checked without running: the YAML itself, every key
/// against the schema, the settings against each other, the release file a pipeline names and
/// the releases against the pipeline. It reports every problem at once, each at its line.
/// Whether the input has archives and the key file exists is the run's business: they may
/// legitimately appear between validating a file and the cron run that uses it.
package enum PipelineFile {
    /// Reads and checks the pipeline file at `path`.
    ///
    /// - Parameters:
    ///   - path: the file; relative paths are relative to the current folder, and messages show
    ///     the path as given.
    ///   - home: what `~` in the file stands for (default: $HOME).
    /// - Throws: `PipelineInvalid` with every problem found; `InputError` when the file cannot
    ///   be read at all.
    package static func load(
        path: String,
        home: String = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
    ) throws -> PipelineSpec {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw InputError(file: path, "cannot read the pipeline file")
        }
        let absolute =
            PipelinePaths.resolve(path, home: home, folder: FileManager.default.currentDirectoryPath)
            ?? PipelinePaths.standardised(FileManager.default.currentDirectoryPath + "/" + path)
        var walker = YAMLSchemaWalker()
        guard let root = walker.parse(text) else { throw PipelineInvalid(file: path, problems: walker.problems) }
        // Releases may leave privacy_unit out only when the pipeline states one to fill it in.
        let unitGiven = root["privacy"]?["unit"].map { !YAMLValue.isNull($0) } ?? false
        walker.check(root, PipelineSchema.pipeline(unitGiven: unitGiven), path: "")
        var reader = PipelineSpecReader(walker: walker, file: absolute, shownFile: path, home: home)
        let spec = reader.read(root)
        guard let spec, reader.problems.isEmpty else {
            let problems =
                reader.problems.isEmpty
                ? [PipelineProblem(line: 1, column: 1, keyPath: "", message: "not a pipeline file")] : reader.problems
            throw PipelineInvalid(file: path, problems: problems)
        }
        return spec
    }
}
