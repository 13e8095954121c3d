/// A pipeline file (or a release file) that cannot be used, with every problem found in it.
///
/// Thrown by `PipelineFile.load` and `ReleaseSpec.load`'s pipeline counterpart: all problems at
/// once, so one round of edits fixes a file rather than one round per mistake.
package struct PipelineInvalid: Error, CustomStringConvertible, Sendable {
    /// The pipeline file as it was given to the loader (relative paths stay relative in messages).
    package var file: String
    /// Every problem, in file then line order.
    package var problems: [PipelineProblem]

    /// Problems are sorted by file (the pipeline file first), line and column.
    package init(file: String, problems: [PipelineProblem]) {
        self.file = file
        self.problems = problems.sorted {
            ($0.file ?? "", $0.line, $0.column) < ($1.file ?? "", $1.line, $1.column)
        }
    }

    /// One line a problem, compiler style: `nightly.yaml:12:3: join_tolerance_s: must be 0…3600 seconds, got 5000`.
    package var lines: [String] {
        problems.map { "\($0.file ?? file):\($0.line):\($0.column): \($0)" }
    }

    /// `lines`, joined with newlines.
    package var description: String { lines.joined(separator: "\n") }
}
