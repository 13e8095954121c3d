import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The progress line on a terminal: bytes read of the total and the rate, redrawn in place.
///
/// Silent when stderr is not a terminal (cron) or with `--quiet`.
public final class ProgressLine {
    public let enabled: Bool
    let total: UInt64
    var done: UInt64 = 0
    var label = ""
    let started: Double
    var lastDraw = 0.0
    /// Route files are decoded on two threads; both report here.
    private let lock = NSLock()

    public init(totalBytes: UInt64, enabled: Bool) {
        self.total = max(totalBytes, 1)
        self.enabled = enabled
        started = ProgressLine.now()
    }

    /// True when stderr is a terminal.
    public static var stderrIsTerminal: Bool { isatty(2) == 1 }

    public func begin(_ label: String) { self.label = label }

    @inline(__always)
    public func advance(_ bytes: Int) {
        lock.lock(); defer { lock.unlock() }
        done += UInt64(bytes)
        guard enabled else { return }
        let t = ProgressLine.now()
        if t - lastDraw >= 0.25 { lastDraw = t; draw(t) }
    }

    func draw(_ t: Double) {
        let mb = Double(done) / 1e6, totalMB = Double(total) / 1e6
        let rate = mb / max(t - started, 0.001)
        let percent = Int(Double(done) * 100 / Double(total))
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
