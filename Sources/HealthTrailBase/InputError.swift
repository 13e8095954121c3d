/// A fatal problem with an input or output, reported as one line naming the file, entry and line.
///
/// The description never contains a value read from the health data: only names, counts,
/// offsets and line numbers, so it is safe to print in logs.
public struct InputError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file on disk the problem is in (archive, export.xml, folder or output path).
    public var file: String
    /// The entry inside an archive, when the problem is in one.
    public var entry: String?
    /// The 1-based line in the entry's text, when known.
    public var line: Int?
    /// What went wrong, in words a user can act on.
    public var message: String

    public init(file: String, entry: String? = nil, line: Int? = nil, _ message: String) {
        self.file = file
        self.entry = entry
        self.line = line
        self.message = message
    }

    public var description: String {
        var where_ = file
        if let entry { where_ += ": entry \(entry)" }
        if let line { where_ += ": line \(line)" }
        // One line, whatever an entry name or a message carries (a newline in a zip entry name).
        return "\(where_): \(message)".map { $0.isNewline || ($0.asciiValue.map { $0 < 0x20 } ?? false) ? "?" : String($0) }.joined()
    }
}
