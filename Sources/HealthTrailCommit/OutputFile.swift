import Foundation
import HealthTrailArchive
import HealthTrailBase

/// Writes a whole small output (an SVG map) owner-only and synced, as the CSV writers do.
package enum OutputFile {
    package static func write(_ bytes: [UInt8], to path: String) throws {
        let fd = try writeUnsynced(bytes, to: path)
        defer { close(fd) }
        guard fsync(fd) == 0 || errno == EINVAL else {
            throw InputError(file: path, "cannot write: \(String(cString: strerror(errno)))")
        }
    }

    /// Creates the file owner-only and writes `bytes`; returns the open descriptor, which the
    /// caller must fsync and close (`OutputStaging.writeFile` does so on another thread).
    /// A symbolic link at `path` is refused (`ELOOP`), never followed: every path written here
    /// is one HealthTrail names itself (staging files, journals, temporaries beside a result),
    /// and a link planted there must not redirect the write onto someone else's file.
    package static func writeUnsynced(_ bytes: [UInt8], to path: String) throws -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw InputError(file: path, "cannot create output file: \(String(cString: strerror(errno)))") }
        let failed = writeFully(fd, bytes)
        guard failed == 0 else {
            close(fd)
            throw InputError(file: path, "cannot write: \(String(cString: strerror(failed)))")
        }
        return fd
    }
}
