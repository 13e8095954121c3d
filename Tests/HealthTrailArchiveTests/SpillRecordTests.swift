import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase

/// Spill records go to a file as their in-memory bytes and come back as the same values: one at
/// a time across the reader's chunk boundaries (a 12-byte record does not divide a chunk), a
/// block at a time from any record on, and variable-length records across blocks.
@Suite struct SpillRecordTests {
    struct Sample: BitwiseCopyable, Equatable {
        var time: UInt32
        var value: Float
        var source: UInt32
    }

    static func samples(_ count: Int) -> [Sample] {
        (0..<count).map { (k: Int) -> Sample in
            let time = UInt32(1_700_000_000 + k)
            let value = Float(k % 997) / 7
            return Sample(time: time, value: value, source: UInt32(k % 5))
        }
    }

    @Test func recordsComeBackWholeAcrossChunks() throws {
        #expect(MemoryLayout<Sample>.size == 12 && ZipArchive.chunkSize % 12 != 0)
        let path = Support.temporaryDirectory() + "/samples.spill"
        let written = Self.samples(3 * ZipArchive.chunkSize / 12 + 5)   // spans four chunks
        let out = try OutputBuffer(path: path, bufferSize: 4096, writeBehind: true)
        for sample in written { ByteSpan.withBytes(of: sample) { out.append($0) } }
        try out.close(syncing: false)

        let file = try ReadOnlyFile(path: path)
        #expect(file.size == UInt64(written.count * 12))
        var read: [Sample] = []
        try file.forEachRecord(Sample.self) { read.append($0) }
        // Counted and compared record by record: a message listing 65,000 records helps no one.
        #expect(read.count == written.count)
        let firstWrong = zip(read, written).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstWrong == nil, "record \(firstWrong ?? -1) read back wrong")
    }

    @Test func aRunComesBackFromAnyRecord() throws {
        let path = Support.temporaryDirectory() + "/run.spill"
        let values = (0..<10_000).map { Int64($0) * 7 - 20_000 }
        let out = try OutputBuffer(path: path, bufferSize: 1024)
        ByteSpan.withBytes(ofEach: values) { out.append($0) }   // larger than the buffer: written at once
        ByteSpan.withBytes(ofEach: [Int64]()) { out.append($0) }
        try out.close(syncing: false)

        let file = try ReadOnlyFile(path: path)
        let stride = MemoryLayout<Int64>.stride
        #expect(try file.readRecords(Int64.self, count: 100, atByte: UInt64(4_321 * stride)) == Array(values[4_321..<4_421]))
        #expect(try file.readRecords(Int64.self, count: 0, atByte: 0) == [])
        #expect(throws: InputError.self) { try file.readRecords(Int64.self, count: 2, atByte: UInt64(9_999 * stride)) }
    }

    /// Records of many lengths (a 2-byte length, then that many bytes) read back whole from a
    /// stretch of the file, across the reader's 1 MiB blocks; a stretch cut inside a record throws.
    @Test func variableLengthRecordsComeBackWhole() throws {
        let path = Support.temporaryDirectory() + "/records.spill"
        let records = (0..<60_000).map { (k: Int) -> [UInt8] in
            let body = (0..<(k * 37 % 90)).map { UInt8(truncatingIfNeeded: k &+ $0) }
            return OutputSlot.bytes(count: 2) { $0.store(UInt16(body.count), toByteOffset: 0) } + body
        }
        let lead: [UInt8] = [9, 9, 9]   // the stretch starts past other bytes
        let out = try OutputBuffer(path: path, bufferSize: 4096)
        ByteSpan.withBytes(ofEach: lead) { out.append($0) }
        for record in records { ByteSpan.withBytes(ofEach: record) { out.append($0) } }
        try out.close(syncing: false)
        let total = records.reduce(0) { $0 + $1.count }
        #expect(total > 2 << 20)   // at least two blocks

        func readBack(bytes: Int) throws -> [[UInt8]] {
            let reader = SpillRecordReader(
                file: try ReadOnlyFile(path: path), offset: UInt64(lead.count), bytes: UInt64(bytes),
                headerLength: 2, maxRecordLength: 2 + 90)
            var read: [[UInt8]] = []
            while let record = try reader.next(length: { 2 + Int($0.load(fromByteOffset: 0, as: UInt16.self)) }) {
                read.append(record.bytes)
            }
            return read
        }
        let read = try readBack(bytes: total)
        #expect(read.count == records.count)
        let firstWrong = zip(read, records).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstWrong == nil, "record \(firstWrong ?? -1) read back wrong")
        #expect(throws: InputError.self) { try readBack(bytes: total - 1) }
    }

    /// A slot's bytes as an array (what `Timestamp`'s strings are made from), down to no bytes.
    @Test func slotsFormatIntoArrays() {
        #expect(OutputSlot.bytes(count: 0) { _ in } == [])
        #expect(OutputSlot.bytes(count: 4) { $0.putFourDigits(2024, at: 0) } == Array("2024".utf8))
        #expect(OutputSlot.bytes(count: 3) { $0[1] = 0x41 } == [0, 0x41, 0])
    }
}
