import HealthTrailArchive
import HealthTrailBase
import HealthTrailKit

/// The sizes the report quotes, read from the archive's central directory.
struct ExportInfo: Codable {
    var archivePath: String
    var archiveBytes: UInt64
    /// Path of the main XML inside the archive (`apple_health_export/export.xml`).
    var xmlEntry: String
    /// Inflated size of the main XML: the numerator of every MB/s figure.
    var xmlBytes: UInt64
    /// The main XML's CRC-32 from the central directory: with the sizes, what tells two archives'
    /// bytes apart when the comparison of reports asks (nil in reports written before it was kept).
    var xmlCRC32: UInt32?

    /// Picks the main XML by the floor's rule: the largest `.xml` entry not named `export_cda.xml`.
    /// The floor prints how many bytes it inflated, and the driver checks the two agree.
    init(archivePath: String) throws {
        let archive = try ZipArchive(path: archivePath)
        let candidates = archive.entries.filter { entry in
            let name = entry.fileName.lowercased()
            return name.hasSuffix(".xml") && name != "export_cda.xml"
        }
        guard let main = candidates.max(by: { $0.uncompressedSize < $1.uncompressedSize }) else {
            throw InputError(file: archivePath, "no export.xml in the archive")
        }
        self.archivePath = archivePath
        archiveBytes = archive.file.size
        xmlEntry = main.path
        xmlBytes = main.uncompressedSize
        xmlCRC32 = main.crc32
    }
}

/// The byte count in the floor's summary line, `floor: inflated N bytes of …`.
func inflatedBytes(inFloorOutput text: String) -> UInt64? {
    guard let range = text.range(of: "inflated ") else { return nil }
    return UInt64(text[range.upperBound...].prefix { $0.isNumber })
}
