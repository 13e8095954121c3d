import HealthTrailBase

/// Where the files of an export come from: a zip archive, an unzipped folder or a bare export.xml.
///
/// Every source streams an entry as a sequence of byte chunks; none holds a whole entry in memory
/// and none writes anything to disk.
///
/// `Sendable`: a source holds only what it listed when it was opened, and reads with positioned
/// reads (`pread`), so several threads may read entries at once (the route pre-decoder does
/// while the main thread parses export.xml).
package protocol ExportSource: AnyObject, Sendable {
    /// The path the user gave, used in messages.
    var displayName: String { get }
    /// The files the source holds, platform junk (`__MACOSX/`, `.DS_Store`) already removed.
    var entries: [ArchiveEntry] { get }
    /// Streams `entry`'s content to `body`, chunk by chunk, verifying sizes and checksums.
    /// The span passed to `body` is valid during the call, and cannot leave it (nonescapable).
    func read(_ entry: ArchiveEntry, _ body: (ByteSpan) throws -> Void) throws
    /// Calls `body` once with the whole of `entry`, verified, when the source can hold it in
    /// memory cheaply (a small zip entry: `ZipArchive.wholeEntryLimit`), in `scratch`; returns
    /// false without calling `body` otherwise, and the caller streams the entry with `read`.
    func readWhole(
        _ entry: ArchiveEntry, scratch: WholeEntryScratch,
        _ body: (ByteSpan) throws -> Void
    ) throws -> Bool
}

extension ExportSource {
    /// Sources other than zips stream every entry.
    package func readWhole(
        _ entry: ArchiveEntry, scratch: WholeEntryScratch,
        _ body: (ByteSpan) throws -> Void
    ) throws -> Bool { false }

    /// The first `limit` bytes of an entry (fewer if it is shorter), for sniffing its content.
    package func prefix(of entry: ArchiveEntry, limit: Int = 4096) throws -> [UInt8] {
        var bytes: [UInt8] = []
        do {
            try read(entry) { chunk in
                chunk.prefix(limit - bytes.count).append(to: &bytes)
                if bytes.count >= limit { throw StopReading() }
            }
        } catch is StopReading {}
        return bytes
    }
}

extension ExportSource {
    /// The file a run's checksum covers: the zip itself, a bare export.xml, or, for a folder,
    /// its `main` entry (a folder has no single file that is the export).
    package func checksummedFile(main: ArchiveEntry) throws -> ReadOnlyFile {
        switch self {
        case let zip as ZipArchive: return zip.file
        case let single as SingleFileSource: return single.file
        case let folder as DirectorySource: return try folder.open(main)
        default: preconditionFailure("ExportSource: a source kind with no checksummed file")
        }
    }
}

/// Thrown by a consumer to stop streaming early; never escapes `prefix(of:)`.
package struct StopReading: Error {}

/// Opens whichever kind of source `path` is: a zip (by its magic bytes), a folder, or an XML file.
/// `limits` bound what a zip may expand to (see `ArchiveLimits`); folders and plain files are
/// read as they are and need none. `label`, when given, names a bare XML file's one entry (the
/// input is standard input, or must not be named by its path).
package func openExportSource(path: String, limits: ArchiveLimits = .default, label: String? = nil) throws -> ExportSource {
    var st = stat()
    guard unsafe stat(path, &st) == 0 else {
        throw InputError(file: path, unsafe "cannot open: \(String(cString: strerror(errno)))")
    }
    if (st.st_mode & S_IFMT) == S_IFDIR {
        return try DirectorySource(path: path)
    }
    let file = try ReadOnlyFile(path: path)
    var magic = [UInt8](repeating: 0, count: 4)
    let n = try file.read(into: &magic, at: 0)
    if n >= 4, magic[0] == 0x50, magic[1] == 0x4B, magic[2] == 3 || magic[2] == 5 {
        return try ZipArchive(file: file, limits: limits)
    }
    return try SingleFileSource(file: file, entryName: label)
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
