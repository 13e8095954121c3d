import Foundation

/// The name a cohort archive gives its person, before it becomes a pseudonym.
///
/// The archive's file name without its extension (`alice.zip` → `alice`), or the folder's name
/// for an unzipped export. The same name wherever the archive is copied (a Spark task's local
/// copy of `s3://study/alice.zip` is still `alice`), so every path gives the same pseudonym.
package enum PersonName {
    package static func of(archive path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return url.lastPathComponent
        }
        return url.deletingPathExtension().lastPathComponent
    }
}
