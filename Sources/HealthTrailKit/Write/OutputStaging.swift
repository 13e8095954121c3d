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
    private let state = NSLock()
    private var committing = false

    /// True from the first rename of `commit` on (read from a signal's handler thread).
    var isCommitting: Bool {
        state.lock(); defer { state.unlock() }
        return committing
    }

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

    /// The staging path of an output, creating its subfolder when needed. A path that could leave
    /// the staging folder (absolute, or with a `..` component) is refused: output names can carry
    /// text from the export.
    public func path(_ relative: String) throws -> String {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !relative.hasPrefix("/"), !parts.contains("..") else {
            throw InputError(file: outputDirectory, "refusing an output path that leaves the output folder")
        }
        let full = stagingDirectory + "/" + relative
        if let slash = relative.lastIndex(of: "/") {
            try OutputStaging.makeDirectory(stagingDirectory + "/" + relative[..<slash])
        }
        return full
    }

    // MARK: Whole files synced on another thread

    /// Fsyncs handed to `WriteBehindQueue.fileSyncs` and not yet done.
    private let pendingSyncs = DispatchGroup()
    /// At most this many files wait for their fsync with their descriptor open.
    private let syncSlots = DispatchSemaphore(value: 64)
    /// The first fsync that failed (guarded by `state`).
    private var syncFailure: InputError?

    /// Writes a whole output (an SVG map) owner-only, leaving its fsync to the thread of
    /// `WriteBehindQueue.fileSyncs`: the threads drawing hundreds of workout maps do not wait
    /// for the disk after each.
    /// `commit` waits for every such fsync first and fails on the first that failed, so no file
    /// is renamed into place before it is on disk.
    func writeFile(_ bytes: [UInt8], to path: String) throws {
        let fd = try OutputFile.writeUnsynced(bytes, to: path)
        syncSlots.wait()
        pendingSyncs.enter()
        WriteBehindQueue.fileSyncs.submit { [self] in
            if fsync(fd) != 0 && errno != EINVAL {
                let failure = InputError(file: path, "cannot write: \(String(cString: strerror(errno)))")
                state.lock(); if syncFailure == nil { syncFailure = failure }; state.unlock()
            }
            Glibc.close(fd)
            syncSlots.signal()
            pendingSyncs.leave()
        }
    }

    /// Waits for the fsyncs `writeFile` handed over; throws the first that failed.
    func waitForFileSyncs() throws {
        pendingSyncs.wait()
        state.lock(); let failure = syncFailure; state.unlock()
        if let failure { throw failure }
    }

    /// Moves every staged output into the output folder, replacing the previous ones.
    ///
    /// Files are replaced by an atomic rename; a folder cannot be, so the old one is first moved
    /// aside to `.old-<pid>-<name>` and deleted only after the new one is in place. If any rename
    /// fails, those already done are undone, in reverse, so the previous outputs stand as they
    /// were. A run killed between the two renames of a folder leaves `.old-<pid>-<name>`: the next
    /// run puts it back (see `removeStaleStaging`).
    public func commit() throws {
        try waitForFileSyncs()
        let fm = FileManager.default
        let items = try fm.contentsOfDirectory(atPath: stagingDirectory).sorted()
        // The journal says "this staging folder is complete": a run killed during the renames
        // is finished by the next one (roll forward), so the outputs never stay half old, half new.
        state.lock(); committing = true; state.unlock()
        let journal = Self.journalPath(outputDirectory, pid: getpid())
        try OutputFile.write(Array("\(URL(fileURLWithPath: stagingDirectory).lastPathComponent)\n".utf8), to: journal)
        defer { unlink(journal) }
        var undo: [() -> Void] = []
        var oldFolders: [String] = []
        do {
            for item in items {
                let staged = stagingDirectory + "/" + item
                let target = outputDirectory + "/" + item
                var isDir: ObjCBool = false
                _ = fm.fileExists(atPath: staged, isDirectory: &isDir)
                if isDir.boolValue, fm.fileExists(atPath: target) {
                    let old = outputDirectory + "/.old-\(getpid())-" + item
                    try rename(target, old)
                    undo.append { _ = Glibc.rename(old, target) }
                    try rename(staged, target)
                    undo.append { _ = Glibc.rename(target, staged) }
                    oldFolders.append(old)
                } else {
                    // A replaced file is kept aside too, so a failure later can restore it.
                    let previous = stagingDirectory + "/.previous-" + item
                    let existed = fm.fileExists(atPath: target)
                    if existed { try rename(target, previous); undo.append { _ = Glibc.rename(previous, target) } }
                    try rename(staged, target)
                    undo.append { _ = Glibc.rename(target, staged) }
                }
            }
        } catch {
            for step in undo.reversed() { step() }
            throw error
        }
        for old in oldFolders { try? fm.removeItem(atPath: old) }
        try? fm.removeItem(atPath: stagingDirectory)
        committed = true
    }

    /// Completes the commit a killed run had begun: what is still staged is moved into place.
    static func finishCommit(of pid: Int32, in directory: String) {
        let fm = FileManager.default
        let staging = directory + "/.staging-\(pid)"
        for item in ((try? fm.contentsOfDirectory(atPath: staging)) ?? []).sorted() where !item.hasPrefix(".previous-") {
            let staged = staging + "/" + item, target = directory + "/" + item
            var isDir: ObjCBool = false
            _ = fm.fileExists(atPath: staged, isDirectory: &isDir)
            if isDir.boolValue, fm.fileExists(atPath: target) {
                let old = directory + "/.old-\(pid)-" + item
                if !fm.fileExists(atPath: old) { _ = Glibc.rename(target, old) } else { try? fm.removeItem(atPath: target) }
            }
            _ = Glibc.rename(staged, target)
        }
        for item in ((try? fm.contentsOfDirectory(atPath: directory)) ?? []) where item.hasPrefix(".old-\(pid)-") {
            try? fm.removeItem(atPath: directory + "/" + item)
        }
        try? fm.removeItem(atPath: staging)
        unlink(journalPath(directory, pid: pid))
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

    static func journalPath(_ outputDirectory: String, pid: Int32) -> String { outputDirectory + "/.commit-\(pid)" }

    /// Staging folders left by killed runs (their process is gone) are deleted. A run killed while
    /// committing (its journal `.commit-<pid>` is still there) is finished first: its staging
    /// folder was complete. A folder a killed run had moved aside (`.old-<pid>-<name>`) is put
    /// back when `<name>` is missing: it is the only copy of the previous outputs.
    static func removeStaleStaging(in directory: String) {
        guard var items = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for item in items.sorted() where item.hasPrefix(".commit-") {
            guard let pid = Int32(item.dropFirst(8)), pid != getpid(), kill(pid, 0) != 0 else { continue }
            finishCommit(of: pid, in: directory)
        }
        items = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for item in items.sorted() where item.hasPrefix(".staging-") || item.hasPrefix(".old-") {
            let pidText = item.hasPrefix(".staging-") ? item.dropFirst(9) : item.dropFirst(5).prefix { $0 != "-" }
            guard let pid = Int32(pidText), pid != getpid(), kill(pid, 0) != 0 else { continue }
            if item.hasPrefix(".old-") {
                let name = String(item.dropFirst(5).drop { $0 != "-" }.dropFirst())
                let target = directory + "/" + name
                if !name.isEmpty && !FileManager.default.fileExists(atPath: target) {
                    _ = Glibc.rename(directory + "/" + item, target)
                    continue
                }
            }
            try? FileManager.default.removeItem(atPath: directory + "/" + item)
        }
    }
}
