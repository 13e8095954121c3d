import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailRun

/// The progress line: numbers over the size of the same files, and never a log line on its end.
@Suite struct ProgressLineTests {
    /// A 120 MB export.xml beside 41 MB of route files once showed `export.xml 70 / 161 MB`.
    @Test func eachCountIsOverTheSizeOfTheSameFiles() {
        let line = ProgressLine.text(
            label: "export.xml", done: 70_400_000, total: 120_300_000,
            backgroundDone: 12_000_000, backgroundTotal: 41_000_000, seconds: 1)
        #expect(line == "healthtrail: export.xml  70 / 120 MB  routes 12 / 41 MB  (51%)  82 MB/s")
        // Without route files there is no second pair; a count past its size stops at the size.
        let alone = ProgressLine.text(
            label: "export.xml", done: 130_000_000, total: 120_000_000,
            backgroundDone: 0, backgroundTotal: 0, seconds: 2)
        #expect(alone == "healthtrail: export.xml  120 / 120 MB  (100%)  60 MB/s")
    }

    /// `run.finished` was written onto the end of the progress line: a log line erases it first.
    @Test func aLogLineErasesTheProgressLineFirst() throws {
        let path = Support.temporaryDirectory() + "/stderr"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        let terminal = TerminalLine(fd: fd)
        let progress = ProgressLine(totalBytes: 2_000_000, enabled: true, terminal: terminal)
        progress.begin("export.xml")
        progress.advance(1_000_000)   // the first advance draws
        terminal.writeLine("healthtrail: run finished [run.finished]\n")
        terminal.writeLine("healthtrail: second line\n")   // nothing left to erase
        progress.finish()   // nor here
        close(fd)
        let written = try String(contentsOfFile: path, encoding: .utf8)
        let erase = "\r\u{1B}[2K"
        #expect(written.hasPrefix(erase + "healthtrail: export.xml  1 / 2 MB  (50%)"))
        #expect(written.hasSuffix(" MB/s" + erase + "healthtrail: run finished [run.finished]\nhealthtrail: second line\n"))
    }
}
