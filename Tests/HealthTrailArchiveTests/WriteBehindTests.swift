import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailSynth
@testable import HealthTrailWrite

/// Files written during export.xml hand their full buffers to `WriteBehindQueue`'s thread. The
/// bytes must land exactly as a synchronous writer would put them, in order, and a failed write
/// must still surface when the file is closed.
@Suite struct WriteBehindTests {
    /// Rows of every kind of field, plus blocks larger than the buffer (written past it).
    static func fill(_ w: CSVWriter, seed: UInt64) {
        var random = SynthRandom(seed: seed)
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: 10_000)
        for i in 0..<20_000 {
            w.utc(1_700_000_000 + Int64(i) * 37); w.comma()
            w.decimal(Double(random.next() % 100_000) / 7, digits: 3); w.comma()
            w.field(i % 11 == 0 ? "Watch, \"Series 9\"" : "iPhone"); w.comma()
            w.int(Int64(i))
            if i % 997 == 0 { w.comma(); big.withUnsafeBufferPointer { w.raw(ByteSpan(start: $0.baseAddress!, count: $0.count)) } }
            w.endRow()
        }
    }

    @Test func writesTheSameBytesAsWritingInPlace() throws {
        let dir = Support.temporaryDirectory()
        for bufferSize in [4096, 65_536] {
            let plain = try CSVWriter(path: dir + "/plain.csv", header: ["a", "b", "c", "d"], bufferSize: bufferSize)
            let behind = try CSVWriter(
                path: dir + "/behind.csv", header: ["a", "b", "c", "d"], bufferSize: bufferSize,
                writeBehind: true)
            Self.fill(plain, seed: 7)
            Self.fill(behind, seed: 7)
            try plain.close()
            try behind.close()
            let a = try #require(FileManager.default.contents(atPath: dir + "/plain.csv"))
            let b = try #require(FileManager.default.contents(atPath: dir + "/behind.csv"))
            #expect(a.count > 1_000_000 && a == b, "buffer \(bufferSize): \(a.count) vs \(b.count) bytes")
            #expect(plain.rows == behind.rows)
            // The queue really wrote them: one hand-over per full buffer, none without write-behind.
            // (blocks larger than the buffer bypass it: at least half the bytes go through buffers)
            #expect(
                behind.buffersHandedOver >= a.count / bufferSize / 2 && plain.buffersHandedOver == 0,
                "\(behind.buffersHandedOver) buffers handed over for \(a.count) bytes")
        }
    }

    @Test func flushLeavesTheBytesInTheFile() throws {
        let dir = Support.temporaryDirectory()
        let w = try CSVWriter(path: dir + "/f.csv", header: ["n"], bufferSize: 1024, writeBehind: true)
        for i in 0..<500 { w.int(Int64(i)); w.endRow() }
        w.flush()
        let text = try String(contentsOfFile: dir + "/f.csv", encoding: .utf8)
        #expect(text.hasPrefix("n\n0\n1\n") && text.hasSuffix("\n498\n499\n"))
        try w.close()
    }

    @Test func aWriteThatFailsOnTheQueueFailsTheClose() throws {
        guard FileManager.default.isWritableFile(atPath: "/dev/full") else { return }   // Linux's always-full device
        let w = try CSVWriter(path: "/dev/full", header: ["n"], bufferSize: 4096, writeBehind: true)
        for i in 0..<10_000 { w.int(Int64(i)); w.endRow() }
        let error = #expect(throws: InputError.self) { try w.close(syncing: false) }
        #expect(error?.description.contains("cannot write") == true, "\(String(describing: error))")
    }
}
