import Foundation
import HealthTrailArchive
import HealthTrailBase

#if canImport(Glibc)
import Glibc
#endif

/// A folder of the output folder's tree, held open by descriptor and reached from the output
/// folder one component at a time without following a symbolic link (`openat` with
/// `O_NOFOLLOW | O_DIRECTORY`).
///
/// Every file `OutputCommit` moves, removes or creates, and every folder it removes, is named
/// relative to one of these, and the `*at` calls act on their last component itself (a link is
/// moved or removed as a link). So a link the user put where one of HealthTrail's folders stood
/// (`out/records -> ../mine`) is never walked through, and nothing behind it is touched: a walk
/// that meets one throws `InputError` naming it. The output folder itself is the one link
/// followed: the user named it (`--out`).
final class OpenedFolder {
    /// The folder's path as reached from the output folder, for messages.
    let path: String
    private let descriptor: Int32
    /// Subfolders already opened, by name: each is opened once per commit.
    private var opened: [String: OpenedFolder] = [:]

    /// Why a walk stopped at a symbolic link, after the path of the link.
    static let linkInTheWay =
        "is a symbolic link where HealthTrail keeps a folder of outputs; HealthTrail does not follow links inside the output folder, so it neither writes nor removes anything behind one: remove the link (the folder it points to is not touched)"

    /// Opens the output folder (or the staging folder of this run) itself.
    init(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError(file: path, "cannot open output folder: \(String(cString: strerror(errno)))") }
        self.path = path
        descriptor = fd
    }

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// What has the name `name` in this folder, not following a link: `S_IFREG`, `S_IFDIR`,
    /// `S_IFLNK`, …, or nil when nothing has it.
    func kind(of name: String) -> mode_t? {
        var st = stat()
        guard fstatat(descriptor, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return st.st_mode & S_IFMT
    }

    /// The subfolder `name`; nil when nothing has that name and `create` is false. A link or
    /// anything else but a folder there throws. A folder it creates is owner-only, and its
    /// removal is appended to `undo`.
    func subfolder(_ name: String, create: Bool, undo: inout [() -> Void]) throws -> OpenedFolder? {
        if let known = opened[name] { return known }
        var fd = openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0, errno == ENOENT, create {
            guard mkdirat(descriptor, name, 0o700) == 0 else {
                throw InputError(file: path + "/" + name, "cannot create output folder: \(String(cString: strerror(errno)))")
            }
            undo.append { [self] in _ = unlinkat(descriptor, name, AT_REMOVEDIR) }
            fd = openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT, !create { return nil }
            let full = path + "/" + name
            switch kind(of: name) {
            case S_IFLNK: throw InputError(file: full, Self.linkInTheWay)
            case .some(let other) where other != S_IFDIR: throw InputError(file: full, "output path exists and is not a folder")
            default: throw InputError(file: full, "cannot open output folder: \(String(cString: strerror(code)))")
            }
        }
        let folder = OpenedFolder(descriptor: fd, path: path + "/" + name)
        opened[name] = folder
        return folder
    }

    /// The folder holding `relative` (a path checked by `OutputCommit.isSafeRelativePath`) and
    /// its last component; nil when a folder on the way does not exist and `create` is false.
    func parent(of relative: String, create: Bool, undo: inout [() -> Void]) throws -> (folder: OpenedFolder, name: String)? {
        var folder = self
        let components = relative.split(separator: "/").map(String.init)
        for component in components.dropLast() {
            guard let next = try folder.subfolder(component, create: create, undo: &undo) else { return nil }
            folder = next
        }
        return components.last.map { (folder, $0) }
    }

    /// `parent(of:)` for a path whose folders must exist or be created.
    func makeParent(of relative: String, undo: inout [() -> Void]) throws -> (folder: OpenedFolder, name: String) {
        guard let found = try parent(of: relative, create: true, undo: &undo) else {
            throw InputError(file: path + "/" + relative, "not a path inside the output folder")
        }
        return found
    }

    /// `parent(of:)` that only looks: nothing is created.
    func existingParent(of relative: String) throws -> (folder: OpenedFolder, name: String)? {
        var none: [() -> Void] = []
        return try parent(of: relative, create: false, undo: &none)
    }

    /// Moves the entry `name` (a link as a link) to `newName` in `destination`, replacing what is there.
    func move(_ name: String, to destination: OpenedFolder, _ newName: String) throws {
        guard renameat(descriptor, name, destination.descriptor, newName) == 0 else {
            throw InputError(file: destination.path + "/" + newName, "cannot move output into place: \(String(cString: strerror(errno)))")
        }
    }

    /// `move` for an undo step, which cannot report a failure.
    func moveBack(_ name: String, to destination: OpenedFolder, _ newName: String) {
        _ = renameat(descriptor, name, destination.descriptor, newName)
    }

    /// Removes the file or link `name` (never what a link points to).
    func removeFile(_ name: String) {
        _ = unlinkat(descriptor, name, 0)
    }

    /// Removes the subfolder `name` if it is empty (`rmdir`: a folder holding anything stays).
    func removeEmptySubfolder(_ name: String) {
        if unlinkat(descriptor, name, AT_REMOVEDIR) == 0 { opened[name] = nil }
    }
}
