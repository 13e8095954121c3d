import Foundation
import HealthTrailArchive

#if canImport(Glibc)
import Glibc
#endif

/// The ledger's file operations: whole reads, appends that are either complete or rolled back,
/// atomic replaces (temporary name, fsync, rename, fsync of the folder), owner-only modes.
/// Errors are `LedgerError(.io)` naming the ledger and the file.
package struct LedgerFiles {
    /// The ledger path, for messages.
    package let ledger: String

    private func failure(_ file: String, _ what: String) -> LedgerError {
        let reason = String(cString: strerror(errno))
        let which = file == ledger ? "" : " \(file)"
        return LedgerError(.io, path: ledger, "cannot \(what)\(which): \(reason)")
    }

    /// The whole file, or nil when it does not exist.
    package func read(_ path: String) throws -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw failure(path, "read")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = readSome(fd, into: &chunk)   // retries EINTR itself
            if n < 0 { throw failure(path, "read") }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        return bytes
    }

    package func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    /// Appends `bytes` with O_APPEND and fsyncs. A failed or short write is cut back off
    /// (ftruncate to the previous size), so the file never keeps half a line it reported as failed.
    package func append(_ bytes: [UInt8], to path: String) throws {
        let created = !exists(path)
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure(path, "open") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw failure(path, "read the size of") }
        let before = st.st_size
        let failed = writeFully(fd, bytes)
        if failed != 0 {
            errno = failed
            let error = failure(path, "append to")
            _ = ftruncate(fd, before)
            throw error
        }
        guard fsync(fd) == 0 else {
            let error = failure(path, "sync")
            _ = ftruncate(fd, before)
            throw error
        }
        if created { try syncFolder(of: path) }
    }

    /// Replaces `path` atomically with `bytes`, owner-only and synced.
    package func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = folder + "/.tmp-\(getpid())-" + name
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure(temporary, "create") }
        let failed = writeFully(fd, bytes)
        if failed != 0 {
            errno = failed
            let error = failure(temporary, "write")
            close(fd); unlink(temporary)
            throw error
        }
        guard fsync(fd) == 0 else {
            let error = failure(temporary, "sync")
            close(fd); unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let error = failure(path, "move into place")
            unlink(temporary)
            throw error
        }
        try syncFolder(of: path)
    }

    /// Creates a folder (and its parents) owner-only; an existing folder is left as it is.
    package func makeFolder(_ path: String) throws {
        do {
            try makeOwnerOnlyFolder(path)
        } catch .notAFolder {
            throw LedgerError(.io, path: ledger, "\(path) exists and is not a folder")
        } catch .cannotCreate {
            throw LedgerError(.io, path: ledger, "cannot create the folder \(path)")
        }
    }

    /// Whether `folder` holds a file whose name ends with `suffix`.
    package func hasFiles(in folder: String, suffix: String) -> Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).contains { $0.hasSuffix(suffix) }
    }

    /// Deletes the files in `folder` whose names start with `prefix` (results of a reservation
    /// whose line never made it into the ledger, and temporary files of killed runs).
    package func removeFiles(in folder: String, prefix: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(prefix) { unlink(folder + "/" + name) }
    }

    private func syncFolder(of path: String) throws {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let fd = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(folder, "open the folder") }
        defer { close(fd) }
        guard fsync(fd) == 0 || errno == EINVAL else { throw failure(folder, "sync the folder") }
    }
}

/// An exclusive `flock` on `<ledger>.lock`, held for the whole of each ledger operation (read,
/// verify, check, append). flock locks belong to an open file description, so two processes —
/// and two `BudgetLedger` objects in one process — exclude each other. The lock is released by
/// the kernel when a process dies, so a killed run never leaves the ledger locked.
package final class LedgerFileLock {
    private let fd: Int32
    private let path: String
    private let ledger: String

    package init(path: String, ledger: String) throws {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        self.path = path
        self.ledger = ledger
        guard fd >= 0 else {
            throw LedgerError(.io, path: ledger, "cannot open the lock file \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }

    /// Waits for the lock, polling, at most `timeout` seconds (a cron run that finds another one
    /// stuck fails with a message instead of piling up).
    package func acquire(timeout: Double) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw LedgerError(.io, path: ledger, "cannot lock \(path): \(String(cString: strerror(errno)))")
            }
            guard Date() < deadline else {
                throw LedgerError(.locked, path: ledger, "another run has held the lock \(path) for over \(Int(timeout)) s")
            }
            usleep(10_000)
        }
    }

    package func release() { _ = flock(fd, LOCK_UN) }
}
