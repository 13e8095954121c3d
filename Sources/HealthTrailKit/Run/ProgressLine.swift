import Foundation
#if canImport(Glibc)
import Glibc
#endif
#if os(Linux)
import Synchronization
#endif

/// The progress line on a terminal: bytes read of the total and the rate, redrawn in place.
///
/// Silent when stderr is not a terminal (cron) or with `--quiet`.
public final class ProgressLine {
    public let enabled: Bool
    let total: UInt64
    /// Bytes read by the drawing thread (the one parsing export.xml).
    var done: UInt64 = 0
    var label = ""
    let started: Double
    var lastDraw = 0.0
    /// Bytes read by other threads (route files, decoded on two `SCHED_IDLE` threads). No lock is
    /// shared with them: one of them preempted while holding it would stall the parsing thread.
    #if os(Linux)
    private let backgroundDone = Atomic<UInt64>(0)
    #else
    private let lock = NSLock()
    private var backgroundDoneValue: UInt64 = 0
    #endif

    public init(totalBytes: UInt64, enabled: Bool) {
        self.total = max(totalBytes, 1)
        self.enabled = enabled
        started = ProgressLine.now()
    }

    /// True when stderr is a terminal.
    public static var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// Names what the drawing thread reads; call from that thread.
    public func begin(_ label: String) { self.label = label }

    /// Counts bytes read by the drawing thread, and redraws at most four times a second.
    @inline(__always)
    public func advance(_ bytes: Int) {
        done += UInt64(bytes)
        guard enabled else { return }
        let t = ProgressLine.now()
        if t - lastDraw >= 0.25 { lastDraw = t; draw(t) }
    }

    /// Counts bytes read by any other thread; the next `advance` shows them.
    public func advanceInBackground(_ bytes: Int) {
        #if os(Linux)
        _ = backgroundDone.wrappingAdd(UInt64(bytes), ordering: .relaxed)
        #else
        lock.withLock { backgroundDoneValue += UInt64(bytes) }
        #endif
    }

    /// Every byte counted so far, from all threads.
    var totalDone: UInt64 {
        #if os(Linux)
        return done &+ backgroundDone.load(ordering: .relaxed)
        #else
        return done &+ lock.withLock { backgroundDoneValue }
        #endif
    }

    func draw(_ t: Double) {
        let all = totalDone
        let mb = Double(all) / 1e6, totalMB = Double(total) / 1e6
        let rate = mb / max(t - started, 0.001)
        let percent = Int(Double(all) * 100 / Double(total))
        let line = "\r\u{1B}[2Khealthtrail: \(label)  \(Int(mb)) / \(Int(totalMB)) MB  (\(min(percent, 100))%)  \(Int(rate)) MB/s"
        fputs(line, stderr)
    }

    /// Clears the line.
    public func finish() {
        if enabled { fputs("\r\u{1B}[2K", stderr) }
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
