import Foundation
import HealthTrailBase

/// An unzipped export folder (`apple_health_export/`), read file by file.
///
/// Only regular files inside the folder are entries: symbolic links are skipped (a link named
/// `workout-routes/x.gpx` could point anywhere), folders behind links are not entered, and
/// `read` opens nothing but a listed entry, without following a link put there since. Route
/// references from export.xml (`../../etc/passwd`) are matched against these entries, never
/// opened as paths, so nothing outside the folder is read.
package final class DirectorySource: ExportSource {
    package let root: String
    package let entries: [ArchiveEntry]
    package var displayName: String { root }
    private let listedPaths: Set<String>

    package init(path: String) throws {
        root = path
        let base = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
        let prefix = base.path.hasSuffix("/") ? base.path : base.path + "/"
        // A folder that cannot be listed fails the run, as a file that cannot be read does: its
        // files (route files, ECGs) would otherwise be missing from the outputs without a word.
        var unlisted: InputError?
        guard
            let walker = FileManager.default.enumerator(
                at: base, includingPropertiesForKeys: [.isRegularFileKey, .isSymbolicLinkKey, .fileSizeKey], options: [],
                errorHandler: { url, _ in
                    let full = url.standardizedFileURL.path
                    let relative = full.hasPrefix(prefix) ? String(full.dropFirst(prefix.count)) : url.lastPathComponent
                    let reason = unsafe access(full, R_OK | X_OK) == 0 ? "unreadable" : String(cString: strerror(errno))
                    if unlisted == nil { unlisted = InputError(file: path, entry: relative, "cannot list the folder: \(reason)") }
                    return false
                })
        else {
            throw InputError(file: path, "cannot list the folder")
        }
        var found: [ArchiveEntry] = []
        for case let url as URL in walker {
            let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey, .fileSizeKey])
            guard values?.isRegularFile == true, values?.isSymbolicLink != true else { continue }
            let full = url.standardizedFileURL.path
            let relative = full.hasPrefix(prefix) ? String(full.dropFirst(prefix.count)) : url.lastPathComponent
            let size = UInt64(values?.fileSize ?? 0)
            let entry = ArchiveEntry(path: relative, uncompressedSize: size, compressedSize: size, crc32: nil)
            if !entry.isPlatformJunk { found.append(entry) }
        }
        if let unlisted { throw unlisted }
        entries = found.sorted { $0.path < $1.path }
        listedPaths = Set(found.map(\.path))
    }

    package func read(_ entry: ArchiveEntry, _ body: (ByteSpan) throws -> Void) throws {
        try unsafe streamWholeFile(open(entry), entryName: entry.path) { try unsafe body(ByteSpan($0)) }
    }

    /// The file of `entry`, which must be one this folder listed (a symlink is not followed).
    package func open(_ entry: ArchiveEntry) throws -> ReadOnlyFile {
        guard listedPaths.contains(entry.path) else {
            throw InputError(file: root, entry: entry.path, "not a file of the export folder")
        }
        return try ReadOnlyFile(path: root + "/" + entry.path, followingSymlinks: false)
    }
}

/// A bare `export.xml` given on its own (no routes).
package final class SingleFileSource: ExportSource {
    package let file: ReadOnlyFile
    package let entries: [ArchiveEntry]
    package var displayName: String { file.path }

    /// The file as an export with one entry, named `entryName` or else the file's own name: a
    /// file read from standard input (`/proc/self/fd/0`) is given a name such as `stdin`, not `0`.
    package init(file: ReadOnlyFile, entryName: String? = nil) throws {
        self.file = file
        let name = entryName ?? String(file.path.split(separator: "/").last ?? Substring(file.path))
        entries = [ArchiveEntry(path: name, uncompressedSize: file.size, compressedSize: file.size, crc32: nil)]
    }

    package func read(_ entry: ArchiveEntry, _ body: (ByteSpan) throws -> Void) throws {
        try unsafe streamWholeFile(file, entryName: nil) { try unsafe body(ByteSpan($0)) }
    }
}

/// Streams a plain file in fixed-size chunks.
@usableFromInline func streamWholeFile(_ file: ReadOnlyFile, entryName: String?, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    // SAFETY: this function owns `buffer`, freed when it returns; `body` gets only the `n` bytes
    // the read just filled (n ≤ buffer.count, and n > 0), valid until it returns.
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: ZipArchive.chunkSize, alignment: 16)
    defer { unsafe buffer.deallocate() }
    var offset: UInt64 = 0
    while true {
        let n = try unsafe file.read(into: buffer, at: offset)
        if n == 0 { break }
        offset += UInt64(n)
        try unsafe body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
    }
}
