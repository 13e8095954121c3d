import Foundation
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailKit
@testable import HealthTrailXML

#if canImport(Glibc)
import Glibc
import HealthTrailTestSupport
#endif

/// Hostile export.xml and GPX content run through `healthtrail run`: each ends in exit 1 with
/// one line on stderr and the previous outputs untouched, or in a counted skip, and never in a
/// crash, a file or network read, or memory growing with the input.
@Suite struct HostileXMLTests {
    static let xmlName = "apple_health_export/export.xml"
    static let routeName = "apple_health_export/workout-routes/route_2024-01-02_7.10am.gpx"
    /// Peak memory allowed to a run over a 200 MB element: a debug build reading a small export
    /// peaks near 40 MB; holding the element would take 200 MB more.
    static let boundedRSSKiB = 160 * 1024

    /// A workout whose route file is `routeName`, for export.xml.
    static let workoutWithRoute = """
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="W" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:10:00 +0100">
          <WorkoutRoute sourceName="W" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:10:00 +0100">
           <FileReference path="/workout-routes/route_2024-01-02_7.10am.gpx"/>
          </WorkoutRoute>
         </Workout>
        """

    static let trkpt = #"<trkpt lon="11.5" lat="48.1"><ele>500</ele><time>2024-01-02T06:00:01Z</time></trkpt>"#

    static func gpx(doctype: String = "", points: String) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\(doctype)<gpx version=\"1.1\"><trk><trkseg>\n\(points)\n</trkseg></trk></gpx>\n"
    }

    /// A folder with the outputs of a good run in `out/`, and their snapshot.
    static func folderWithOutputs() throws -> (dir: String, before: [String: Data]) {
        let dir = Support.temporaryDirectory()
        try Support.makeZip(dir + "/good.zip", [(xmlName, Support.exportXML(workoutWithRoute)), (routeName, gpx(points: trkpt))])
        let run = try Support.runCLI(["run", dir + "/good.zip", "--out", dir + "/out", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        return (dir, try Support.snapshot(dir + "/out"))
    }

    /// Runs the CLI on `input` into `dir/out`; expects exit 1, one stderr line containing
    /// `expected`, and the outputs as they were.
    static func expectRefused(
        _ input: String, in dir: String, before: [String: Data], containing expected: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let run = try Self.MeasuredRun(["run", input, "--out", dir + "/out", "--quiet"])
        #expect(run.status == 1, sourceLocation: sourceLocation)
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stderr.hasPrefix("healthtrail: error: \(input): "), "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stderr.localizedCaseInsensitiveContains(expected), "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.maxRSSKiB < boundedRSSKiB, "peak RSS \(run.maxRSSKiB) KiB", sourceLocation: sourceLocation)
        #expect(try Support.snapshot(dir + "/out") == before, sourceLocation: sourceLocation)
    }

    /// The run's counts and faults from manifest.json, as written (snake_case keys).
    struct Summary {
        var routePoints: Int
        var faultsByKind: [String: Int]
        var recordsByType: [String: Int]
    }

    static func manifest(_ dir: String) throws -> Summary {
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/manifest.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let counts = try #require(json["counts"] as? [String: Any])
        let faults = try #require(json["faults"] as? [String: Any])
        return Summary(
            routePoints: try #require(counts["route_points"] as? Int),
            faultsByKind: try #require(faults["by_kind"] as? [String: Int]),
            recordsByType: try #require(counts["records_by_type"] as? [String: Int]))
    }

    // MARK: Entities

    /// `SYSTEM` entities naming a local file (whose text would make a valid point) and a URL on
    /// a port this test listens on, in a route file's DTD: no declaration is ever recorded, so
    /// the first reference is an undefined entity; nothing is read and nothing connects.
    @Test func externalEntitiesAreNeverFetched() throws {
        let (dir, before) = try Self.folderWithOutputs()
        let secret = dir + "/secret.txt"
        try "2024-01-02T06:00:01Z".write(toFile: secret, atomically: true, encoding: .utf8)
        let listener = try Self.LocalListener()
        let doctype = """
            <!DOCTYPE gpx SYSTEM "http://127.0.0.1:\(listener.port)/gpx.dtd" [
              <!ENTITY file SYSTEM "file://\(secret)">
              <!ENTITY web SYSTEM "http://127.0.0.1:\(listener.port)/time">
              <!ENTITY % remote SYSTEM "http://127.0.0.1:\(listener.port)/dtd">
              %remote;
            ]>

            """
        for reference in ["&file;", "&web;"] {
            let points = "<trkpt lon=\"11.5\" lat=\"48.1\"><time>\(reference)</time></trkpt>"
            try Support.makeZip(
                dir + "/entities.zip",
                [
                    (Self.xmlName, Support.exportXML(Self.workoutWithRoute)),
                    (Self.routeName, Self.gpx(doctype: doctype, points: points)),
                ])
            try Self.expectRefused(dir + "/entities.zip", in: dir, before: before, containing: "malformed XML: undefined entity")
        }
        #expect(!listener.wasContacted)
    }

    /// export.xml's internal DTD is dropped before parsing (see PrologFilter), entity
    /// declarations with it: a reference to one is an undefined entity, a clean error.
    @Test func anEntityDeclaredInExportXMLIsUndefined() throws {
        let (dir, before) = try Self.folderWithOutputs()
        let secret = dir + "/secret.xml"
        try
            #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="S" unit="count" startDate="2024-01-01 10:00:00 +0000" endDate="2024-01-01 10:00:00 +0000" value="4242"/>"#
            .write(toFile: secret, atomically: true, encoding: .utf8)
        let xml = Support.exportXML(" &rec;\n").replacingOccurrences(
            of: "<!DOCTYPE HealthData [\n", with: "<!DOCTYPE HealthData [\n<!ENTITY rec SYSTEM \"file://\(secret)\">\n")
        try xml.write(toFile: dir + "/export.xml", atomically: true, encoding: .utf8)
        try Self.expectRefused(dir + "/export.xml", in: dir, before: before, containing: "malformed XML: undefined entity")
    }

    /// The billion laughs in a route file's DTD: libxml2's entity limits stop it at once.
    @Test func anEntityExpansionBombIsStopped() throws {
        let (dir, before) = try Self.folderWithOutputs()
        var doctype = "<!DOCTYPE gpx [\n  <!ENTITY lol0 \"lol\">\n"
        for level in 1...9 {
            doctype += "  <!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">\n"
        }
        doctype += "]>\n"
        let points = #"<trkpt lon="11.5" lat="48.1"><time>&lol9;</time></trkpt>"#
        try Support.makeZip(
            dir + "/laughs.zip",
            [
                (Self.xmlName, Support.exportXML(Self.workoutWithRoute)),
                (Self.routeName, Self.gpx(doctype: doctype, points: points)),
            ])
        try Self.expectRefused(dir + "/laughs.zip", in: dir, before: before, containing: "entity")
    }

    // MARK: Encoding and shape

    /// A Latin-1 byte in a UTF-8 file: refused, and the message quotes none of the file's bytes
    /// (libxml2's own message goes on with `Bytes: 0xE9 …`).
    @Test func invalidUTF8IsRefusedWithoutQuotingTheBytes() throws {
        let (dir, before) = try Self.folderWithOutputs()
        var bytes = Array(
            Support.exportXML(
                #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Caf_" unit="count" startDate="2024-01-01 10:00:00 +0000" endDate="2024-01-01 10:00:00 +0000" value="12"/>"#
            ).utf8)
        bytes[bytes.firstIndex(of: UInt8(ascii: "_"))!] = 0xE9
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/export.xml"))
        try Self.expectRefused(dir + "/export.xml", in: dir, before: before, containing: "malformed XML: invalid UTF-8")
        let run = try Support.runCLI(["run", dir + "/export.xml", "--out", dir + "/out", "--quiet"])
        #expect(!run.stderr.contains("0xE9") && !run.stderr.contains("Bytes"))
    }

    /// 100,000 nested elements in export.xml and in a route file: refused at depth 257, the
    /// limit libxml2 applies to its other parsers but not to the push parser.
    @Test func deepNestingIsRefused() throws {
        let (dir, before) = try Self.folderWithOutputs()
        let depth = 100_000
        let nested = String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
        try Support.exportXML(nested).write(toFile: dir + "/export.xml", atomically: true, encoding: .utf8)
        try Self.expectRefused(dir + "/export.xml", in: dir, before: before, containing: "elements nested more than 256 deep")

        try Support.makeZip(
            dir + "/deep-route.zip",
            [
                (Self.xmlName, Support.exportXML(Self.workoutWithRoute)),
                (Self.routeName, Self.gpx(points: nested)),
            ])
        try Self.expectRefused(dir + "/deep-route.zip", in: dir, before: before, containing: "elements nested more than 256 deep")
    }

    /// 1 MB attribute values: a type name that long is skipped and counted (it would become a
    /// file name), a long source name is kept, and a long number that overflows to infinity
    /// is skipped as out of range.
    @Test func megabyteAttributesAreSkippedOrKept() throws {
        let dir = Support.temporaryDirectory()
        let mb = 1 << 20
        let long = String(repeating: "x", count: mb)
        let record = { (type: String, source: String, value: String) in
            " <Record type=\"\(type)\" sourceName=\"\(source)\" unit=\"count\" startDate=\"2024-01-01 10:00:00 +0000\" endDate=\"2024-01-01 10:00:00 +0000\" value=\"\(value)\"/>\n"
        }
        let body =
            record("HKQuantityTypeIdentifier" + long, "W", "1")
            + record("HKQuantityTypeIdentifierStepCount", long, "2")
            + record("HKQuantityTypeIdentifierStepCount", "W", String(repeating: "9", count: mb))
            + record("HKQuantityTypeIdentifierStepCount", "W", "3")
        try Support.exportXML(body).write(toFile: dir + "/export.xml", atomically: true, encoding: .utf8)
        let run = try Self.MeasuredRun(["run", dir + "/export.xml", "--out", dir + "/out", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.maxRSSKiB < Self.boundedRSSKiB, "peak RSS \(run.maxRSSKiB) KiB")
        let manifest = try Self.manifest(dir + "/out")
        #expect(manifest.faultsByKind == ["bad_type": 1, "out_of_range": 1])
        #expect(manifest.recordsByType["HKQuantityTypeIdentifierStepCount"] == 2)
        let rows = try Support.readCSV(dir + "/out/records/step_count.csv").rows
        #expect(rows.map { $0[3] } == ["2", "3"])
        #expect(rows[0][5].count == mb)
    }

    // MARK: One huge element, streamed

    /// 1 MiB of digits repeating every 4 KiB: it deflates about 90:1, under the archive limits.
    static let digitBlock: [UInt8] = (0..<(1 << 20)).map { UInt8(ascii: "0") + UInt8(((($0 % 4096) &* 2_654_435_761) >> 13) % 10) }

    /// A route whose first point's `<ele>` is one 200 MB text node: libxml2 streams text in
    /// pieces, the decoder drops the field past 64 bytes as a counted fault, and the point
    /// is kept without it. Memory stays flat.
    @Test func aHugeTextNodeInARouteIsSkippedInBoundedMemory() throws {
        let dir = Support.temporaryDirectory()
        let zip = try ZipWriter(path: dir + "/huge-text.zip")
        try zip.addEntry(Self.xmlName, bytes: Array(Support.exportXML(Self.workoutWithRoute).utf8))
        let head = Array(Self.gpx(points: #"<trkpt lon="11.5" lat="48.1"><ele>"#).split(separator: "\n</trkseg>")[0].utf8)
        let tail = Array("</ele><time>2024-01-02T06:00:01Z</time></trkpt>\n\(Self.trkpt)\n</trkseg></trk></gpx>\n".utf8)
        try Support.addRepeatedEntry(zip, Self.routeName, head: head, block: Self.digitBlock, copies: 200, tail: tail)
        try zip.finish()

        let run = try Self.MeasuredRun(["run", dir + "/huge-text.zip", "--out", dir + "/out", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.maxRSSKiB < Self.boundedRSSKiB, "peak RSS \(run.maxRSSKiB) KiB")
        let manifest = try Self.manifest(dir + "/out")
        #expect(manifest.faultsByKind["field_too_long"] == 1)
        #expect(manifest.routePoints == 2)
        let rows = try Support.readCSV(dir + "/out/route_points.csv").rows
        #expect(rows.map { $0[4] } == ["", "500"])   // ele_m: dropped, then the next point's
    }

    /// A route whose first point's `lat` attribute is 200 MB: libxml2 gives up past its 10 MB
    /// limits (XML_MAX_TEXT_LENGTH / lookup) instead of buffering it, which also shows
    /// XML_PARSE_HUGE is off. The run fails cleanly in bounded memory.
    @Test func aHugeAttributeInARouteIsRefusedInBoundedMemory() throws {
        let (dir, before) = try Self.folderWithOutputs()
        let zip = try ZipWriter(path: dir + "/huge-attribute.zip")
        try zip.addEntry(Self.xmlName, bytes: Array(Support.exportXML(Self.workoutWithRoute).utf8))
        let head = Array(Self.gpx(points: #"<trkpt lon="11.5" lat="48."#).split(separator: "\n</trkseg>")[0].utf8)
        let tail = Array("\"><time>2024-01-02T06:00:01Z</time></trkpt>\n</trkseg></trk></gpx>\n".utf8)
        try Support.addRepeatedEntry(zip, Self.routeName, head: head, block: Self.digitBlock, copies: 200, tail: tail)
        try zip.finish()
        try Self.expectRefused(dir + "/huge-attribute.zip", in: dir, before: before, containing: Self.routeName + ": line 3: malformed XML")
    }

    /// libxml2's size limits, hit in export.xml: an 11 MB attribute value, and a million short
    /// attributes on one element. Each is one line saying which limit (libxml2 words both as
    /// "internal error", code 1), with the entry and the line the element starts on, and none of
    /// the document's text.
    @Test func aLimitOfLibxml2IsNamedWithItsEntryAndLine() throws {
        let (dir, before) = try Self.folderWithOutputs()
        let start = #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="S" unit="count" startDate="2024-01-01 10:00:00 +0000" value="1" "#
        // Letters from a linear congruential generator: the entry must not compress past the
        // 200:1 zip-bomb guard, which would refuse it first.
        var state: UInt32 = 1
        let letters = (0..<11_000_000).map { _ -> UInt8 in
            state = state &* 1_103_515_245 &+ 12_345
            return UInt8(ascii: "a") + UInt8((state >> 16) % 26)
        }
        let cases = [
            ("long-attribute", start + "device=\"" + String(decoding: letters, as: UTF8.self) + "\"/>"),
            ("many-attributes", start + (0..<1_000_000).map { "z\($0)=\"1\"" }.joined(separator: " ") + "/>"),
        ]
        for (name, element) in cases {
            let body = Support.exportXML(element)
            let recordLine = Self.line(of: "<Record", in: body)
            #expect(recordLine > 1)
            try Support.makeZip(dir + "/\(name).zip", [(Self.xmlName, body)])
            try Self.expectRefused(
                dir + "/\(name).zip", in: dir, before: before,
                containing: "\(Self.xmlName): line \(recordLine): malformed XML: a tag (an element's name and all its attributes) "
                    + "longer than 10,000,000 bytes, libxml2's limit, which no option raises")
            let run = try Support.runCLI(["run", dir + "/\(name).zip", "--out", dir + "/out", "--quiet"])
            #expect(
                !run.stderr.contains(String(decoding: letters.prefix(8), as: UTF8.self)) && !run.stderr.contains("z99")
                    && !run.stderr.contains("libxml2 error"), "\(name)")
        }
        // The phrase for each fixed message libxml2 gives at a limit; anything else is not one.
        #expect(SAXPushParser.limitPhrase("AttValue length too long\n")?.hasPrefix("an attribute value longer than 10,000,000 bytes") == true)
        #expect(SAXPushParser.limitPhrase("xmlSAX2Characters: huge text node")?.hasPrefix("a text, comment or CDATA") == true)
        #expect(SAXPushParser.limitPhrase("Specification mandates value for attribute SECRET\n") == nil)
    }

    /// The 1-based line on which `needle` first appears in `text`.
    static func line(of needle: String, in text: String) -> Int {
        guard let found = text.range(of: needle) else { return 0 }
        return text[..<found.lowerBound].filter { $0 == "\n" }.count + 1
    }

    // MARK: Growth with the input

    /// Decodes `xml` as export.xml without outputs (as `inspect` does); returns the decoder,
    /// its fault log and the error that ended it, if any.
    static func decode(_ xml: String) -> (ExportDecoder, FaultLog, Error?) {
        let faults = FaultLog(file: "export.xml", strict: false)
        let decoder = ExportDecoder(sink: nil, faults: faults, fileName: "export.xml", entryName: "export.xml")
        do {
            try decoder.feed(Array(xml.utf8))
            try decoder.finish()
            return (decoder, faults, nil)
        } catch {
            return (decoder, faults, error)
        }
    }

    /// Each record type costs an open CSV file and its buffer: a file naming a new type per
    /// record keeps the first 1,000 and counts the rest.
    @Test func recordTypesPastTheFirstThousandAreCountedNotKept() {
        let records = (0...1000).map {
            "<Record type=\"HKQuantityTypeIdentifierT\($0)\" unit=\"count\" startDate=\"2024-01-01 10:00:00 +0000\" value=\"1\"/>"
        }
        let (decoder, faults, error) = Self.decode("<HealthData>" + records.joined() + "</HealthData>")
        #expect(error == nil)
        #expect(decoder.recordTypes.count == 1000)
        #expect(faults.countsByKind == ["too_many_types": 1])
    }

    /// 10,000 copies of one workout get 10,000 ids in order; finding each free suffix from
    /// the last one given keeps that linear (from 2 every time, it was 50 million lookups).
    @Test func copiesOfOneWorkoutGetDistinctIDs() {
        let workout =
            #"<Workout workoutActivityType="HKWorkoutActivityTypeRunning" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:10:00 +0100"/>"#
        let (decoder, _, error) = Self.decode("<HealthData>" + String(repeating: workout, count: 10_000) + "</HealthData>")
        #expect(error == nil)
        let base = "20240102T060000Z-running"
        #expect(decoder.workouts.map(\.id) == [base] + (2...10_000).map { "\(base)-\($0)" })
    }

    /// libxml2 quotes names in its messages; ours name the kind of error only: a 50,000-byte
    /// element name gives a short line without it.
    @Test func anXMLErrorAboutAHugeNameStaysShort() {
        let name = String(repeating: "n", count: 50_000)
        let (_, _, error) = Self.decode("<HealthData><\(name)></other></HealthData>")
        let text = error.map { "\($0)" } ?? ""
        #expect(text.hasSuffix("line 1: malformed XML: mismatched end tag (element opened on line 1)"), "\(text)")
        #expect(text.count < 300 && !text.contains("nnn") && !text.contains("other") && !text.contains("\n"))
    }

    /// Values no real export holds: a body mass of 1e300 lb (finite, but too large for the
    /// fixed-point CSV writer, which trapped), a heart rate of 1e999 (infinite), and route
    /// points off the globe, inline and in a route file. The run succeeds; the points and both
    /// values are counted faults (numbers outside the range: docs/bad-input.md), and neither
    /// record is written.
    @Test func valuesOffTheScaleOrOffTheGlobeDoNotStopARun() throws {
        let dir = Support.temporaryDirectory()
        let body = """
             <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="W" unit="lb" startDate="2024-01-01 10:00:00 +0000" endDate="2024-01-01 10:00:00 +0000" value="1e300"/>
             <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="W" unit="count/min" startDate="2024-01-02 07:00:01 +0100" endDate="2024-01-02 07:00:01 +0100" value="1e999"/>
             <Workout workoutActivityType="HKWorkoutActivityTypeWalking" sourceName="W" startDate="2024-01-03 07:00:00 +0100" endDate="2024-01-03 07:10:00 +0100">
              <WorkoutRoute sourceName="W" startDate="2024-01-03 07:00:00 +0100" endDate="2024-01-03 07:10:00 +0100">
               <Location date="2024-01-03 07:00:01 +0100" latitude="1e300" longitude="-1e300"/>
               <Location date="2024-01-03 07:00:02 +0100" latitude="48.1" longitude="11.5"/>
               <Location date="2024-01-03 07:00:03 +0100" latitude="95" longitude="11.5"/>
              </WorkoutRoute>
             </Workout>

            """
        let points = """
            <trkpt lon="11.5" lat="91"><time>2024-01-02T06:00:01Z</time></trkpt>
            <trkpt lon="-180.5" lat="48.1"><time>2024-01-02T06:00:02Z</time></trkpt>
            \(Self.trkpt)
            """
        try Support.makeZip(
            dir + "/scale.zip",
            [
                (Self.xmlName, Support.exportXML(body + Self.workoutWithRoute)),
                (Self.routeName, Self.gpx(points: points)),
            ])
        let run = try Support.runCLI(["run", dir + "/scale.zip", "--out", dir + "/out", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let manifest = try Self.manifest(dir + "/out")
        #expect(manifest.faultsByKind == ["out_of_range": 6])
        #expect(manifest.routePoints == 2)
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/records/body_mass.csv"))
        #expect(try Support.readCSV(dir + "/out/heart_rate.csv").rows.isEmpty)
    }

    // MARK: Fuzzing findings

    /// Found by `fuzz-timestamp`: a date whose UTC instant falls outside years 0000–9999 was
    /// accepted and then written back as garbage (`000/-12-31T23:00:00Z`). Dates outside years
    /// 1900–2200 are not dates at all, in either format.
    @Test func datesOutsideTheSupportedYearsAreNotDates() {
        for text in [
            "0000-01-01 00:00:00 +0100", "0000-01-01 12:00:00 +1200", "9999-12-31 23:59:59 +0000",
            "1899-12-31 23:59:59 +0000", "2201-01-01 00:00:00 +0000", "0000-01-01T00:00:00Z",
            "1899-12-31T23:59:59.999Z", "2201-01-01T00:00:00+01:00",
        ] {
            #expect(Timestamp.parse(text) == nil, "\(text)")
        }
        #expect(Timestamp.parse("1900-01-01 00:00:00 +0100")?.utcString == "1899-12-31T23:00:00Z")
        #expect(Timestamp.parse("2200-12-31 23:59:59 -1400")?.utcString == "2201-01-01T13:59:59Z")
        #expect(Timestamp.parse("1900-01-01T00:00:00Z")?.utcString == "1900-01-01T00:00:00Z")
    }

    /// `healthtrail` run as a grandchild whose own peak memory is known. The peak resident set
    /// a process reports includes that of the process it was exec'd from, and this test
    /// process is large, so a small python3 parent forks and execs the binary and reports the
    /// child's `ru_maxrss` from `wait4`.
    struct MeasuredRun {
        var status: Int32
        var stderr: String
        var maxRSSKiB: Int

        static let launcher = """
            import os, sys
            err, argv = sys.argv[1], sys.argv[2:]
            pid = os.fork()
            if pid == 0:
                os.dup2(os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)
                os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
                os.execv(argv[0], argv)
            _, status, usage = os.wait4(pid, 0)
            print(status >> 8 if status & 0x7F == 0 else 128 + (status & 0x7F), usage.ru_maxrss)
            """

        init(_ arguments: [String]) throws {
            let errPath = Support.temporaryDirectory("stderr") + "/stderr.txt"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", Self.launcher, errPath, Support.binary] + arguments
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let report = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let fields = report.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            guard process.terminationStatus == 0, fields.count == 2 else {
                throw InputError(file: Support.binary, "the python3 launcher failed: \(report)")
            }
            status = Int32(fields[0])
            maxRSSKiB = fields[1]
            stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        }
    }

    /// A TCP socket listening on 127.0.0.1 that only records whether anyone connected.
    final class LocalListener {
        let fd: Int32
        let port: UInt16

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.fd = fd
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                    bind(fd, pointer, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, pointer, &length) == 0
                }
            }
            guard fd >= 0, bound else { throw InputError(file: "127.0.0.1", "cannot listen: \(String(cString: strerror(errno)))") }
            port = UInt16(bigEndian: address.sin_port)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }

        deinit { close(fd) }

        /// True when a connection is waiting to be accepted.
        var wasContacted: Bool {
            let client = accept(fd, nil, nil)
            if client >= 0 { close(client); return true }
            return false
        }
    }
}
