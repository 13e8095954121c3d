import Foundation

/// How paths written in a pipeline file become absolute paths.
///
/// `~` and `~/…` are the user's home (read when the file is loaded, so cron's $HOME applies);
/// other relative paths are relative to the pipeline file's folder, not to wherever cron
/// happens to start, so a pipeline means the same thing from any working directory.
enum PipelinePaths {
    /// The absolute, standardised form of `path`; nil for `~user/…`, which is not supported
    /// (whose home it is depends on the machine's user database).
    static func resolve(_ path: String, home: String, folder: String) -> String? {
        var full = path
        if path == "~" {
            full = home
        } else if path.hasPrefix("~/") {
            full = home + path.dropFirst(1)
        } else if path.hasPrefix("~") {
            return nil
        } else if !path.hasPrefix("/") {
            full = folder + "/" + path
        }
        return standardised(full)
    }

    /// `a/./b/../c/` → `a/c`, without touching the disk (no symlinks resolved: the path may
    /// not exist yet, and a glob is not a file).
    static func standardised(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// True when a path component holds a glob character (`*`, `?`, `[`).
    static func isGlob(_ component: some StringProtocol) -> Bool {
        component.contains { $0 == "*" || $0 == "?" || $0 == "[" }
    }

    /// The folder holding `path` (`/a/b` → `/a`, `/a` → `/`).
    static func folder(of path: String) -> String {
        let parent = (path as NSString).deletingLastPathComponent
        return parent.isEmpty ? "/" : parent
    }
}
