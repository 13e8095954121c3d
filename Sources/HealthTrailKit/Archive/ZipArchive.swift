import CZlib

/// A zip archive read through its central directory; entries are inflated with zlib as they stream.
///
/// Stored (0) and deflated (8) entries are supported. Every entry's inflated size and CRC-32 are
/// checked against the central directory when its last byte has been read, so a corrupt or
/// truncated entry fails instead of producing silently wrong output.
public final class ZipArchive: ExportSource {
    public let file: ReadOnlyFile
    public let entries: [ArchiveEntry]
    public var displayName: String { file.path }

    /// Size of the compressed reads and of the inflated chunks handed to consumers.
    static let chunkSize = 256 * 1024

    public convenience init(path: String) throws {
        try self.init(file: ReadOnlyFile(path: path))
    }

    public init(file: ReadOnlyFile) throws {
        self.file = file
        self.entries = try ZipCentralDirectory.read(file).filter { !$0.isPlatformJunk }
    }

    /// Offset of the entry's data: after the local header, whose name and extra lengths can
    /// differ from the central directory's.
    public func dataOffset(of entry: ArchiveEntry) throws -> UInt64 {
        var header = [UInt8](repeating: 0, count: 30)
        guard try file.read(into: &header, at: entry.localHeaderOffset) == 30,
              header.le32(0) == ZipCentralDirectory.localHeaderSignature else {
            throw InputError(file: file.path, entry: entry.path, "local header missing (corrupt archive)")
        }
        let start = entry.localHeaderOffset + 30 + UInt64(header.le16(26)) + UInt64(header.le16(28))
        guard start <= file.size, entry.compressedSize <= file.size - start else {
            throw InputError(file: file.path, entry: entry.path, "entry data runs past the end of the archive (truncated)")
        }
        return start
    }

    public func read(_ entry: ArchiveEntry, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let fail = { (message: String) in InputError(file: self.file.path, entry: entry.path, message) }
        if entry.flags & 1 != 0 { throw fail("entry is encrypted; export the archive again without a password") }
        guard entry.method == 0 || entry.method == 8 else {
            throw fail("unsupported compression method \(entry.method) (only stored and deflated)")
        }
        var offset = try dataOffset(of: entry)
        var remaining = entry.compressedSize
        var crc: UInt = 0
        var produced: UInt64 = 0
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { input.deallocate() }

        /// Reads the next compressed chunk; returns its length.
        func refill() throws -> Int {
            let want = Int(min(UInt64(Self.chunkSize), remaining))
            let n = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: input[0..<want]), at: offset)
            guard n == want else { throw fail("archive ends inside the entry (truncated)") }
            offset += UInt64(n)
            remaining -= UInt64(n)
            return n
        }
        func deliver(_ chunk: UnsafeRawBufferPointer) throws {
            produced += UInt64(chunk.count)
            guard produced <= entry.uncompressedSize else {
                throw fail("entry inflates past its declared size of \(entry.uncompressedSize) bytes (corrupt archive)")
            }
            crc = crc32(crc, chunk.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt(chunk.count))
            try body(chunk)
        }

        if entry.method == 0 {
            guard entry.compressedSize == entry.uncompressedSize else { throw fail("stored entry with differing sizes") }
            while remaining > 0 {
                let n = try refill()
                try deliver(UnsafeRawBufferPointer(rebasing: input[0..<n]))
            }
        } else {
            let output = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
            defer { output.deallocate() }
            var stream = z_stream()
            guard healthtrail_inflateInit2(&stream, -MAX_WBITS) == Z_OK else { throw fail("zlib could not start") }
            defer { inflateEnd(&stream) }
            var finished = false
            while !finished {
                if stream.avail_in == 0 && remaining > 0 {
                    let n = try refill()
                    stream.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.avail_in = uInt(n)
                }
                stream.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(Self.chunkSize)
                let status = inflate(&stream, Z_NO_FLUSH)
                let count = Self.chunkSize - Int(stream.avail_out)
                if count > 0 { try deliver(UnsafeRawBufferPointer(rebasing: output[0..<count])) }
                switch status {
                case Z_STREAM_END:
                    finished = true
                case Z_OK:
                    continue
                case Z_BUF_ERROR where stream.avail_in == 0 && remaining > 0:
                    continue
                case Z_BUF_ERROR:
                    throw fail("compressed data ends early (truncated or corrupt entry)")
                default:
                    let detail = stream.msg.map { String(cString: $0) } ?? "code \(status)"
                    throw fail("corrupt compressed data (zlib: \(detail))")
                }
            }
        }
        guard produced == entry.uncompressedSize else {
            throw fail("entry inflates to \(produced) bytes but declares \(entry.uncompressedSize) (corrupt archive)")
        }
        if let expected = entry.crc32, UInt32(truncatingIfNeeded: crc) != expected {
            throw fail("CRC-32 mismatch: the entry is corrupt")
        }
    }
}
