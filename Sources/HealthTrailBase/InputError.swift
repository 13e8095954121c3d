/// A fatal problem with an input or output, reported as one line naming the file, entry and line.
///
/// The description never contains a value read from the health data: only names, counts,
/// offsets and line numbers, so it is safe to print in logs.
@usableFromInline package struct InputError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file on disk the problem is in (archive, export.xml, folder or output path).
    package var file: String
    /// The entry inside an archive, when the problem is in one.
    package var entry: String?
    /// The 1-based line in the entry's text, when known.
    package var line: Int?
    /// What went wrong, in words a user can act on.
    package var message: String

    @usableFromInline package init(file: String, entry: String? = nil, line: Int? = nil, _ message: String) {
        self.file = file
        self.entry = entry
        self.line = line
        self.message = message
    }

    @usableFromInline package var description: String {
        var where_ = file
        if let entry { where_ += ": entry \(entry)" }
        if let line { where_ += ": line \(line)" }
        // One line, whatever an entry name or a message carries (a newline in a zip entry name).
        return "\(where_): \(message)".map { $0.isNewline || ($0.asciiValue.map { $0 < 0x20 } ?? false) ? "?" : String($0) }.joined()
    }
}
