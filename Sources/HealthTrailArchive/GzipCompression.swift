import CZlib

/// gzip (RFC 1952) streams made by zlib's deflate, for formats that compress blocks of bytes
/// held in memory (Parquet's GZIP pages).
///
/// The zlib calls live here because pointer code is allowed only in this layer; the writers
/// above hand over and get back plain arrays.
public enum Gzip {
    /// The gzip stream of `bytes` at zlib's compression `level` (0–9; 1 is fastest).
    public static func compress(_ bytes: [UInt8], level: Int32) throws -> [UInt8] {
        try GzipCompressor(level: level).compress(bytes)
    }
}

/// One zlib deflate stream reused for many gzip streams: `deflateReset` between them keeps the
/// few hundred kilobytes of state zlib allocates at `deflateInit2`, which a writer compressing
/// one page after another would otherwise allocate and free for every page.
///
/// Invariant: `stream` is allocated and initialised by `init` (deflateInit2 succeeded), used by
/// one thread at a time (the owner's), and ended and freed in `deinit` only.
public final class GzipCompressor {
    /// zlib's state, in memory of its own: zlib keeps the stream's address between calls and
    /// checks it, and a Swift stored value's address is not promised to stay put.
    private let stream: UnsafeMutablePointer<z_stream>

    /// Starts a deflate stream that writes gzip framing (windowBits 15 + 16).
    /// - Parameter level: zlib's compression level, 0–9 (1 is fastest; -1 for its default).
    public init(level: Int32) throws {
        // SAFETY: freshly allocated and zero-initialised before zlib sees it; on failure it is
        // freed here, as `deinit` does not run for an object whose init threw.
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard (-1...9).contains(level), healthtrail_deflateInit2(stream, level, MAX_WBITS + 16) == Z_OK else {
            stream.deallocate()
            throw InputError(file: "gzip", "zlib deflate could not start at level \(level)")
        }
    }

    deinit {
        // SAFETY: `stream` was set up by deflateInit2 in init; `deflateEnd` frees zlib's own
        // state, then the stream itself is freed, once.
        deflateEnd(stream)
        stream.deallocate()
    }

    /// The gzip stream of `bytes` (a complete member: header, deflate data, CRC-32 and size).
    public func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        // SAFETY: `deflateReset` keeps the allocated state and starts a new gzip member.
        guard deflateReset(stream) == Z_OK else { throw InputError(file: "gzip", "zlib deflate could not restart") }
        // deflateBound is an upper bound for the whole stream, gzip header and trailer included
        // (this stream was set up with gzip framing), so one Z_FINISH call always completes it.
        let bound = Int(deflateBound(stream, uLong(bytes.count)))
        var status: Int32 = Z_OK
        var produced = 0
        let output = try [UInt8](unsafeUninitializedCapacity: bound) { out, initialised in
            // SAFETY: zlib reads `bytes`' storage and writes `out`'s `bound` bytes during this
            // closure only (next_in and next_out are cleared before it returns); `initialised`
            // counts only the bytes deflate wrote. zlib never writes through next_in (its type is
            // mutable for history only). An empty input has no base address: zlib reads nothing.
            try bytes.withUnsafeBufferPointer { source in
                stream.pointee.next_in = source.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
                stream.pointee.avail_in = uInt(source.count)
                stream.pointee.next_out = out.baseAddress
                stream.pointee.avail_out = uInt(bound)
                status = deflate(stream, Z_FINISH)
                produced = bound - Int(stream.pointee.avail_out)
                stream.pointee.next_in = nil
                stream.pointee.next_out = nil
                guard status == Z_STREAM_END else { throw InputError(file: "gzip", "zlib deflate failed (\(status))") }
            }
            initialised = produced
        }
        return output
    }
}
