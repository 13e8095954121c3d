import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The folder a run writes into before its outputs replace the previous ones.
///
/// Everything is written under `<out>/.staging-<pid>/`; only when the run has succeeded is each
/// file renamed into place (an atomic replace on POSIX), and each subfolder swapped in. A failed
/// or killed run therefore never leaves a half-written file where a good one stood. Files and
/// folders are created owner-only: this is health data.
public final class OutputStaging {
    public let outputDirectory: String
    public let stagingDirectory: String
    private var committed = false

    public init(outputDirectory: String) throws {
        self.outputDirectory = outputDirectory
        try OutputStaging.makeDirectory(outputDirectory)
        guard access(outputDirectory, W_OK | X_OK) == 0 else {
            throw InputError(file: outputDirectory, "output folder is not writable: \(String(cString: strerror(errno)))")
        }
        OutputStaging.removeStaleStaging(in: outputDirectory)
        stagingDirectory = outputDirectory + "/.staging-\(getpid())"
        try? FileManager.default.removeItem(atPath: stagingDirectory)
        try OutputStaging.makeDirectory(stagingDirectory)
    }

    /// The staging path of an output, creating its subfolder when needed.
    public func path(_ relative: String) throws -> String {
        let full = stagingDirectory + "/" + relative
        if let slash = relative.lastIndex(of: "/") {
            try OutputStaging.makeDirectory(stagingDirectory + "/" + relative[..<slash])
        }
        return full
    }

    /// Moves every staged output into the output folder, replacing the previous ones.
    public func commit() throws {
        let fm = FileManager.default
        let items = try fm.contentsOfDirectory(atPath: stagingDirectory).sorted()
        for item in items {
            let staged = stagingDirectory + "/" + item
            let target = outputDirectory + "/" + item
            var isDir: ObjCBool = false
            _ = fm.fileExists(atPath: staged, isDirectory: &isDir)
            if isDir.boolValue, fm.fileExists(atPath: target) {
                // A folder cannot be replaced by rename: move the old one aside, swap, then delete.
                let old = outputDirectory + "/.old-\(getpid())-" + item
                try rename(target, old)
                try rename(staged, target)
                try? fm.removeItem(atPath: old)
            } else {
                try rename(staged, target)
            }
        }
        try? fm.removeItem(atPath: stagingDirectory)
        committed = true
    }

    /// Removes the staging folder, leaving the previous outputs as they were.
    public func discard() {
        if !committed { try? FileManager.default.removeItem(atPath: stagingDirectory) }
    }

    private func rename(_ from: String, _ to: String) throws {
        guard Glibc.rename(from, to) == 0 else {
            throw InputError(file: to, "cannot move output into place: \(String(cString: strerror(errno)))")
        }
    }

    /// Creates a folder (and its parents) owner-only; an existing folder is kept as it is.
    static func makeDirectory(_ path: String) throws {
        var st = stat()
        if stat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFDIR else { throw InputError(file: path, "output path exists and is not a folder") }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw InputError(file: path, "cannot create output folder: \(String(cString: strerror(errno == 0 ? EACCES : errno)))")
        }
    }

    /// Staging folders left by killed runs (their process is gone) are deleted.
    static func removeStaleStaging(in directory: String) {
        guard let items = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for item in items where item.hasPrefix(".staging-") || item.hasPrefix(".old-") {
            let pidText = item.hasPrefix(".staging-") ? item.dropFirst(9) : item.dropFirst(5).prefix { $0 != "-" }
            if let pid = Int32(pidText), pid != getpid(), kill(pid, 0) != 0 {
                try? FileManager.default.removeItem(atPath: directory + "/" + item)
            }
        }
    }
}
