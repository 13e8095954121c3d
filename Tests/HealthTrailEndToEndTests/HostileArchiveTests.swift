import CZlib
import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailKit
@testable import HealthTrailRun
@testable import HealthTrailXML

/// Hostile and broken zip archives: each is refused with one line naming the archive, the entry
/// and what to do, before anything is inflated where the central directory already tells, and
/// never with a crash, unbounded output or a read outside the export.
@Suite struct HostileArchiveTests {
    static let xmlName = "apple_health_export/export.xml"

    /// Overwrites bytes of a file in place.
    static func patch(_ path: String, at offset: Int, _ bytes: [UInt8]) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        data.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
        try data.write(to: URL(fileURLWithPath: path))
    }

    static func le(_ value: UInt64, _ width: Int) -> [UInt8] { (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// Offsets of every central directory header in a zip.
    static func centralHeaders(_ path: String) throws -> [Int] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        return (0..<(bytes.count - 4)).filter { bytes.le32($0) == ZipCentralDirectory.centralHeaderSignature }
    }

    /// A small valid export.xml as a zip of one deflated entry and one route file.
    static func goodZip(_ path: String) throws {
        try Support.makeZip(
            path,
            [
                (
                    xmlName,
                    Support.exportXML(
                        """
                         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="W" unit="count" startDate="2024-01-01 10:00:00 +0000" endDate="2024-01-01 10:05:00 +0000" value="120"/>
                        """)
                )
            ])
    }

    // MARK: Expansion limits

    @Test func aDeclaredZipBombIsRefusedBeforeAnythingIsInflated() throws {
        let path = Support.temporaryDirectory() + "/bomb.zip"
        let garbage = [UInt8](repeating: 0x55, count: 1024)
        let zip = try ZipWriter(path: path)
        try zip.addRawEntry(Self.xmlName, method: 8, crc: 0, uncompressedSize: 10 << 30, compressedSize: 1024) { emit in
            try garbage.withUnsafeBytes { try emit($0) }
        }
        try zip.finish()
        let error = #expect(throws: InputError.self) { _ = try openExportSource(path: path) }
        #expect(error?.file == path && error?.entry == Self.xmlName)
        #expect(error?.message.contains("over the 200:1 expansion limit") == true)
        #expect(error?.message.contains("--max-expansion-ratio") == true)
        #expect(error.map { !"\($0)".contains("\n") } == true)
    }

    /// The headers declare a modest 50:1, but the deflate stream is 50 MiB of zeros in about
    /// 50 KB, padded out to the declared compressed size: the ratio is measured on the input
    /// zlib consumes, so the lie does not help. Raising the limit reads the same entry whole.
    @Test func aLyingHeaderDoesNotHelpABomb() throws {
        let path = Support.temporaryDirectory() + "/lying-bomb.zip"
        let content = [UInt8](repeating: 0, count: 50 << 20)
        let stream = Support.deflated(content)
        let declaredCompressed = 1 << 20
        #expect(stream.count < declaredCompressed / 10)
        let zip = try ZipWriter(path: path)
        try zip.addRawEntry(
            "apple_health_export/electrocardiograms/ecg.csv", method: 8, crc: Support.crc32(content),
            uncompressedSize: UInt64(content.count), compressedSize: UInt64(declaredCompressed)
        ) { emit in
            let padding = [UInt8](repeating: 0, count: declaredCompressed - stream.count)
            try (stream + padding).withUnsafeBytes { try emit($0) }
        }
        try zip.finish()

        let archive = try ZipArchive(path: path)   // 50:1 declared: allowed up front
        var delivered = 0
        let error = #expect(throws: InputError.self) { try archive.read(archive.entries[0]) { delivered += $0.count } }
        #expect(error?.entry == "apple_health_export/electrocardiograms/ecg.csv")
        #expect(error?.message.contains("inflates to more than") == true && error?.message.contains("--max-expansion-ratio") == true)
        #expect(delivered <= 2 << 20)   // stopped within its first mebibytes

        let raised = try ZipArchive(path: path, limits: ArchiveLimits(maxExpansionRatio: 5000))
        var total = 0
        try raised.read(raised.entries[0]) { total += $0.count }
        #expect(total == content.count)
    }

    @Test func theTotalLimitCountsEveryEntry() throws {
        let path = Support.temporaryDirectory() + "/two.zip"
        let part = [UInt8](repeating: 0x41, count: 600 << 10)
        let zip = try ZipWriter(path: path)
        try zip.addEntry("apple_health_export/a.csv", bytes: part, level: 0)
        try zip.addEntry("apple_health_export/b.csv", bytes: part, level: 0)
        try zip.finish()
        let limits = ArchiveLimits(maxUncompressedBytes: 1 << 20)
        let error = #expect(throws: InputError.self) { _ = try openExportSource(path: path, limits: limits) }
        #expect(error?.entry == "apple_health_export/b.csv")
        #expect(
            error?.message.contains("declares 1.2 MiB uncompressed, over the 1 MiB limit") == true
                && error?.message.contains("--max-uncompressed") == true)
        #expect(try ZipArchive(path: path).entries.count == 2)
    }

    /// Small entries of repeated bytes reach high ratios legitimately and cost nothing.
    @Test func theRatioLimitSparesSmallEntries() throws {
        let path = Support.temporaryDirectory() + "/small.zip"
        let zeros = [UInt8](repeating: 0, count: 512 << 10)
        let zip = try ZipWriter(path: path)
        try zip.addEntry("apple_health_export/blank.csv", bytes: zeros)
        try zip.finish()
        let archive = try ZipArchive(path: path)
        #expect(archive.entries[0].uncompressedSize / archive.entries[0].compressedSize > 200)
        var total = 0
        try archive.read(archive.entries[0]) { total += $0.count }
        #expect(total == zeros.count)
    }

    // MARK: Entries the reader does not support

    @Test func encryptedEntriesAreRefused() throws {
        let path = Support.temporaryDirectory() + "/encrypted.zip"
        try Self.goodZip(path)
        try Self.patch(path, at: 6, [0x01, 0x08])   // local flags: encrypted, UTF-8
        try Self.patch(path, at: try Self.centralHeaders(path)[0] + 8, [0x01, 0x08])
        let error = #expect(throws: InputError.self) { _ = try ExportLayout(source: openExportSource(path: path)) }
        #expect(error?.entry == Self.xmlName)
        #expect(error?.message.hasPrefix("encrypted entries are not supported") == true)
    }

    @Test(arguments: [12, 14, 99]) func otherCompressionMethodsAreRefused(method: UInt16) throws {
        let path = Support.temporaryDirectory() + "/method-\(method).zip"
        try Self.goodZip(path)
        try Self.patch(path, at: 8, Self.le(UInt64(method), 2))
        try Self.patch(path, at: try Self.centralHeaders(path)[0] + 10, Self.le(UInt64(method), 2))
        let error = #expect(throws: InputError.self) { _ = try ExportLayout(source: openExportSource(path: path)) }
        #expect(error?.entry == Self.xmlName)
        #expect(error?.message == "compression method \(method) is not supported (only stored and deflated)")
    }

    /// ZipWriter's local header: signature, version, flags, method (8), time, date, CRC (14),
    /// sizes 0xFFFFFFFF, name length, extra length 20, name, then a zip64 extra holding the
    /// uncompressed size (at 30 + name + 4) and the compressed size.
    @Test(arguments: ["name", "method", "size", "crc"]) func aLocalHeaderThatDisagreesWithTheDirectoryIsRefused(field: String) throws {
        let path = Support.temporaryDirectory() + "/local-\(field).zip"
        try Self.goodZip(path)
        let nameLength = Self.xmlName.utf8.count
        switch field {
        case "name": try Self.patch(path, at: 30, Array("b".utf8))
        case "method": try Self.patch(path, at: 8, [0, 0])
        case "size": try Self.patch(path, at: 30 + nameLength + 4, Self.le(7, 8))
        default: try Self.patch(path, at: 14, [0xDE, 0xAD, 0xBE, 0xEF])
        }
        let archive = try ZipArchive(path: path)
        let error = #expect(throws: InputError.self) { try archive.read(archive.entries[0]) { _ in } }
        #expect(error?.entry == Self.xmlName)
        let expected = [
            "name": "the local header names another entry", "method": "compression method (0) differs",
            "size": "sizes or CRC differ", "crc": "sizes or CRC differ",
        ][field]!
        #expect(error?.message.contains(expected) == true)
    }

    // MARK: Overlapping entries

    /// Two central entries sharing one local header and its data: the non-recursive zip bomb.
    @Test func entriesSharingTheirDataAreRefused() throws {
        let path = Support.temporaryDirectory() + "/overlap.zip"
        let zip = try ZipWriter(path: path)
        try zip.addEntry(Self.xmlName, bytes: Array(Support.exportXML("").utf8))
        var copy = zip.written[0]
        copy.name = Array("apple_health_export/Export.xml".utf8)
        zip.written.append(copy)
        try zip.finish()
        let error = #expect(throws: InputError.self) { _ = try ZipArchive(path: path) }
        #expect(error?.message.contains("overlapping entries") == true)
    }

    /// An entry starting inside the previous one's data.
    @Test func anEntryStartingInsideAnotherIsRefused() throws {
        let path = Support.temporaryDirectory() + "/inside.zip"
        let zip = try ZipWriter(path: path)
        let body = Array(Support.exportXML(String(repeating: " <Record type=\"T\"/>\n", count: 100)).utf8)
        try zip.addEntry(Self.xmlName, bytes: body, level: 0)
        try zip.addEntry("apple_health_export/b.xml", bytes: body, level: 0)
        zip.written[1].offset = zip.written[0].offset + 100
        try zip.finish()
        let error = #expect(throws: InputError.self) { _ = try ZipArchive(path: path) }
        #expect(error?.entry == Self.xmlName && error?.message.contains("overlaps entry apple_health_export/b.xml") == true)
    }

    /// The central directory alone cannot see this overlap (the next entry starts after the
    /// smallest possible header and data), but the local header's extra field moves the data
    /// past it: caught when the entry is read.
    @Test func anOverlapHiddenByTheLocalExtraFieldIsCaughtOnRead() throws {
        let path = Support.temporaryDirectory() + "/hidden-overlap.zip"
        let zip = try ZipWriter(path: path)
        let body = Array(Support.exportXML("").utf8)
        try zip.addEntry(Self.xmlName, bytes: body, level: 0)
        try zip.addEntry("apple_health_export/b.csv", bytes: body, level: 0)
        // The smallest end of entry 0; its real local header has a 20-byte extra field more.
        zip.written[1].offset = zip.written[0].offset + 30 + UInt64(Self.xmlName.utf8.count) + UInt64(body.count)
        try zip.finish()
        let archive = try ZipArchive(path: path)
        let first = try #require(archive.entries.first { $0.path == Self.xmlName })
        let error = #expect(throws: InputError.self) { try archive.read(first) { _ in } }
        #expect(error?.entry == Self.xmlName && error?.message.contains("overlapping entries") == true)
    }

    // MARK: Zip64

    /// ZipWriter with `forceZip64` gives each central header an extra field of three 64-bit
    /// values: uncompressed size, compressed size, local header offset.
    @Test(arguments: [
        (0, UInt64.max, "out of range"), (8, 1 << 40, "lies outside the archive"),
        (16, 0xFFFF_FFFF_FFFF_FF00, "out of range"), (0, 1 << 62, "over the 200:1 expansion limit"),
    ])
    func zip64FieldsThatOverflowAreRefused(field: Int, value: UInt64, expected: String) throws {
        let path = Support.temporaryDirectory() + "/zip64-\(field).zip"
        let zip = try ZipWriter(path: path)
        zip.forceZip64 = true
        try zip.addEntry(Self.xmlName, bytes: Array(Support.exportXML("").utf8))
        try zip.finish()
        let header = try Self.centralHeaders(path)[0]
        try Self.patch(path, at: header + 46 + Self.xmlName.utf8.count + 4 + field, Self.le(value, 8))
        let error = #expect(throws: InputError.self) { _ = try ZipArchive(path: path) }
        #expect(error?.file == path && error?.entry == Self.xmlName)
        #expect(error?.message.contains(expected) == true)
    }

    // MARK: Names are never paths

    /// Entry names with `..` and absolute paths are only names: the route is read from inside
    /// the archive, linked by the name the workout gives, and nothing appears outside the outputs.
    @Test func entryNamesThatLookLikePathsReachNoFile() throws {
        let dir = Support.temporaryDirectory()
        let escape = "../../../../\(URL(fileURLWithPath: dir).lastPathComponent)-escape.gpx"
        let gpx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1"><trk><trkseg>
            <trkpt lon="11.5" lat="48.1"><time>2024-01-02T06:00:01Z</time></trkpt>
            <trkpt lon="11.5001" lat="48.1001"><time>2024-01-02T06:00:02Z</time></trkpt>
            </trkseg></trk></gpx>
            """
        let workout = """
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="W" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:10:00 +0100">
              <WorkoutRoute sourceName="W" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:10:00 +0100">
               <FileReference path="\(escape)"/>
              </WorkoutRoute>
             </Workout>
            """
        try Support.makeZip(
            dir + "/names.zip",
            [
                (Self.xmlName, Support.exportXML(workout)), (escape, gpx),
                ("/tmp/absolute-\(getpid()).gpx", gpx),
            ])
        let manifest = try ExportRun.run(RunOptions(inputPath: dir + "/names.zip", outputDirectory: dir + "/out"))
        #expect(manifest.routes.linkedByReference == 1 && manifest.counts.routePoints == 4)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["names.zip", "out"])
        for base in [dir, dir + "/out"] {   // where an extracting reader would have written the name
            #expect(!FileManager.default.fileExists(atPath: URL(fileURLWithPath: base + "/" + escape).standardized.path))
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/absolute-\(getpid()).gpx"))
    }

    /// In an unzipped folder, a route reference that climbs out of the folder and a symbolic
    /// link pointing outside it both miss: the GPX outside (a valid route) is never read.
    @Test func aFolderExportCannotBeMadeToReadOutsideItself() throws {
        let dir = Support.temporaryDirectory()
        let folder = dir + "/export/apple_health_export"
        try FileManager.default.createDirectory(atPath: folder + "/workout-routes", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/outside", withIntermediateDirectories: true)
        try """
        <?xml version="1.0"?><gpx><trk><trkseg>
        <trkpt lon="11.5" lat="48.1"><time>2024-01-02T06:00:01Z</time></trkpt>
        </trkseg></trk></gpx>
        """.write(toFile: dir + "/outside/secret.gpx", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            atPath: folder + "/workout-routes/link.gpx",
            withDestinationPath: dir + "/outside/secret.gpx")
        try FileManager.default.createSymbolicLink(
            atPath: folder + "/workout-routes/linked-folder",
            withDestinationPath: dir + "/outside")
        let references = ["../../outside/secret.gpx", "/workout-routes/../../../outside/secret.gpx", dir + "/outside/secret.gpx"]
        let workout = """
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="W" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:10:00 +0100">
              <WorkoutRoute sourceName="W" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:10:00 +0100">
            \(references.map { "   <FileReference path=\"\($0)\"/>" }.joined(separator: "\n"))
              </WorkoutRoute>
             </Workout>
            """
        try Support.exportXML(workout).write(toFile: folder + "/export.xml", atomically: true, encoding: .utf8)

        let source = try openExportSource(path: folder)
        #expect(source.entries.map(\.path) == ["export.xml"])
        var options = RunOptions(inputPath: folder, outputDirectory: dir + "/out")
        options.debugManifest = true   // the references as written, not as keyed tags
        let manifest = try ExportRun.run(options)
        #expect(manifest.counts.routePoints == 0 && manifest.counts.routeFiles == 0)
        #expect(manifest.routes.missingFiles == references)

        let outside = ArchiveEntry(path: "../../outside/secret.gpx", uncompressedSize: 10, compressedSize: 10, crc32: nil)
        let error = #expect(throws: InputError.self) { try source.read(outside) { _ in } }
        #expect(error?.message == "not a file of the export folder")
    }

    // MARK: The command line

    /// A bomb given to `healthtrail run`: exit 1, one line naming archive, entry and the flag to
    /// raise, and the previous outputs exactly as they were.
    @Test func theCommandLineRefusesABombAndKeepsThePreviousOutputs() throws {
        let dir = Support.temporaryDirectory()
        try Self.goodZip(dir + "/good.zip")
        let first = try Support.runCLI(["run", dir + "/good.zip", "--out", dir + "/out", "--quiet"])
        #expect(first.status == 0)
        let before = try Support.snapshot(dir + "/out")
        #expect(!before.isEmpty)

        let zip = try ZipWriter(path: dir + "/bomb.zip")
        let garbage = [UInt8](repeating: 0x55, count: 4096)
        try zip.addRawEntry(Self.xmlName, method: 8, crc: 0, uncompressedSize: 40 << 30, compressedSize: 4096) { emit in
            try garbage.withUnsafeBytes { try emit($0) }
        }
        try zip.finish()
        let run = try Support.runCLI(["run", dir + "/bomb.zip", "--out", dir + "/out", "--quiet"])
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(run.stderr.contains(dir + "/bomb.zip: entry \(Self.xmlName): declares 40 GiB from 4 KiB compressed"))
        #expect(run.stderr.contains("--max-expansion-ratio"))
        #expect(try Support.snapshot(dir + "/out") == before)
    }

    // MARK: Sizes as users write them

    @Test func sizesParseAsUsersWriteThem() {
        #expect(ArchiveLimits.bytes(parsing: "1000") == 1000)
        #expect(ArchiveLimits.bytes(parsing: "64G") == 64 << 30)
        #expect(ArchiveLimits.bytes(parsing: "64GiB") == 64 << 30)
        #expect(ArchiveLimits.bytes(parsing: "500mb") == 500 << 20)
        #expect(ArchiveLimits.bytes(parsing: "2T") == 2 << 40)
        #expect(ArchiveLimits.bytes(parsing: " 8k ") == 8 << 10)
        for bad in ["", "G", "-1", "1.5G", "64X", "99999999999T", "1e9"] {
            #expect(ArchiveLimits.bytes(parsing: bad) == nil, "\(bad)")
        }
        #expect(ArchiveLimits.text(bytes: 512) == "512 bytes")
        #expect(ArchiveLimits.text(bytes: 64 << 30) == "64 GiB")
        #expect(ArchiveLimits.text(bytes: 3 << 19) == "1.5 MiB")
        #expect(ArchiveLimits.default == ArchiveLimits(maxExpansionRatio: 200, maxUncompressedBytes: 64 << 30))
    }
}
