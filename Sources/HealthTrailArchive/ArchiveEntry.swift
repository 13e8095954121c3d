/// One file inside an export: a zip entry, or a file of an unzipped folder.
package struct ArchiveEntry: Sendable, Hashable {
    /// The path inside the archive, with `/` separators (e.g. `apple_health_export/export.xml`).
    package let path: String
    /// Size of the entry's content once inflated.
    package let uncompressedSize: UInt64
    /// Size of the stored bytes (equal to `uncompressedSize` for folders and stored entries).
    package let compressedSize: UInt64
    /// CRC-32 the archive declares for the content; nil where there is none (folders).
    package let crc32: UInt32?
    /// Zip compression method: 0 stored, 8 deflated.
    package let method: UInt16
    /// Zip general-purpose flags (bit 0: encrypted).
    package let flags: UInt16
    /// Offset of the zip local header, or 0 outside zips.
    package let localHeaderOffset: UInt64

    package init(
        path: String, uncompressedSize: UInt64, compressedSize: UInt64, crc32: UInt32?,
        method: UInt16 = 0, flags: UInt16 = 0, localHeaderOffset: UInt64 = 0
    ) {
        self.path = path
        self.uncompressedSize = uncompressedSize
        self.compressedSize = compressedSize
        self.crc32 = crc32
        self.method = method
        self.flags = flags
        self.localHeaderOffset = localHeaderOffset
    }

    /// The last path component.
    package var fileName: Substring {
        path.split(separator: "/", omittingEmptySubsequences: true).last ?? Substring(path)
    }

    /// Entries macOS and Finder add that are never part of an export.
    package var isPlatformJunk: Bool {
        path.hasPrefix("__MACOSX/") || path.contains("/__MACOSX/") || fileName == ".DS_Store"
            || fileName.hasPrefix("._") || path.hasSuffix("/")
    }
}
