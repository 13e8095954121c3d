import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailRun
@testable import HealthTrailXML

@Suite struct ArchiveTests {
    func readAll(_ source: ExportSource, _ entry: ArchiveEntry) throws -> [UInt8] {
        var out: [UInt8] = []
        try source.read(entry) { $0.append(to: &out) }
        return out
    }

    @Test func roundTripsStoredAndDeflatedEntries() throws {
        let dir = Support.temporaryDirectory()
        let path = dir + "/a.zip"
        let big = (0..<300_000).map { "line \($0)\n" }.joined()   // several inflate chunks
        let zip = try ZipWriter(path: path)
        try zip.addEntry("apple_health_export/big.txt", bytes: Array(big.utf8))
        try zip.addEntry("apple_health_export/stored.txt", bytes: Array("stored".utf8), level: 0)
        try zip.addEntry("__MACOSX/apple_health_export/._big.txt", bytes: [1, 2, 3])
        try zip.addEntry("apple_health_export/.DS_Store", bytes: [0])
        try zip.finish()

        let archive = try ZipArchive(path: path)
        #expect(archive.entries.map(\.path) == ["apple_health_export/big.txt", "apple_health_export/stored.txt"])
        #expect(try readAll(archive, archive.entries[0]) == Array(big.utf8))
        #expect(try readAll(archive, archive.entries[1]) == Array("stored".utf8))
        #expect(archive.entries[0].method == 8 && archive.entries[1].method == 0)

        // An independent reader agrees the archive is valid.
        let unzip = Process()
        unzip.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
        unzip.arguments = ["-tq", path]
        unzip.standardOutput = FileHandle.nullDevice
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/unzip") {
            try unzip.run(); unzip.waitUntilExit()
            #expect(unzip.terminationStatus == 0)
        }
    }

    @Test func detectsACRCMismatch() throws {
        let dir = Support.temporaryDirectory()
        let path = dir + "/bad-crc.zip"
        let content = Array("<HealthData/>".utf8)
        let zip = try ZipWriter(path: path)
        try zip.addRawEntry(
            "export.xml", method: 0, crc: 0xDEAD_BEEF, uncompressedSize: UInt64(content.count),
            compressedSize: UInt64(content.count)
        ) { emit in try content.withUnsafeBytes { try emit($0) } }
        try zip.finish()
        let archive = try ZipArchive(path: path)
        #expect {
            try readAll(archive, archive.entries[0])
        } throws: { error in
            "\(error)".contains("CRC-32 mismatch") && "\(error)".contains("entry export.xml")
        }
    }

    @Test func detectsAnEntryLongerThanDeclared() throws {
        let dir = Support.temporaryDirectory()
        let path = dir + "/lying-size.zip"
        let content = Array(String(repeating: "x", count: 5000).utf8)
        let zip = try ZipWriter(path: path)
        try zip.addRawEntry(
            "export.xml", method: 0, crc: Support.crc32(content), uncompressedSize: 10,
            compressedSize: 10
        ) { emit in try content.withUnsafeBytes { try emit(UnsafeRawBufferPointer(rebasing: $0[0..<10])) } }
        try zip.finish()
        let archive = try ZipArchive(path: path)
        #expect(throws: InputError.self) { try readAll(archive, archive.entries[0]) }
    }

    @Test func rejectsTruncatedArchivesCleanly() throws {
        let dir = Support.temporaryDirectory()
        let path = dir + "/whole.zip"
        let text = (0..<50_000).map { " <Record type=\"T\" value=\"\($0)\"/>\n" }.joined()
        try Support.makeZip(path, [("apple_health_export/export.xml", Support.exportXML(text))])
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        // Cut at many points: before the data ends, inside the central directory, in the end record.
        for cut in [10, 100, whole.count / 3, whole.count / 2, whole.count - 60, whole.count - 30, whole.count - 5] {
            let truncated = dir + "/cut-\(cut).zip"
            try whole.prefix(cut).write(to: URL(fileURLWithPath: truncated))
            let error = #expect(throws: InputError.self) {
                let archive = try ZipArchive(path: truncated)
                for entry in archive.entries { _ = try readAll(archive, entry) }
            }
            #expect(error?.file == truncated)
        }
    }

    @Test func findsTheMainXMLByContentNotName() throws {
        let dir = Support.temporaryDirectory()
        let path = dir + "/renamed.zip"
        try Support.makeZip(
            path,
            [
                ("eksport/export_cda.xml", "<?xml version=\"1.0\"?>\n<ClinicalDocument/>"),
                ("eksport/eksport.xml", Support.exportXML("")),
                ("eksport/workout-routes/route_2024-01-01_7.00am.gpx", "<gpx/>"),
            ])
        let layout = try ExportLayout(source: ZipArchive(path: path))
        #expect(layout.mainXML.path == "eksport/eksport.xml")
        #expect(layout.routeFiles.map(\.path) == ["eksport/workout-routes/route_2024-01-01_7.00am.gpx"])
    }

    @Test func reportsAnArchiveWithoutExportXML() throws {
        let dir = Support.temporaryDirectory()
        let path = dir + "/no-export.zip"
        try Support.makeZip(path, [("apple_health_export/export_cda.xml", "<ClinicalDocument/>")])
        #expect {
            _ = try ExportLayout(source: ZipArchive(path: path))
        } throws: { "\($0)".contains("no Apple Health export.xml found") && "\($0)".contains(path) }
    }

    @Test func readsFoldersAndBareXML() throws {
        let dir = Support.temporaryDirectory()
        let folder = dir + "/apple_health_export"
        try FileManager.default.createDirectory(atPath: folder + "/workout-routes", withIntermediateDirectories: true)
        try Support.exportXML("").write(toFile: folder + "/Export.xml", atomically: true, encoding: .utf8)
        try "<gpx/>".write(toFile: folder + "/workout-routes/r.gpx", atomically: true, encoding: .utf8)
        try "junk".write(toFile: folder + "/.DS_Store", atomically: true, encoding: .utf8)

        let asFolder = try openExportSource(path: folder)
        #expect(asFolder is DirectorySource)
        #expect(Set(asFolder.entries.map(\.path)) == ["Export.xml", "workout-routes/r.gpx"])
        #expect(try ExportLayout(source: asFolder).mainXML.path == "Export.xml")

        let asFile = try openExportSource(path: folder + "/Export.xml")
        #expect(asFile is SingleFileSource)
        #expect(try ExportLayout(source: asFile).mainXML.uncompressedSize > 0)
    }

    @Test func rejectsAWrongFileType() throws {
        let dir = Support.temporaryDirectory()
        let path = dir + "/photo.png"
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 100)).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try ExportLayout(source: openExportSource(path: path))
        } throws: { "\($0)".contains("not an Apple Health export") && "\($0)".hasPrefix(path) }
    }

    /// An entry of 4.1 GiB, declared through zip64 fields, inflated and CRC-checked end to end.
    /// The deflate stream is one compressed MiB repeated: after a full flush, deflate output does
    /// not refer back past itself, so copies of it concatenate into a valid stream. The MiB is a
    /// 1 KiB pattern repeated (about 60:1): zeros (1000:1) would be refused as a zip bomb.
    @Test func readsAnEntryOver4GiBThroughZip64() throws {
        let dir = Support.temporaryDirectory()
        let path = dir + "/zip64.zip"
        let mib = 1 << 20
        let copies = 4200   // 4200 MiB > 4 GiB
        let block = (0..<mib).map { UInt8(truncatingIfNeeded: (($0 % 1024) &* 2_654_435_761) >> 13) }
        let total = UInt64(copies) * UInt64(mib)

        let zip = try ZipWriter(path: path)
        zip.forceZip64 = true
        try Support.addRepeatedEntry(
            zip, "apple_health_export/electrocardiograms/huge.bin", head: [], block: block, copies: copies, tail: [], level: 1)
        try zip.addEntry(
            "apple_health_export/export.xml",
            bytes: Array(
                Support.exportXML(
                    " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"W\" unit=\"count/min\" startDate=\"2024-01-01 10:00:00 +0000\" endDate=\"2024-01-01 10:00:00 +0000\" value=\"61\"/>"
                ).utf8))
        try zip.finish()

        let archive = try ZipArchive(path: path)
        let huge = try #require(archive.entries.first { $0.path.hasSuffix("huge.bin") })
        #expect(huge.uncompressedSize == total)
        #expect(huge.uncompressedSize > UInt64(UInt32.max))
        var seen: UInt64 = 0
        try archive.read(huge) { chunk in seen += UInt64(chunk.count) }   // read() checks the CRC of all of it
        #expect(seen == total)

        // The whole pipeline reads the archive's zip64 directory too.
        let outDir = dir + "/out"
        let manifest = try ExportRun.run(RunOptions(inputPath: path, outputDirectory: outDir))
        #expect(manifest.counts.heartRate == 1)
    }
}

/// Hostile archives found by review: each gives a clean error, never a crash or a write outside.
@Suite struct HostileInputTests {
    @Test func aZip64LocatorPointingNearTheEndOfTheAddressSpaceIsRefused() throws {
        let dir = Support.temporaryDirectory()
        let path = dir + "/z64.zip"
        var b = Bytes()
        b.u32(ZipCentralDirectory.zip64LocatorSignature); b.u32(0); b.u64(0xFFFF_FFFF_FFFF_FFF0); b.u32(1)
        b.u32(ZipCentralDirectory.eocdSignature); b.u16(0); b.u16(0); b.u16(0xFFFF); b.u16(0xFFFF)
        b.u32(0xFFFF_FFFF); b.u32(0xFFFF_FFFF); b.u16(0)
        try Data(b.bytes).write(to: URL(fileURLWithPath: path))
        #expect { _ = try ZipArchive(path: path) } throws: { "\($0)".contains("zip64") }
    }

    @Test func anActivityNameCannotWriteOutsideTheOutputFolder() throws {
        let dir = Support.temporaryDirectory()
        let body = """
             <Workout workoutActivityType="HKWorkoutActivityType/../../../../escape/pwned" sourceName="W" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:10:00 +0100">
              <WorkoutRoute sourceName="W" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:10:00 +0100">
               <Location date="2024-01-02 07:00:01 +0100" latitude="48.1" longitude="11.5"/>
               <Location date="2024-01-02 07:00:02 +0100" latitude="48.1001" longitude="11.5001"/>
               <Location date="2024-01-02 07:00:03 +0100" latitude="48.1002" longitude="11.5002"/>
              </WorkoutRoute>
             </Workout>

            """
        try Support.exportXML(body).write(toFile: dir + "/export.xml", atomically: true, encoding: .utf8)
        _ = try ExportRun.run(RunOptions(inputPath: dir + "/export.xml", outputDirectory: dir + "/deep/a/b/out"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/deep/escape") && !FileManager.default.fileExists(atPath: dir + "/escape"))
        let maps = try FileManager.default.contentsOfDirectory(atPath: dir + "/deep/a/b/out/svg/workouts")
        #expect(maps.count == 1 && maps.allSatisfy { !$0.contains("/") && !$0.contains("..") })
        #expect(ActivityCatalog.name(for: "HKWorkoutActivityType/../x").name == "x")
    }
}
