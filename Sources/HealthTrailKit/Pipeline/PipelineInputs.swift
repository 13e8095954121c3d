import Foundation
import HealthTrailArchive
import HealthTrailBase

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The archives a pipeline's `input.path` names.
///
/// `input.path` is a file (that archive), a folder, or a glob in its last component
/// (`~/study/*.zip`). In a folder, and among a glob's matches, an archive is: a `*.zip` file, a
/// folder holding an `export.xml` (an unzipped `apple_health_export/`), or a bare `*.xml` file.
/// A folder that itself holds `export.xml` is one unzipped export. Hidden names (leading dot),
/// downloads still in progress (`.part`, `.tmp`, `.crdownload`, `.download`) and the CDA
/// companion `export_cda.xml` are never archives: the phone may still be writing the export
/// when cron fires.
package enum PipelineInputs {
    /// Name endings of files still being written by a browser, AirDrop or a sync client.
    static let partialSuffixes = [".part", ".tmp", ".crdownload", ".download"]

    /// The archives `spec.inputPath` names, sorted by path; `pick == .newest` → the one with the newest
    /// modification time (ties: last by path). Throws InputError naming the path when nothing matches.
    package static func archives(for spec: PipelineSpec) throws -> [String] {
        let found = try candidates(spec.inputPath).sorted()
        guard !found.isEmpty else {
            throw InputError(file: spec.inputPath, "no export archive here (a .zip, a folder with export.xml, or an .xml file)")
        }
        guard spec.pick == .newest else { return found }
        // Sorted by path, so `>=` keeps the last path among equal times.
        var newest = found[0], newestTime = modificationTime(found[0])
        for path in found.dropFirst() {
            let time = modificationTime(path)
            if time >= newestTime { (newest, newestTime) = (path, time) }
        }
        return [newest]
    }

    /// Every archive the path names, unsorted.
    static func candidates(_ path: String) throws -> [String] {
        let fm = FileManager.default
        let name = (path as NSString).lastPathComponent
        if PipelinePaths.isGlob(name) {
            let folder = PipelinePaths.folder(of: path)
            guard let entries = try? fm.contentsOfDirectory(atPath: folder) else {
                throw InputError(file: path, "the folder \(folder) does not exist or cannot be read")
            }
            return entries.filter { fnmatch(name, $0, 0) == 0 }.map { folder + "/" + $0 }.filter(isArchive)
        }
        var isFolder: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isFolder) else { throw InputError(file: path, "does not exist") }
        guard isFolder.boolValue else { return [path] }
        if holdsExportXML(path) { return [path] }
        guard let entries = try? fm.contentsOfDirectory(atPath: path) else { throw InputError(file: path, "cannot list the folder") }
        return entries.map { path + "/" + $0 }.filter(isArchive)
    }

    /// Whether a folder entry is an archive (see the type's description).
    static func isArchive(_ path: String) -> Bool {
        let name = (path as NSString).lastPathComponent, lower = name.lowercased()
        guard !name.hasPrefix("."), !partialSuffixes.contains(where: lower.hasSuffix) else { return false }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return false }
        if isFolder.boolValue { return holdsExportXML(path) }
        return lower.hasSuffix(".zip") || (lower.hasSuffix(".xml") && !lower.hasSuffix("_cda.xml"))
    }

    /// An unzipped export: `export.xml` (any case) directly inside.
    static func holdsExportXML(_ folder: String) -> Bool {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return entries.contains { $0.lowercased() == "export.xml" }
    }

    /// When an archive was last written: a folder's `export.xml`, since adding files beside it
    /// (or opening it in Finder) touches the folder but not the export.
    static func modificationTime(_ path: String) -> Date {
        var target = path
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue,
            let xml = try? FileManager.default.contentsOfDirectory(atPath: path).first(where: { $0.lowercased() == "export.xml" })
        {
            target = path + "/" + xml
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: target)
        return attributes?[.modificationDate] as? Date ?? .distantPast
    }
}
