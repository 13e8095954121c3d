import HealthTrailBase

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file opened for positioned reads (`pread`), closed when released.
///
/// `Sendable`: its properties are constants and positioned reads share no file offset.
@usableFromInline package final class ReadOnlyFile: Sendable {
    @usableFromInline package let path: String
    package let size: UInt64
    package let fd: Int32

    /// - Parameter followingSymlinks: false to refuse a path whose last component is a symbolic link.
    package init(path: String, followingSymlinks: Bool = true) throws {
        self.path = path
        // O_NONBLOCK: opening a FIFO would otherwise wait for a writer, for ever in a cron job.
        // It changes nothing for the regular files this reads.
        let fd = unsafe open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followingSymlinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else {
            throw InputError(file: path, unsafe "cannot open: \(String(cString: strerror(errno)))")
        }
        var st = stat()
        guard unsafe fstat(fd, &st) == 0 else {
            let message = unsafe String(cString: strerror(errno))
            close(fd)
            throw InputError(file: path, "cannot stat: \(message)")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw InputError(file: path, "not a regular file (\(Self.kind(st.st_mode))): only files and folders are read")
        }
        self.fd = fd
        self.size = UInt64(st.st_size)
    }

    deinit { close(fd) }

    /// What a file that is not a regular file is, for the message.
    package static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a FIFO"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFSOCK: return "a socket"
        case S_IFDIR: return "a folder"
        default: return "not a file"
        }
    }

    /// Reads up to `buffer.count` bytes at `offset`; returns how many were read (0 at end of file).
    @usableFromInline package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int {
        var done = 0
        while done < buffer.count {
            // SAFETY: the caller keeps `buffer` valid for the call; done < buffer.count, so it has
            // a base address and `pread` writes at most the `buffer.count - done` bytes left in it.
            let n = unsafe pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw InputError(file: path, unsafe "read error at byte \(offset): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Streams the whole file to `body` in chunks, each a span that cannot leave its call.
    package func forEachChunk(_ body: (ByteSpan) throws -> Void) throws {
        try unsafe streamWholeFile(self, entryName: nil) { try unsafe body(ByteSpan($0)) }
    }

    package func read(into bytes: inout [UInt8], at offset: UInt64) throws -> Int {
        // SAFETY: the array's own storage, lent exclusively for the call; the read stays inside it.
        try unsafe bytes.withUnsafeMutableBytes { try unsafe read(into: $0, at: offset) }
    }
}
