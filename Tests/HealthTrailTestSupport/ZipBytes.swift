import CZlib
import Foundation

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
}
