import CZlib
import Foundation
import HealthTrailArchive

extension Support {
    /// Deflates `bytes` (raw deflate, as zip entries hold it), with zlib itself: archives the
    /// tests build by hand do not depend on the writer under test.
    package static func deflated(_ bytes: [UInt8], level: Int32 = 9) -> [UInt8] {
        var stream = z_stream()
        let initialised = healthtrail_deflateInit2(&stream, level, -MAX_WBITS)
        precondition(initialised == Z_OK)
        defer { deflateEnd(&stream) }
        var input = bytes
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 64)
        let count = input.withUnsafeMutableBufferPointer { inp in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_in = inp.baseAddress
                stream.avail_in = uInt(inp.count)
                stream.next_out = o.baseAddress
                stream.avail_out = uInt(o.count)
                let finished = deflate(&stream, Z_FINISH)
                precondition(finished == Z_STREAM_END)
                return o.count - Int(stream.avail_out)
            }
        }
        return Array(out[0..<count])
    }

    /// The CRC-32 of `bytes`, by zlib.
    package static func crc32(_ bytes: [UInt8]) -> UInt32 {
        UInt32(bytes.withUnsafeBufferPointer { CZlib.crc32(0, $0.baseAddress, uInt($0.count)) })
    }

    /// Writes a deflated zip entry of `head`, then `block` `copies` times, then `tail`, without
    /// ever holding more than one block: each part is deflated once after a full flush (which
    /// keeps it from referring back), and its compressed bytes are repeated. The CRC is zlib's,
    /// combined over the copies.
    package static func addRepeatedEntry(
        _ zip: ZipWriter, _ name: String, head: [UInt8], block: [UInt8], copies: Int, tail: [UInt8], level: Int32 = 6
    ) throws {
        var stream = z_stream()
        let initialised = healthtrail_deflateInit2(&stream, level, -MAX_WBITS)
        precondition(initialised == Z_OK)
        defer { deflateEnd(&stream) }
        func deflated(_ bytes: [UInt8], _ flush: Int32) -> [UInt8] {
            var input = bytes, produced: [UInt8] = []
            var out = [UInt8](repeating: 0, count: 1 << 16)
            input.withUnsafeMutableBufferPointer { inp in
                stream.next_in = inp.baseAddress
                stream.avail_in = uInt(inp.count)
                repeat {
                    out.withUnsafeMutableBufferPointer { o in
                        stream.next_out = o.baseAddress
                        stream.avail_out = uInt(o.count)
                        _ = deflate(&stream, flush)
                        produced += o[0..<(o.count - Int(stream.avail_out))]
                    }
                } while stream.avail_out == 0
            }
            return produced
        }
        let (h, b, t) = (deflated(head, Z_FULL_FLUSH), deflated(block, Z_FULL_FLUSH), deflated(tail, Z_FINISH))
        var total = uLong(crc32(head))
        let blockCRC = uLong(crc32(block))
        for _ in 0..<copies { total = crc32_combine(total, blockCRC, off_t(block.count)) }
        total = crc32_combine(total, uLong(crc32(tail)), off_t(tail.count))
        let size = UInt64(head.count) + UInt64(block.count) * UInt64(copies) + UInt64(tail.count)
        try zip.addRawEntry(
            name, method: 8, crc: UInt32(total), uncompressedSize: size,
            compressedSize: UInt64(h.count) + UInt64(b.count) * UInt64(copies) + UInt64(t.count)
        ) { emit in
            try h.withUnsafeBytes { try emit($0) }
            for _ in 0..<copies { try b.withUnsafeBytes { try emit($0) } }
            try t.withUnsafeBytes { try emit($0) }
        }
    }
}
