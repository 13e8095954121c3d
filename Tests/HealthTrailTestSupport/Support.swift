import Foundation

@testable import HealthTrailArchive

package struct CSVShapeError: Error, CustomStringConvertible {
    package var path: String, row: Int, fields: Int, expected: Int
    package var description: String { "\(path): row \(row) has \(fields) fields, the header \(expected)" }
}

/// Paths and helpers shared by the tests.
package enum Support {
    /// The package root (this file is Tests/HealthTrailTestSupport/Support.swift).
    package static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// ../shared/fixtures/real beside the checkout (or $HEALTHTRAIL_FIXTURES); nil when absent.
    package static let realFixtures: URL? = {
        let env = ProcessInfo.processInfo.environment["HEALTHTRAIL_FIXTURES"]
        let url =
            env.map { URL(fileURLWithPath: $0) }
            ?? packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/real")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }()

    package static var hasRealFixtures: Bool { realFixtures != nil }

    package static func fixture(_ relative: String) -> String { realFixtures!.appendingPathComponent(relative).path }

    /// A fresh temporary folder under this test process's own root (`healthtrail-tests-<pid>`
    /// in `$TMPDIR`). Nothing removes it when the process ends: a failed test's files stay to
    /// be looked at, and the root can be deleted whole.
    package static func temporaryDirectory(_ name: String = #function) -> String {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("healthtrail-tests-\(getpid())")
        let dir = base.appendingPathComponent(name.filter { $0.isLetter || $0.isNumber } + "-" + UUID().uuidString.prefix(8))
        try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.path
    }

    /// Writes a zip with the given entries (name → text).
    package static func makeZip(_ path: String, _ entries: [(String, String)], forceZip64: Bool = false) throws {
        let zip = try ZipWriter(path: path)
        zip.forceZip64 = forceZip64
        for (name, text) in entries { try zip.addEntry(name, bytes: Array(text.utf8)) }
        try zip.finish()
    }

    /// Reads a CSV file (RFC 4180) into its header and rows: an implementation independent of
    /// the writer, so the tests check the format rather than the writer's own assumptions.
    package static func readCSV(_ path: String) throws -> (header: [String], rows: [[String]]) {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var chars = Array(text)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if quoted {
                if c == "\"" {
                    if i + 1 < chars.count && chars[i + 1] == "\"" { field.append("\""); i += 1 } else { quoted = false }
                } else {
                    field.append(c)
                }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                row.append(field); field = ""
            } else if c == "\n" {
                row.append(field); field = ""
                rows.append(row); row = []
            } else {
                field.append(c)
            }
            i += 1
        }
        if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
        chars = []
        guard let header = rows.first else { return ([], []) }
        // Every row has as many fields as the header: a missing comma is a broken file.
        if let bad = rows.firstIndex(where: { $0.count != header.count }) {
            throw CSVShapeError(path: path, row: bad, fields: rows[bad].count, expected: header.count)
        }
        return (header, Array(rows.dropFirst()))
    }

    /// The XML prolog of a current export, with a DTD like Apple's (shortened).
    package static let prolog = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!-- HealthKit Export Version: 13 -->
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary)*)>
        <!ATTLIST HealthData
          locale CDATA #REQUIRED
        >
        ]>
        <HealthData locale="en_US">
         <ExportDate value="2024-03-01 09:00:00 +0100"/>
         <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-05-06" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet"/>

        """

    /// Three heart-rate records: a device string to elide, a source name with quotes and an
    /// ampersand, readings in two time zones.
    package static let heartRateRecords = """
         <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Alex’s Apple Watch" sourceVersion="9.1" device="&lt;&lt;HKDevice: 0x283f0a2b0&gt;, name:Apple Watch&gt;&gt;" unit="count/min" creationDate="2024-01-02 07:31:30 -0800" startDate="2024-01-02 07:31:22 -0800" endDate="2024-01-02 07:31:22 -0800" value="72">
          <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="1"/>
         </Record>
         <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Polar, &quot;H10&quot; &amp; Co" unit="count/min" startDate="2024-01-02 07:40:00 -0800" endDate="2024-01-02 07:40:00 -0800" value="131.5">
          <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="2"/>
         </Record>
         <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Alex’s Apple Watch" unit="count/min" startDate="2024-01-02 23:59:59 +0100" endDate="2024-01-02 23:59:59 +0100" value="55"/>

        """

    /// A whole export.xml around `body`.
    package static func exportXML(_ body: String) -> String { prolog + body + "\n</HealthData>\n" }

    /// The binary users run: `.build/release/healthtrail` as `make build` makes it (or
    /// `$HEALTHTRAIL_BINARY`). Every test that drives the command line drives this one, never a
    /// debug build: a flag that changed what the release build computes would otherwise go unseen.
    /// A missing binary, or one older than Sources/, stops the test process with the command that
    /// builds it, rather than testing old code.
    package static let binary: String = builtBinary(environment: "HEALTHTRAIL_BINARY", configuration: "release")

    /// The debug build of the same sources (`$HEALTHTRAIL_DEBUG_BINARY`, else
    /// `.build/debug/healthtrail`), for the tests that require both builds to write the same bytes.
    package static var debugBinary: String { builtBinary(environment: "HEALTHTRAIL_DEBUG_BINARY", configuration: "debug") }

    private static func builtBinary(environment: String, configuration: String) -> String {
        let path =
            ProcessInfo.processInfo.environment[environment]
            ?? packageRoot.appendingPathComponent(".build/\(configuration)/healthtrail").path
        let make = configuration == "release" ? "make test" : "make test-agreement"
        let build = "`swift build\(configuration == "release" ? " -c release" : "") --product healthtrail` (\(make) does)"
        guard let built = modificationDate(path) else { fatalError("\(path) is missing: \(build)") }
        if let newest = newestSource(), built < newest { fatalError("\(path) is older than Sources/: \(build)") }
        return path
    }

    private static func modificationDate(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    /// The newest modification time among Package.swift and the files below Sources/.
    private static func newestSource() -> Date? {
        var newest = modificationDate(packageRoot.appendingPathComponent("Package.swift").path)
        let walker = FileManager.default.enumerator(
            at: packageRoot.appendingPathComponent("Sources"),
            includingPropertiesForKeys: [.contentModificationDateKey])
        while let url = walker?.nextObject() as? URL {
            if let date = try? url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate,
                date > (newest ?? .distantPast)
            {
                newest = date
            }
        }
        return newest
    }

    /// Runs the binary in `isolatedEnvironment()`; returns exit code, stdout, stderr. A run still
    /// going after `timeout` seconds is killed and reported as exit 137 (128 + SIGKILL), so a
    /// hung run fails its test instead of holding up the suite.
    @discardableResult
    package static func runCLI(_ arguments: [String], timeout: Double = 300) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProgram(binary, arguments, environment: isolatedEnvironment(), timeout: timeout)
    }

    /// This process's environment with `XDG_STATE_HOME` in a fresh temporary folder: a run that
    /// names no budget folder keeps its budget there, never in the real home and never shared
    /// with another test. A test that needs one budget across runs names it (`--budget-dir`).
    package static func isolatedEnvironment() -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        var template = Array((NSTemporaryDirectory() + "/healthtrail-state-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        environment["XDG_STATE_HOME"] = made.map { String(cString: $0) } ?? NSTemporaryDirectory()
        return environment
    }

    /// Runs any program; returns its exit code (128 + the signal when a signal ended it),
    /// stdout and stderr. A program still running after `timeout` seconds is killed and
    /// reported as killed by SIGKILL.
    @discardableResult
    package static func runProgram(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        timeout: Double = 300
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment {
            process.environment = environment
        } else if executable == binary {
            process.environment = isolatedEnvironment()
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return (status, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    /// Every file below a folder with its bytes, for before/after comparisons.
    package static func snapshot(_ dir: String) throws -> [String: Data] {
        var result: [String: Data] = [:]
        let base = URL(fileURLWithPath: dir)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey]) else { return [:] }
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            result[String(url.path.dropFirst(base.path.count))] = try Data(contentsOf: url)
        }
        return result
    }
}
