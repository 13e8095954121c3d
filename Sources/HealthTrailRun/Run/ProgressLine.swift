import Foundation
import HealthTrailAnalysis
import HealthTrailArchive

#if canImport(Glibc)
import Glibc
#endif
#if os(Linux)
import Synchronization
#endif

/// The progress line on a terminal, redrawn in place: export.xml's bytes read of its size, and
/// beside them the route files' (decoded meanwhile on other threads) of theirs, each in MB of
/// uncompressed bytes (10^6), then the share of all bytes read and the rate.
///
/// Silent when stderr is not a terminal (cron) or with `--quiet`. A log line written through
/// `LogLineHandler` first erases a progress line still drawn (see `TerminalLine`), so it never
/// lands on the end of one.
package final class ProgressLine: BackgroundProgress {
    package let enabled: Bool
    /// Uncompressed bytes of what the drawing thread reads (export.xml).
    let total: UInt64
    /// Uncompressed bytes of what other threads read (route files).
    let backgroundTotal: UInt64
    let terminal: TerminalLine
    /// Bytes read by the drawing thread (the one parsing export.xml).
    var done: UInt64 = 0
    var label = ""
    let started: Double
    var lastDraw = 0.0
    /// Bytes read by other threads (route files, decoded on two low-priority threads). No lock is
    /// shared with them: one of them preempted while holding it would stall the parsing thread.
    #if os(Linux)
    private let backgroundDone = Atomic<UInt64>(0)
    #else
    private let lock = NSLock()
    private var backgroundDoneValue: UInt64 = 0
    #endif

    /// - Parameters:
    ///   - totalBytes: uncompressed size of what the drawing thread reads (export.xml).
    ///   - backgroundBytes: uncompressed size of what other threads read (the route files).
    ///   - enabled: draw at all (only on a terminal, never with `--quiet`).
    package convenience init(totalBytes: UInt64, backgroundBytes: UInt64 = 0, enabled: Bool) {
        self.init(totalBytes: totalBytes, backgroundBytes: backgroundBytes, enabled: enabled, terminal: .stderr)
    }

    init(totalBytes: UInt64, backgroundBytes: UInt64 = 0, enabled: Bool, terminal: TerminalLine) {
        self.total = max(totalBytes, 1)
        self.backgroundTotal = backgroundBytes
        self.enabled = enabled
        self.terminal = terminal
        started = ProgressLine.now()
    }

    /// True when stderr is a terminal.
    package static var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// Names what the drawing thread reads; call from that thread.
    package func begin(_ label: String) { self.label = label }

    /// Counts bytes read by the drawing thread, and redraws at most four times a second.
    @inline(__always)
    package func advance(_ bytes: Int) {
        done += UInt64(bytes)
        guard enabled else { return }
        let t = ProgressLine.now()
        if t - lastDraw >= 0.25 { lastDraw = t; draw(t) }
    }

    /// Counts bytes read by any other thread; the next `advance` shows them.
    package func advanceInBackground(_ bytes: Int) {
        #if os(Linux)
        _ = backgroundDone.wrappingAdd(UInt64(bytes), ordering: .relaxed)
        #else
        lock.withLock { backgroundDoneValue += UInt64(bytes) }
        #endif
    }

    /// Bytes counted by other threads so far.
    var backgroundBytesDone: UInt64 {
        #if os(Linux)
        return backgroundDone.load(ordering: .relaxed)
        #else
        return lock.withLock { backgroundDoneValue }
        #endif
    }

    func draw(_ t: Double) {
        terminal.drawProgress(
            Self.text(
                label: label, done: done, total: total, backgroundDone: backgroundBytesDone,
                backgroundTotal: backgroundTotal, seconds: t - started))
    }

    /// `healthtrail: export.xml  70 / 120 MB  routes 12 / 41 MB  (51%)  85 MB/s`: each count
    /// over the size of the same files, in the same unit; the share and rate over all of them.
    static func text(
        label: String, done: UInt64, total: UInt64, backgroundDone: UInt64, backgroundTotal: UInt64,
        seconds: Double
    ) -> String {
        func mb(_ bytes: UInt64) -> Int { Int(bytes / 1_000_000) }
        // Sizes come from the archive's directory: a lying entry may read past its size.
        let main = min(done, total), background = min(backgroundDone, backgroundTotal)
        let all = main + background, whole = max(1, total + backgroundTotal)
        var line = "healthtrail: \(label)  \(mb(main)) / \(mb(total)) MB"
        if backgroundTotal > 0 { line += "  routes \(mb(background)) / \(mb(backgroundTotal)) MB" }
        let percent = Int(Double(all) * 100 / Double(whole))
        let rate = Double(all) / 1e6 / max(seconds, 0.001)
        return line + "  (\(percent)%)  \(Int(rate)) MB/s"
    }

    /// Draws a stage that counts no bytes (`healthtrail: healthtrail.db, parquet/  3 / 27 tables`),
    /// from the drawing thread.
    package func status(_ text: String) {
        if enabled { terminal.drawProgress("healthtrail: " + text) }
    }

    /// Clears the line.
    package func finish() {
        if enabled { terminal.eraseProgress() }
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// The terminal line a progress line is drawn on, shared with the log: whatever writes a line
/// there first erases the progress line, so a log line never starts at the end of one. The next
/// progress update draws again below it.
package final class TerminalLine: Sendable {
    /// Standard error, where the progress line and `LogLineHandler`'s lines go.
    package static let stderr = TerminalLine(fd: 2)

    let fd: Int32
    /// A progress line is drawn and not yet erased.
    private let progressShown = Mutex(false)

    init(fd: Int32) { self.fd = fd }

    static let erase = "\r\u{1B}[2K"

    /// Draws `text` as the progress line, over the previous one.
    func drawProgress(_ text: String) {
        progressShown.withLock { shown in
            Self.put(fd, Self.erase + text)
            shown = true
        }
    }

    /// Erases the progress line, if one is drawn.
    func eraseProgress() {
        progressShown.withLock { shown in
            if shown { Self.put(fd, Self.erase) }
            shown = false
        }
    }

    /// Writes a whole line (ending in a newline) in one `write(2)`, erasing a progress line first.
    package func writeLine(_ text: String) {
        progressShown.withLock { shown in
            Self.put(fd, shown ? Self.erase + text : text)
            shown = false
        }
    }

    private static func put(_ fd: Int32, _ text: String) {
        writeFully(fd, Array(text.utf8))   // a terminal that fails a write loses the line, nothing else
    }
}
