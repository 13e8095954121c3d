import Foundation
import HealthTrailArchive
import HealthTrailBase

#if canImport(Glibc)
import Glibc
#endif

/// Which folders a run may write its outputs into.
///
/// HealthTrail replaces and removes only the files a previous run of its own lists in its
/// manifest (`OutputCommit`). A folder it did not fill is therefore refused when anything is in
/// it, and so are the folders no one means as an output folder: `/`, the home folder and the
/// folders right under `/`.
enum OutputFolder {
    /// Refuses `/`, `$HOME` and `/<name>` (`/tmp`, `/home`, `/usr`, …), symbolic links resolved.
    static func refuseRoot(_ path: String, home: String? = ProcessInfo.processInfo.environment["HOME"]) throws {
        let resolved = resolve(path)
        let components = resolved.split(separator: "/")
        let isHome = home.map { !$0.isEmpty && resolve($0) == resolved } ?? false
        guard components.count >= 2, !isHome else {
            throw InputError(
                file: path,
                "refusing to write outputs into \(isHome ? "the home folder" : "a top-level folder"): give --out a folder of their own, such as \(isHome ? "~/health" : "/srv/health")"
            )
        }
    }

    /// Refuses a folder that holds anything but HealthTrail's own files when no HealthTrail
    /// manifest says a previous run wrote there. Call it after `OutputCommit.rollForward`.
    static func refuseForeign(_ path: String, hasManifest: Bool) throws {
        guard !hasManifest else { return }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        let foreign = entries.filter { !isOwnBookkeeping($0) }
        guard foreign.isEmpty else {
            throw InputError(
                file: path,
                "the output folder holds \(foreign.count) item\(foreign.count == 1 ? "" : "s") HealthTrail did not write and no manifest.json of a previous run: choose an empty or new folder (HealthTrail never replaces files it did not write)"
            )
        }
    }

    /// Files HealthTrail keeps in an output folder besides its outputs.
    static func isOwnBookkeeping(_ name: String) -> Bool {
        name == OutputLock.fileName || name == ManifestNames.keyFileName
            || name.hasPrefix(".staging-") || name.hasPrefix(".commit-") || name.hasPrefix(".old-")
    }

    /// Why the folder's files could be read or changed by someone else, for a warning; nil if
    /// only its owner, who is the user running HealthTrail, can write it. A link given as the
    /// output folder is followed: the folder written into is the one it points to, and a link's
    /// own mode (0777 on Linux) says nothing.
    static func sharingConcern(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        if st.st_uid != geteuid() { return "the output folder belongs to another user" }
        if st.st_mode & (S_IWGRP | S_IWOTH) != 0 { return "others can write into the output folder" }
        return nil
    }

    private static func resolve(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return URL(fileURLWithPath: path).standardized.path }
        defer { free(real) }
        return String(cString: real)
    }
}
