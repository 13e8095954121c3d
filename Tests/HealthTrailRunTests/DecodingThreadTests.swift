import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailCommit
@testable import HealthTrailDecode
@testable import HealthTrailRun
@testable import HealthTrailXML

/// `healthtrail run` parses export.xml on one thread and decodes on another
/// (`ExportDecoder.decodeOnOwnThread`, `SAXEventCapture`); `inspect` decodes in libxml2's
/// callbacks (the fuzzer does both). Both must write the same bytes, count the same faults on the same lines,
/// and fail with the same error.
@Suite struct DecodingThreadTests {
    struct Outcome: Equatable {
        var files: [String: Data]
        var faults: [Fault]
        var total: Int
        var error: String?
        var workouts: Int
        /// Every workout's metadata: one value is larger than a capture block.
        var workoutMetadata: [[String]]
        var heartRate: Int
    }

    static func decode(_ xml: String, threaded: Bool, strict: Bool = false, in dir: String) throws -> Outcome {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try xml.write(toFile: dir + "/export.xml", atomically: true, encoding: .utf8)
        let source = try openExportSource(path: dir + "/export.xml")
        let layout = try ExportLayout(source: source)
        let staging = try OutputStaging(outputDirectory: dir + "/out")
        defer { staging.discard() }
        let outputs = try ExportOutputs(staging: staging)
        let faults = FaultLog(file: "export.xml", strict: strict)
        let decoder = ExportDecoder(
            sink: RunRecordSink(outputs: outputs, priority: .default), faults: faults, fileName: "export.xml",
            entryName: "export.xml")
        if threaded { decoder.decodeOnOwnThread() }
        var failure: String?
        do {
            _ = try ExportRun.stream(
                layout.mainXML, of: source, into: decoder,
                progress: ProgressLine(totalBytes: 1, enabled: false))
        } catch {
            failure = "\(error)"
        }
        _ = try? outputs.closeAll()
        var files: [String: Data] = [:]
        for name in FileManager.default.subpaths(atPath: staging.stagingDirectory) ?? [] where name.hasSuffix(".csv") {
            files[name] = FileManager.default.contents(atPath: staging.stagingDirectory + "/" + name)
        }
        return Outcome(
            files: files, faults: faults.first, total: faults.total, error: failure,
            workouts: decoder.workouts.count,
            workoutMetadata: decoder.workouts.map { $0.metadata.flatMap { [$0.key, $0.value] } },
            heartRate: decoder.heartRateSamples)
    }

    /// About 2 MB of export: several blocks of captured elements, values larger than a block (in
    /// a record's metadata and in the workout's, which the decoder keeps), faults at known places,
    /// nested children, a correlation, a workout.
    /// - Parameter onlyFaultAt: the one faulty record (a non-numeric value); nil: faults every
    ///   thousand records or so.
    static func export(records: Int = 12_000, brokenAt: Int? = nil, onlyFaultAt: Int? = nil) -> String {
        var body = ""
        for i in 0..<records {
            let day = 1 + (i / 2_000) % 27, minute = i % 1_440
            let date = String(format: "2024-02-%02d %02d:%02d:00 +0100", day, minute / 60, minute % 60)
            let patterned = onlyFaultAt == nil
            let start = patterned && i % 997 == 5 ? "2024-02-31 nonsense" : date
            let value = (patterned && i % 1_009 == 7) || i == onlyFaultAt ? "lots" : "\(60 + i % 90)"
            if i % 3 == 0 {
                body +=
                    " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Watch\" device=\"&lt;&lt;HKDevice: 0x1&gt;, name:Apple Watch&gt;\" unit=\"count/min\" creationDate=\"\(date)\" startDate=\"\(start)\" endDate=\"\(date)\" value=\"\(value)\">\n"
                    + "  <MetadataEntry key=\"HKMetadataKeyHeartRateMotionContext\" value=\"\(i % 2 + 1)\"/>\n </Record>\n"
            } else {
                body +=
                    " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"iPhone\" unit=\"count\" startDate=\"\(start)\" endDate=\"\(date)\" value=\"\(value)\"/>\n"
            }
            if i == 4_000 {
                body +=
                    " <Record type=\"HKQuantityTypeIdentifierBodyMass\" sourceName=\"Scale\" unit=\"kg\" startDate=\"\(date)\" endDate=\"\(date)\" value=\"70\">\n"
                    + "  <MetadataEntry key=\"Note\" value=\"\(String(repeating: "n", count: 400_000))\"/>\n </Record>\n"
                body +=
                    " <Correlation type=\"HKCorrelationTypeIdentifierBloodPressure\" startDate=\"\(date)\" endDate=\"\(date)\">\n"
                    + "  <Record type=\"HKQuantityTypeIdentifierBloodPressureSystolic\" unit=\"mmHg\" startDate=\"\(date)\" endDate=\"\(date)\" value=\"120\"/>\n </Correlation>\n"
            }
            if i == brokenAt { body += " <Record type=\"x\" <oops/>\n" }
        }
        body += """
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" startDate="2024-02-03 07:00:00 +0100" endDate="2024-02-03 07:30:00 +0100">
              <MetadataEntry key="HKIndoorWorkout" value="0"/>
              <MetadataEntry key="Notes" value="\(String(repeating: "0123456789", count: 50_000))"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="2024-02-03 07:00:00 +0100" endDate="2024-02-03 07:30:00 +0100" sum="5.1" unit="km"/>
             </Workout>
            """
        return Support.exportXML(body)
    }

    @Test func bothPathsWriteTheSameBytesAndFaults() throws {
        let dir = Support.temporaryDirectory()
        let xml = Self.export()
        let direct = try Self.decode(xml, threaded: false, in: dir + "/direct")
        let threaded = try Self.decode(xml, threaded: true, in: dir + "/threaded")
        #expect(direct.error == nil && direct.total > 20 && direct.workouts == 1 && direct.heartRate > 3_000)
        #expect(direct.workoutMetadata.first?.last?.count == 500_000)
        #expect(direct.files.keys.sorted() == threaded.files.keys.sorted())
        for (name, data) in direct.files { #expect(threaded.files[name] == data, "\(name)") }
        #expect(direct.faults == threaded.faults && direct.total == threaded.total)
        #expect(direct == threaded)
        // Lines come from the captured elements: the first bad date is record 5's.
        #expect(threaded.faults.first?.kind == "bad_date")
        #expect(
            threaded.faults.first?.line == xml.prefix(upTo: xml.range(of: "2024-02-31")!.lowerBound)
                .filter { $0 == "\n" }.count + 1)
    }

    @Test func strictStopsAtTheSameFaultBothWays() throws {
        let dir = Support.temporaryDirectory()
        let xml = Self.export()
        let direct = try Self.decode(xml, threaded: false, strict: true, in: dir + "/direct")
        let threaded = try Self.decode(xml, threaded: true, strict: true, in: dir + "/threaded")
        #expect(direct.error?.contains("(--strict)") == true, "\(String(describing: direct.error))")
        #expect(threaded.error == direct.error && threaded.total == 1 && direct.total == 1)
    }

    @Test func aFaultBeforeAnXMLErrorWinsUnderStrict() throws {
        let dir = Support.temporaryDirectory()
        // The fault is five records before the error: still queued for the decoding thread when
        // libxml2 meets the error, so the parse must wait for the decoding before it reports.
        let xml = Self.export(brokenAt: 9_000, onlyFaultAt: 8_995)
        let lenient = try Self.decode(xml, threaded: true, in: dir + "/lenient")
        #expect(lenient.error?.contains("malformed XML") == true, "\(String(describing: lenient.error))")
        let direct = try Self.decode(xml, threaded: false, strict: true, in: dir + "/direct")
        let threaded = try Self.decode(xml, threaded: true, strict: true, in: dir + "/threaded")
        #expect(threaded.error == direct.error && threaded.error?.contains("(--strict)") == true)
        #expect(threaded.error?.contains("not a number") == true, "\(String(describing: threaded.error))")
    }

    @Test func anXMLErrorIsReportedAfterEverythingBeforeItIsDecoded() throws {
        let dir = Support.temporaryDirectory()
        let xml = Self.export(brokenAt: 9_000)
        let direct = try Self.decode(xml, threaded: false, in: dir + "/direct")
        let threaded = try Self.decode(xml, threaded: true, in: dir + "/threaded")
        #expect(threaded.error == direct.error && threaded.error?.contains("line") == true)
        #expect(threaded.total == direct.total && threaded.faults == direct.faults)
        #expect(threaded.heartRate == direct.heartRate && threaded.heartRate > 2_500)
    }

    @Test func deepNestingFailsTheSameBothWays() throws {
        let dir = Support.temporaryDirectory()
        let xml = Support.exportXML(String(repeating: "<a>", count: 300) + String(repeating: "</a>", count: 300))
        let direct = try Self.decode(xml, threaded: false, in: dir + "/direct")
        let threaded = try Self.decode(xml, threaded: true, in: dir + "/threaded")
        #expect(direct.error?.contains("nested more than") == true, "\(String(describing: direct.error))")
        #expect(threaded.error == direct.error)
    }
}
