import Foundation
import HealthTrailArchive
import HealthTrailBase

#if canImport(Glibc)
import Glibc
#endif

/// Moves a complete staging folder into the output folder so that the folder holds every
/// output of the previous run or every output of this one, whatever stops the process.
///
/// The steps, in order:
/// 1. The journal `.commit-<pid>` is written and synced. It names the staging folder and lists
///    the stale outputs: files the previous manifest lists that this run does not write.
/// 2. Each staged file but `manifest.json` replaces its target by `rename`. A replaced file is
///    kept in the staging folder's `.previous/` until the end, so a failure can be undone.
/// 3. The stale outputs are moved into `.previous/` too.
/// 4. `manifest.json` goes last. It says which run the folder holds, and the next run reads it
///    to decide "nothing new", so it must not name this run before every file is in place.
/// 5. The staging folder is removed, then the journal.
///
/// A failed rename undoes the steps done, in reverse. A process killed after step 1 leaves its
/// journal. The next run that takes the folder's lock calls `rollForward` before anything else.
/// That repeats steps 2 to 5 for what is left; each step can be repeated safely.
///
/// Only files are moved or removed, never whole folders. A file the user put in `records/`
/// stays, and a file HealthTrail did not write is never replaced (`notOurs`). Every path is
/// reached from the output folder without following a symbolic link (`OpenedFolder`): a link
/// where one of its folders stood refuses the commit before anything is moved, so nothing
/// behind it is written or removed; a link where one of its files stood is replaced or removed
/// as a link.
package struct OutputCommit {
    /// The manifest, renamed into place last.
    package static let manifestName = "manifest.json"
    package static let notOurs =
        "exists and was not written by HealthTrail, which never replaces such a file: move it away or choose another output folder"
    /// Inside the staging folder: the files this commit replaced or retired, until it ends.
    package static let previousFolder = ".previous"

    package let outputDirectory: String
    package let stagingDirectory: String

    /// The journal of the commit of process `pid`.
    package static func journalPath(_ outputDirectory: String, pid: Int32) -> String { outputDirectory + "/.commit-\(pid)" }

    /// Runs steps 1 to 5. `listed` is what the previous manifest lists (nil when the folder has
    /// no manifest): the only files a commit may replace or remove.
    ///
    /// Every path is reached from the output folder without following a link (`OpenedFolder`),
    /// and every folder on the way of an output or a stale file is checked before the journal
    /// is written: a link there refuses the commit with nothing moved.
    package func run(listed: Set<String>, journal: String) throws {
        let staged = try Self.stagedFiles(in: stagingDirectory)
        let written = Set(staged)
        let root = try OpenedFolder(outputDirectory)
        let stale = listed.subtracting(written).subtracting([Self.manifestName]).sorted()
        for file in staged + stale {
            // Walking the path throws at a link or a file where a folder should be.
            guard let (folder, name) = try root.existingParent(of: file) else { continue }
            if written.contains(file), file != Self.manifestName, !listed.contains(file), folder.kind(of: name) != nil {
                throw InputError(file: outputDirectory + "/" + file, Self.notOurs)
            }
        }
        let stagingName = URL(fileURLWithPath: stagingDirectory).lastPathComponent
        var undo: [() -> Void] = []
        guard let staging = try root.subfolder(stagingName, create: false, undo: &undo) else {
            throw InputError(file: stagingDirectory, "the staging folder is missing")
        }
        try OutputFile.write(Array(([stagingName] + stale).map { $0 + "\n" }.joined().utf8), to: journal)
        do {
            for file in staged where file != Self.manifestName { try Self.place(file, from: staging, into: root, undo: &undo) }
            for file in stale { try Self.retire(file, in: root, to: staging, undo: &undo) }
            if written.contains(Self.manifestName) { try Self.place(Self.manifestName, from: staging, into: root, undo: &undo) }
        } catch {
            for step in undo.reversed() { step() }
            unlink(journal)
            throw error
        }
        Self.finish(root: root, staging: stagingDirectory, stale: stale, journal: journal)
    }

    /// Step 2 for one file: the target, if any, goes to `.previous/`, the staged file takes its place.
    private static func place(_ file: String, from staging: OpenedFolder, into root: OpenedFolder, undo: inout [() -> Void]) throws {
        let (source, sourceName) = try staging.makeParent(of: file, undo: &undo)
        let (target, name) = try root.makeParent(of: file, undo: &undo)
        if target.kind(of: name) != nil {
            let (previous, _) = try staging.makeParent(of: previousFolder + "/" + file, undo: &undo)
            try target.move(name, to: previous, name)
            undo.append { previous.moveBack(name, to: target, name) }
        }
        try source.move(sourceName, to: target, name)
        undo.append { target.moveBack(name, to: source, sourceName) }
    }

    /// Step 3 for one file: a stale output goes to `.previous/` (a folder in its place is left alone).
    private static func retire(_ file: String, in root: OpenedFolder, to staging: OpenedFolder, undo: inout [() -> Void]) throws {
        guard let (folder, name) = try root.existingParent(of: file), let kind = folder.kind(of: name), kind != S_IFDIR else { return }
        let (previous, _) = try staging.makeParent(of: previousFolder + "/" + file, undo: &undo)
        try folder.move(name, to: previous, name)
        undo.append { previous.moveBack(name, to: folder, name) }
    }

    /// Step 5, and the end of a roll-forward: what is left of the staging folder is deleted,
    /// then folders the stale outputs leave empty, then the journal.
    private static func finish(root: OpenedFolder, staging: String, stale: [String], journal: String) {
        try? FileManager.default.removeItem(atPath: staging)
        removeEmptyFolders(of: stale, in: root)
        unlink(journal)
    }

    // MARK: Recovery

    /// What `rollForward` found and did, for the log.
    package struct Recovery: Equatable {
        /// The pid of the run that was stopped.
        package var pid: Int32
        /// True when its commit was finished (the folder now holds that run's outputs); false
        /// when only an unfinished staging folder was removed (the folder kept what it held).
        package var finishedCommit: Bool
    }

    /// Finishes or removes what runs stopped before they ended left in `directory`. Call it
    /// while holding the folder's `OutputLock`: then no other run is using these files, so
    /// every journal and staging folder but those of this process belong to a stopped run
    /// (whatever `kill(pid, 0)` says: a pid is reused).
    ///
    /// A journal means its staging folder was complete: the commit is finished (roll forward).
    /// A staging folder without a journal was not: it is deleted, and the outputs stay as the
    /// previous run left them.
    /// - Throws: when a commit cannot be finished (the run must not go on over a mixed folder).
    package static func rollForward(in directory: String) throws -> [Recovery] {
        let fm = FileManager.default
        guard let items = try? fm.contentsOfDirectory(atPath: directory) else { return [] }
        var done: [Recovery] = []
        let own = getpid()
        for item in items.sorted() where item.hasPrefix(".commit-") {
            guard let pid = Int32(item.dropFirst(8)), pid != own else { continue }
            try finishCommit(journal: directory + "/" + item, in: directory)
            done.append(Recovery(pid: pid, finishedCommit: true))
        }
        for item in ((try? fm.contentsOfDirectory(atPath: directory)) ?? []).sorted() {
            let pidText: Substring
            if item.hasPrefix(".staging-") {
                // `.staging-<pid>`, or `.staging-<pid>.removed` when the run was stopped while
                // removing it (`OutputStaging.removeStagingFolder`).
                pidText = item.dropFirst(9).prefix { $0 != "." }
            } else if item.hasPrefix(".old-") {
                pidText = item.dropFirst(5).prefix { $0 != "-" }
            } else {
                continue
            }
            guard let pid = Int32(pidText), pid != own else { continue }
            if item.hasPrefix(".old-") {
                // Left by an older HealthTrail, which swapped whole folders: when the folder it
                // had moved aside is missing, this is the only copy of the previous outputs.
                let name = String(item.dropFirst(5).drop { $0 != "-" }.dropFirst())
                if !name.isEmpty, !name.contains("/"), !fm.fileExists(atPath: directory + "/" + name) {
                    _ = Glibc.rename(directory + "/" + item, directory + "/" + name)
                    continue
                }
            }
            try? fm.removeItem(atPath: directory + "/" + item)
            if item.hasPrefix(".staging-"), !done.contains(where: { $0.pid == pid }) {
                done.append(Recovery(pid: pid, finishedCommit: false))
            }
        }
        return done
    }

    /// Steps 2 to 5 for what a stopped commit left, from its journal. Like `run`, it reaches
    /// every path from the output folder without following a link, and a link in the way of
    /// a file it moves or removes throws (the folder is left as it is until the link is gone).
    private static func finishCommit(journal: String, in directory: String) throws {
        guard let data = FileManager.default.contents(atPath: journal) else {
            throw InputError(file: journal, "cannot read the journal of an interrupted commit")
        }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        guard let stagingName = lines.first, stagingName.hasPrefix(".staging-"), !stagingName.contains("/") else {
            // Written before anything was moved: the journal is written whole or not at all
            // before the first rename, so a damaged one means nothing was moved.
            unlink(journal)
            return
        }
        let root = try OpenedFolder(directory)
        let stale = lines.dropFirst().filter(isSafeRelativePath)
        var unused: [() -> Void] = []
        let staging = try root.subfolder(stagingName, create: false, undo: &unused)
        let staged = staging == nil ? [] : ((try? stagedFiles(in: directory + "/" + stagingName)) ?? [])
        for file in staged + stale { _ = try root.existingParent(of: file) }
        if let staging {
            for file in staged where file != manifestName {
                let (source, sourceName) = try staging.makeParent(of: file, undo: &unused)
                let (target, name) = try root.makeParent(of: file, undo: &unused)
                try source.move(sourceName, to: target, name)
            }
        }
        for file in stale {
            if let (folder, name) = try root.existingParent(of: file), let kind = folder.kind(of: name), kind != S_IFDIR {
                folder.removeFile(name)
            }
        }
        if let staging, staged.contains(manifestName) { try staging.move(manifestName, to: root, manifestName) }
        finish(root: root, staging: directory + "/" + stagingName, stale: Array(stale), journal: journal)
    }

    // MARK: Paths

    /// Every output file under `staging`, relative to it and sorted: names starting with a dot
    /// (scratch files, `.previous/`) are left out.
    package static func stagedFiles(in staging: String) throws -> [String] {
        var st = stat()
        guard lstat(staging, &st) == 0 else { return [] }
        let all = try FileManager.default.subpathsOfDirectory(atPath: staging)
        return all.filter { path in
            // Scratch files (spills) and `.previous/` start with a dot; no output does.
            guard !path.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else { return false }
            var st = stat()
            return lstat(staging + "/" + path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
        }.sorted()
    }

    /// A path a manifest or journal may name: relative, without `..`, `.` or empty components.
    package static func isSafeRelativePath(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/") else { return false }
        return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    /// Removes the folders above each stale file that are now empty, deepest first. A folder
    /// holding anything else (a user's file) stays: `rmdir` removes only empty folders. Each is
    /// reached without following a link; one behind a link is left alone.
    private static func removeEmptyFolders(of files: [String], in root: OpenedFolder) {
        var folders = Set<String>()
        for file in files {
            var parts = file.split(separator: "/").dropLast()
            while !parts.isEmpty {
                folders.insert(parts.joined(separator: "/"))
                parts = parts.dropLast()
            }
        }
        for folder in folders.sorted(by: { $0.count > $1.count }) {
            guard let (parent, name) = try? root.existingParent(of: folder), parent.kind(of: name) == S_IFDIR else { continue }
            parent.removeEmptySubfolder(name)
        }
    }
}
