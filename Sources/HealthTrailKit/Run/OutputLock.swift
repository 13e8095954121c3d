import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One run at a time per output folder: two cron runs must not write the same outputs at once.
///
/// An exclusive `flock` on `<out>/.healthtrail.lock`, held for the whole run. The kernel drops
/// it when the process dies, however it dies, so a lock left by a killed run is never in the
/// way: the file only records the pid of its last holder, for the message.
final class OutputLock {
    private let fd: Int32
    /// The pid of a run that died while holding the folder, when this run took its lock over.
    let tookOverFrom: Int32?

    init(directory: String) throws {
        let path = directory + "/.healthtrail.lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw InputError(file: path, "cannot open the lock file: \(String(cString: strerror(errno)))") }
        var previous = [UInt8](repeating: 0, count: 32)
        let n = previous.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 31) }
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
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    deinit {
        _ = ftruncate(fd, 0)   // a clean end leaves no pid behind
        close(fd)              // releases the flock
    }
}

/// Another run holds the output folder (exit code 4).
public struct OutputBusy: Error, CustomStringConvertible {
    public var directory: String
    public var pid: Int32?
    public var description: String {
        "\(directory): another healthtrail run\(pid.map { " (pid \($0))" } ?? "") is writing these outputs; try again when it ends"
    }
}

/// The archive was processed before with the same content, tool version and options (exit code 3).
public struct NothingNew: Error, CustomStringConvertible {
    public var input: String
    public var directory: String

    public init(input: String, directory: String) {
        self.input = input
        self.directory = directory
    }

    public var description: String {
        "\(input): nothing new: already processed into \(directory) with the same content, tool version and options (--force redoes it)"
    }
}
