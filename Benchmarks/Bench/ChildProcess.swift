#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one child process cost: wall time and peak resident memory.
struct Measurement: Codable {
    /// Seconds from just before `posix_spawn` to `wait4`'s return, on the monotonic clock.
    var seconds: Double
    /// Peak resident set size in KiB, from `wait4`'s `ru_maxrss`.
    var peakRSSKiB: Int
    /// CPU time over all its threads, user + system, from the same rusage: what the work costs
    /// however it is spread over the cores.
    var cpuSeconds: Double
}

/// A child that exited non-zero or was killed.
struct ChildFailure: Error, CustomStringConvertible {
    var command: [String]
    var status: String

    /// The stderr tail is only shown when the child ran (a spawn failure has none).
    var stderrTail: String?

    var description: String {
        let head = "\(command.joined(separator: " ")) \(status)"
        guard let stderrTail else { return head }
        return head + "\n--- last lines of its stderr ---\n" + stderrTail
    }
}

/// Runs `command` to completion with stdout and stderr sent to files, and measures it.
///
/// `posix_spawn` rather than Foundation's `Process`: no extra threads or pipes in the driver while a
/// child runs, and `wait4` hands back the child's own rusage.
func measure(_ command: [String], stdoutPath: String, stderrPath: String) throws -> Measurement {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

    let argv = command.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }

    resetPeakRSS()
    var pid: pid_t = 0
    let started = monotonicSeconds()
    let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, environ)
    guard spawned == 0 else {
        throw ChildFailure(command: command, status: "could not start: \(String(cString: strerror(spawned)))", stderrTail: nil)
    }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 {
        guard errno == EINTR else { fatalError("wait4 failed: \(String(cString: strerror(errno)))") }
    }
    let seconds = monotonicSeconds() - started

    // WIFEXITED / WEXITSTATUS are macros Swift cannot import: decode the status word by hand.
    let signal = status & 0x7F
    let exitCode = (status >> 8) & 0xFF
    if signal != 0 || exitCode != 0 {
        let how = signal != 0 ? "was killed by signal \(signal)" : "exited with status \(exitCode)"
        throw ChildFailure(command: command, status: how, stderrTail: tail(ofFile: stderrPath))
    }
    func cpu(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return Measurement(
        seconds: seconds, peakRSSKiB: kibibytes(maxRSS: usage.ru_maxrss),
        cpuSeconds: cpu(usage.ru_utime) + cpu(usage.ru_stime))
}

/// Lowers the driver's own peak-RSS mark to its current RSS (Linux only).
///
/// glibc's `posix_spawn` runs the child on the parent's address space until `exec`, and the kernel
/// folds that address space's high-water mark into the child's `ru_maxrss`. Without this reset a
/// child would never read below the driver's peak; with it, never below the driver's current RSS,
/// which `rssResolution()` measures.
func resetPeakRSS() {
    #if os(Linux)
    let fd = open("/proc/self/clear_refs", O_WRONLY)
    guard fd >= 0 else { return }
    _ = write(fd, "5", 1)   // 5: reset the peak RSS to the current RSS (proc(5)).
    close(fd)
    #endif
}

/// The smallest peak RSS this method can report: that of `/bin/true`, whose own need is ~1 MiB.
/// Figures at or near it say "no more than this", not "exactly this".
func rssResolution(scratchDir: String) -> Int? {
    let sink = scratchDir + "/true.out"
    defer { unlink(sink) }
    return (try? measure(["/bin/true"], stdoutPath: sink, stderrPath: sink))?.peakRSSKiB
}

/// `ru_maxrss` in KiB: Linux reports KiB, macOS bytes.
func kibibytes(maxRSS: Int) -> Int {
    #if os(Linux)
    return maxRSS
    #else
    return maxRSS / 1024
    #endif
}

/// Seconds on the monotonic clock (immune to wall-clock adjustments).
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// The last `lines` lines of a text file (a child's stderr), or a note if it is empty.
func tail(ofFile path: String, lines: Int = 20) -> String {
    guard let text = readTextFile(path), !text.isEmpty else { return "(empty)" }
    return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
}

/// A small file's content as text, or nil if it cannot be read.
func readTextFile(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n == 0 { break }
        bytes.append(contentsOf: buffer[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}
