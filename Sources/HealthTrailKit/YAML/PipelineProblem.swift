/// One mistake in a pipeline file (or the release file it names), where it is and what is wrong.
///
/// Messages name keys and the settings' own values, never health data: a pipeline file holds
/// only settings, so a problem is safe to print in cron mail and logs.
package struct PipelineProblem: Sendable, Equatable, CustomStringConvertible {
    /// 1-based line of the offending key or value (of the enclosing mapping for a missing key).
    package var line: Int
    /// 1-based column, counted in Unicode scalars as the YAML parser does.
    package var column: Int
    /// Where in the document: `join_tolerance_s`, `maps.size`, `privacy.releases[2].epsilon`;
    /// empty for the whole document (a syntax error).
    package var keyPath: String
    /// What is wrong and what is expected, without the file or position.
    package var message: String
    /// The file the problem is in when it is not the pipeline file itself (the release file a
    /// pipeline names); nil for the file being loaded.
    package var file: String?

    /// A problem at `line`:`column` of the file being loaded (or of `file`).
    package init(line: Int, column: Int, keyPath: String, message: String, file: String? = nil) {
        self.line = line
        self.column = column
        self.keyPath = keyPath
        self.message = message
        self.file = file
    }

    /// `join_tolerance_s: must be 0…3600 seconds, got 5000`.
    package var description: String { keyPath.isEmpty ? message : "\(keyPath): \(message)" }
}
