import HealthTrailArchive
import HealthTrailBase

/// Which entry of an export is what: the main XML found by its content, route files, ECGs.
///
/// Real exports name the main file `export.xml`, `Export.xml`, `导出.xml` or `eksport.xml`, and
/// re-zipped ones change the top folder, so names are not trusted: the main XML is the `.xml`
/// entry that starts with `<!DOCTYPE HealthData` or `<HealthData` (`export_cda.xml` does not).
package struct ExportLayout {
    package let mainXML: ArchiveEntry
    /// GPX files, wherever they are (normally `workout-routes/`).
    package let routeFiles: [ArchiveEntry]
    /// `electrocardiograms/*.csv`.
    package let ecgFiles: [ArchiveEntry]

    package init(source: ExportSource) throws {
        let xmlEntries = source.entries.filter { $0.path.lowercased().hasSuffix(".xml") }
        let candidates = source is SingleFileSource ? source.entries : xmlEntries
        var main: ArchiveEntry?
        for entry in candidates.sorted(by: { $0.uncompressedSize > $1.uncompressedSize })
        where try Self.isHealthData(source.prefix(of: entry, limit: 64 * 1024)) {
            main = entry
            break
        }
        guard let main else {
            if source is SingleFileSource {
                throw InputError(
                    file: source.displayName, "not an Apple Health export: expected a .zip, an export.xml or an apple_health_export folder")
            }
            let looked = xmlEntries.isEmpty ? "it has no .xml entry" : "looked at \(xmlEntries.count) .xml entries"
            throw InputError(file: source.displayName, "no Apple Health export.xml found (\(looked))")
        }
        mainXML = main
        routeFiles = source.entries.filter { $0.path.lowercased().hasSuffix(".gpx") }
        ecgFiles = source.entries.filter {
            $0.path.lowercased().hasSuffix(".csv") && $0.path.lowercased().contains("electrocardiogram")
        }
    }

    /// True when the start of a file is an Apple Health export.xml.
    package static func isHealthData(_ prefix: [UInt8]) -> Bool {
        find(Array("<!DOCTYPE HealthData".utf8), in: prefix) != nil
            || find(Array("<HealthData".utf8), in: prefix, followedByNameEnd: true) != nil
    }
}
