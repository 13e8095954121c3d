import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailCommit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `-` as the archive: an export read from standard input.
///
/// A zip is read from its end (the central directory), so a pipe cannot be streamed: its bytes
/// are spooled to a file first. The file has no name (`O_TMPFILE`, or one unlinked as soon as it
/// is made where that is unsupported), is readable by its owner only, and lives in a folder
/// HealthTrail owns for the run (the output folder; a temporary folder for `inspect`): it is
/// gone when the process ends, however it ends, and never shows up beside the outputs. The
/// archive is then opened by `path`, `/proc/self/fd/N`. Standard input redirected from a file
/// (`< export.zip`) is read in place, without a copy.
///
/// Messages and the manifest call the input `stdin` (`label`), never the spool's path.
package final class StandardInputArchive {
    /// What the archive is called in messages, logs and the manifest.
    package static let label = "stdin"

    /// True for the archive argument that means standard input.
    package static func isRequested(_ argument: String) -> Bool { argument == "-" }

    /// The path the archive is opened by; valid while this object lives.
    package let path: String
    private let descriptor: Int32?

    /// The path of the archive read from standard input, spooled into `folder` when it is not a
    /// regular file.
    ///
    /// - Throws: `InputError` naming `stdin` when standard input is a terminal (nothing piped
    ///   in), is empty, or cannot be read; naming `folder` when the spool cannot be written.
    package init(spoolingInto folder: String, prepare: () throws -> Void = {}) throws {
        guard isatty(0) == 0 else {
            throw InputError(file: Self.label, "standard input is a terminal: pipe an export into it (cat export.zip | healthtrail … -)")
        }
        var info = stat()
        guard fstat(0, &info) == 0 else {
            throw InputError(file: Self.label, "cannot read standard input: \(String(cString: strerror(errno)))")
        }
        if (info.st_mode & S_IFMT) == S_IFREG {
            guard info.st_size > 0 else { throw InputError(file: Self.label, "standard input is empty: expected an export archive") }
            path = "/proc/self/fd/0"
            descriptor = nil
            return
        }
        try prepare()
        let fd = try Self.unnamedFile(in: folder)
        do {
            let copied = try Self.copyStandardInput(to: fd, folder: folder)
            guard copied > 0 else { throw InputError(file: Self.label, "standard input is empty: expected an export archive") }
        } catch {
            close(fd)
            throw error
        }
        descriptor = fd
        path = "/proc/self/fd/\(fd)"
    }

    deinit {
        if let descriptor { close(descriptor) }
    }

    /// For `run -`: spooled into the output folder (made owner-only first, after the same
    /// refusals as the run's: not `/`, not your home), so the copy stays on the disk the outputs
    /// go to and inside a folder HealthTrail owns.
    package static func forRun(outputDirectory: String) throws -> StandardInputArchive {
        try StandardInputArchive(spoolingInto: outputDirectory) {
            try OutputFolder.refuseRoot(outputDirectory)
            try OutputStaging.makeDirectory(outputDirectory)
        }
    }

    /// For `inspect -`: spooled into the temporary folder ($TMPDIR, else /tmp).
    package static func forInspection() throws -> StandardInputArchive {
        let environment = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 }
        return try StandardInputArchive(spoolingInto: environment ?? "/tmp")
    }

    /// An owner-only file without a name in `folder`.
    static func unnamedFile(in folder: String) throws -> Int32 {
        #if os(Linux)
        // O_TMPFILE = __O_TMPFILE | O_DIRECTORY (Linux ≥ 3.11; not every file system has it).
        let fd = open(folder, O_RDWR | O_CLOEXEC | 0o20000000 | O_DIRECTORY, 0o600)
        if fd >= 0 { return fd }
        #endif
        guard let made = makeTemporaryFile(template: folder + "/.healthtrail-stdin-XXXXXX") else {
            throw InputError(file: folder, "cannot make the file standard input is spooled to: \(String(cString: strerror(errno)))")
        }
        unlink(made.path)
        fchmod(made.fd, 0o600)
        return made.fd
    }

    /// Copies all of standard input to `fd`; returns the bytes copied.
    static func copyStandardInput(to fd: Int32, folder: String) throws -> UInt64 {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total: UInt64 = 0
        while true {
            let n = readSome(0, into: &buffer)
            if n == 0 { return total }
            if n < 0 {
                throw InputError(file: label, "cannot read standard input: \(String(cString: strerror(errno)))")
            }
            let failed = writeFully(fd, buffer, count: n)
            if failed != 0 {
                throw InputError(file: folder, "cannot spool standard input here: \(String(cString: strerror(failed)))")
            }
            total += UInt64(n)
        }
    }
}
