import Foundation

/// Why `makeOwnerOnlyFolder` could not make a folder.
package enum OwnerOnlyFolderFailure: Error, Equatable {
    /// Something that is not a folder has the path.
    case notAFolder
    /// The folder could not be created: `errno`'s value.
    case cannotCreate(Int32)
}

/// Creates a folder and its parents, owner-only (0700); an existing folder is left as it is.
/// Callers turn a failure into their own error (an output folder's, the budget ledger's).
package func makeOwnerOnlyFolder(_ path: String) throws(OwnerOnlyFolderFailure) {
    var st = stat()
    if unsafe stat(path, &st) == 0 {
        guard (st.st_mode & S_IFMT) == S_IFDIR else { throw .notAFolder }
        return
    }
    do {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
        throw .cannotCreate(errno == 0 ? EACCES : errno)
    }
}
