#if canImport(Glibc)
import Glibc
#endif

/// What `manifest.json` shows of text read from the data: unknown units, unknown activity
/// types and the `FileReference` paths of missing route files.
///
/// Such text can be anything an app wrote (a unit string, a file name with a person's name in
/// it), and a manifest is the file people attach to a bug report. So by default each text is
/// replaced by a keyed short hash, `h_` + 16 hex digits of HMAC-SHA256 under a key of the
/// output folder's own (`PseudonymKey`, made on first use in `<out>/.healthtrail-key`, mode
/// 0600): the same text gets the same tag in every run into that folder, so runs can be
/// compared, while without the key a tag cannot be checked against a guessed text. With
/// `--debug-manifest` the texts are written as they are.
struct ManifestNames {
    /// The key file's name in the output folder.
    static let keyFileName = ".healthtrail-key"

    private let key: PseudonymKey?

    /// Verbatim names (`--debug-manifest`).
    static let verbatim = ManifestNames(key: nil)

    private init(key: PseudonymKey?) { self.key = key }

    /// Tags under the key of `outputDirectory`, made there when it has none yet. A symbolic link
    /// in its place is refused: whoever planted it would know the key.
    ///
    /// - Throws: `InputError` naming the key file when it cannot be made or read.
    static func keyed(outputDirectory: String) throws -> ManifestNames {
        let path = outputDirectory + "/" + keyFileName
        var info = stat()
        if lstat(path, &info) != 0 && errno == ENOENT {
            do {
                try PseudonymKey.generate(at: path)
            } catch {
                // Another process made it between the two calls (the output lock makes that
                // unlikely): read theirs.
                guard lstat(path, &info) == 0 else { throw error }
            }
        }
        return ManifestNames(key: try PseudonymKey(path: path, followingLinks: false))
    }

    /// The tag of `text`, or `text` itself when verbatim.
    func name(_ text: String) -> String { key?.tag(for: text, prefix: "h_") ?? text }

    /// Counts per text as counts per tag.
    func names(_ counts: [String: Int]) -> [String: Int] {
        guard key != nil else { return counts }
        return Dictionary(counts.map { (name($0.key), $0.value) }, uniquingKeysWith: +)
    }
}
