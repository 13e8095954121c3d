import Foundation
import HealthTrailArchive
import HealthTrailBase

#if canImport(Glibc)
import Glibc
#endif

/// One run at a time per output folder: two cron runs must not write the same outputs at once.
///
/// An exclusive `flock` on `<out>/.healthtrail.lock`, held for the whole run. The kernel drops
/// it when the process dies, however it dies, so a lock left by a killed run is never in the
/// way: the file only records the pid of its last holder, for the message.
package final class OutputLock: Sendable {
    private let fd: Int32
    /// The pid of a run that died while holding the folder, when this run took its lock over.
    package let tookOverFrom: Int32?

    /// The lock file's name inside the output folder.
    static let fileName = ".healthtrail.lock"

    package init(directory: String) throws {
        let path = directory + "/" + Self.fileName
        // Never through a link, and only a regular file of one's own: the file is truncated and
        // written, and a link planted there would have that done to its target.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard descriptor >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link, which HealthTrail does not follow; remove it" : String(cString: strerror(errno))
            throw InputError(file: path, "cannot open the lock file: \(reason)")
        }
        var st = stat()
        guard fstat(descriptor, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_uid == geteuid() else {
            close(descriptor)
            throw InputError(file: path, "the lock file is not a regular file of this user's; remove it")
        }
        var previous = [UInt8](repeating: 0, count: 31)
        let n = readSome(descriptor, into: &previous)
        let holder = n > 0 ? Int32(String(decoding: previous[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) : nil
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw OutputBusy(directory: directory, pid: holder)
        }
        fd = descriptor
        // The lock is ours: a pid still in the file belongs to a run that died holding it.
        tookOverFrom = holder.flatMap { $0 != getpid() && kill($0, 0) != 0 ? $0 : nil }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        writeFully(fd, pid, at: 0)
    }

    deinit {
        clearHolder()
        close(fd)   // releases the flock
    }

    /// Empties the file, as a clean end does, so the next run does not take this one for a run
    /// that died: `Interruption` calls it before `_exit`, which skips `deinit`. The lock itself
    /// stays held until the process ends.
    func clearHolder() {
        _ = ftruncate(fd, 0)
    }
}

/// Another run holds the output folder (exit code 4).
package struct OutputBusy: Error, CustomStringConvertible {
    package var directory: String
    package var pid: Int32?
    package var description: String {
        "\(directory): another healthtrail run\(pid.map { " (pid \($0))" } ?? "") is writing these outputs; try again when it ends"
    }
}

/// The archive was processed before with the same content, tool version and options (exit code 3).
package struct NothingNew: Error, CustomStringConvertible {
    package var input: String
    package var directory: String

    package init(input: String, directory: String) {
        self.input = input
        self.directory = directory
    }

    package var description: String {
        "\(input): nothing new: already processed into \(directory) with the same content, tool version and options (--force redoes it)"
    }
}
