import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailSynth

/// Small deflated entries are inflated by libdeflate in one call (`ZipArchive.readWhole`, which
/// `read` uses too); these tests hold it to the streaming zlib path: the same bytes, in the same
/// chunks through `read`, when the entry is good, and, when it is not, no byte delivered and the
/// streaming path's own error.
@Suite struct WholeEntryInflateTests {
    /// Text that compresses about as route files do, `count` bytes long.
    static func routeLikeText(_ count: Int, seed: UInt64 = 7) -> [UInt8] {
        var generator = SynthRandom(seed: seed)
        var text: [UInt8] = []
        text.reserveCapacity(count + 200)
        while text.count < count {
            let lat = Double.random(in: 48...49, using: &generator), lon = Double.random(in: 2...3, using: &generator)
            text += Array("<trkpt lon=\"\(lon)\" lat=\"\(lat)\"><ele>\(Int.random(in: 0...90, using: &generator))</ele></trkpt>\n".utf8)
        }
        return Array(text.prefix(count))
    }

    /// Every chunk `read` hands over, as it handed them.
    static func chunks(_ archive: ZipArchive, _ entry: ArchiveEntry) throws -> [[UInt8]] {
        var chunks: [[UInt8]] = []
        try archive.read(entry) { chunks.append($0.bytes) }
        return chunks
    }

    /// A zip of one deflated entry whose compressed bytes, CRC and sizes are given as they are.
    static func rawZip(_ path: String, deflated: [UInt8], crc: UInt32, uncompressedSize: Int) throws -> ZipArchive {
        let zip = try ZipWriter(path: path)
        try zip.addRawEntry(
            "apple_health_export/workout-routes/route.gpx", method: 8, crc: crc,
            uncompressedSize: UInt64(uncompressedSize), compressedSize: UInt64(deflated.count)
        ) { emit in
            try deflated.withUnsafeBytes { try emit($0) }
        }
        try zip.finish()
        return try ZipArchive(path: path)
    }

    @Test(arguments: [1, 1000, ZipArchive.chunkSize, 3 * ZipArchive.chunkSize + 17, Int(ZipArchive.wholeEntryLimit)])
    func aGoodSmallEntryIsReadWholeInTheSameChunks(size: Int) throws {
        let path = Support.temporaryDirectory() + "/small.zip"
        let text = Self.routeLikeText(size)
        let zip = try ZipWriter(path: path)
        try zip.addEntry("apple_health_export/workout-routes/route.gpx", bytes: text)
        try zip.finish()
        let archive = try ZipArchive(path: path)
        let entry = archive.entries[0]

        var whole: [[UInt8]] = []
        #expect(try archive.readWhole(entry, scratch: WholeEntryScratch()) { whole.append($0.bytes) })
        #expect(whole.count == 1 && whole[0] == text)
        // `read` takes that path too, in chunks of the streaming path's size.
        let read = try Self.chunks(archive, entry)
        #expect(read.joined().elementsEqual(text))
        #expect(read.dropLast().allSatisfy { $0.count == ZipArchive.chunkSize })
        #expect((read.last?.count ?? 0) > 0 && (read.last?.count ?? 0) <= ZipArchive.chunkSize)
    }

    @Test func aScratchIsReusedAndGrowsOnlyWhenItMust() {
        let scratch = WholeEntryScratch()
        let first = scratch.bytes(atLeast: 1000)
        #expect(first.count == 1000)
        first.initializeMemory(as: UInt8.self, repeating: 7)   // mapped and writable
        #expect(scratch.bytes(atLeast: 500).baseAddress == first.baseAddress)
        let grown = scratch.bytes(atLeast: 3 << 20)
        #expect(grown.count == 3 << 20)
        grown.initializeMemory(as: UInt8.self, repeating: 1)
        #expect(scratch.bytes(atLeast: 3 << 20).baseAddress == grown.baseAddress)
    }

    @Test func anEntryPastTheLimitIsStreamed() throws {
        let path = Support.temporaryDirectory() + "/large.zip"
        let text = Self.routeLikeText(Int(ZipArchive.wholeEntryLimit) + 1)
        let zip = try ZipWriter(path: path)
        try zip.addEntry("apple_health_export/export.xml", bytes: text)
        try zip.finish()
        let archive = try ZipArchive(path: path)
        let entry = archive.entries[0]
        var delivered = 0
        #expect(try !archive.readWhole(entry, scratch: WholeEntryScratch()) { delivered += $0.count })
        #expect(delivered == 0)
        #expect(try Self.chunks(archive, entry).joined().elementsEqual(text))
    }

    @Test func corruptDataIsLeftToZlibWhichReportsIt() throws {
        let path = Support.temporaryDirectory() + "/corrupt.zip"
        let text = Self.routeLikeText(200_000)
        var deflated = Support.deflated(text)
        // A reserved block type (0b11) in the first block's header: invalid for every inflater.
        deflated[0] |= 0b110
        let archive = try Self.rawZip(path, deflated: deflated, crc: Support.crc32(text), uncompressedSize: text.count)
        let entry = archive.entries[0]
        var delivered = 0
        #expect(try !archive.readWhole(entry, scratch: WholeEntryScratch()) { delivered += $0.count })
        #expect(delivered == 0)
        let error = #expect(throws: InputError.self) { try Self.chunks(archive, entry) }
        #expect("\(error!)".contains("corrupt compressed data (zlib:"))
        #expect("\(error!)".contains("entry apple_health_export/workout-routes/route.gpx"))
    }

    @Test func aWrongCRCDeliversNothingWholeAndIsReportedByTheStreamingPath() throws {
        let path = Support.temporaryDirectory() + "/crc.zip"
        let text = Self.routeLikeText(100_000)
        let archive = try Self.rawZip(
            path, deflated: Support.deflated(text),
            crc: Support.crc32(text) ^ 1, uncompressedSize: text.count)
        let entry = archive.entries[0]
        var delivered = 0
        #expect(try !archive.readWhole(entry, scratch: WholeEntryScratch()) { delivered += $0.count })
        #expect(delivered == 0)
        #expect(throws: InputError.self) { try Self.chunks(archive, entry) }
        #expect { try Self.chunks(archive, entry) } throws: { "\($0)".contains("CRC-32 mismatch") }
    }

    @Test(arguments: [-1, 1]) func aSizeOtherThanDeclaredIsReportedByTheStreamingPath(difference: Int) throws {
        let path = Support.temporaryDirectory() + "/size.zip"
        let text = Self.routeLikeText(100_000)
        let archive = try Self.rawZip(
            path, deflated: Support.deflated(text), crc: Support.crc32(text),
            uncompressedSize: text.count + difference)
        let entry = archive.entries[0]
        var delivered = 0
        #expect(try !archive.readWhole(entry, scratch: WholeEntryScratch()) { delivered += $0.count })
        #expect(delivered == 0)
        let expected = difference < 0 ? "inflates past its declared size" : "inflates to \(text.count) bytes but declares"
        #expect { try Self.chunks(archive, entry) } throws: { "\($0)".contains(expected) }
    }
}
