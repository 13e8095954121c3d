import CLibDeflate
import CZlib
import HealthTrailBase

/// A zip archive read through its central directory; entries are inflated with zlib as they
/// stream (small ones by libdeflate in one call: `inflateWhole`).
///
/// Stored (0) and deflated (8) entries are supported. Every entry's inflated size and CRC-32 are
/// checked against the central directory when its last byte has been read, so a corrupt or
/// truncated entry fails instead of producing silently wrong output.
///
/// Hostile archives are refused with one line naming the archive and entry: expansion past
/// `ArchiveLimits` (declared or actual), overlapping entries, local headers that disagree with
/// the central directory, encryption and other compression methods. Entry names are only ever
/// compared and printed: nothing is extracted, so a name like `../../x` reaches no file.
package final class ZipArchive: ExportSource {
    package let file: ReadOnlyFile
    package let entries: [ArchiveEntry]
    package let limits: ArchiveLimits
    package var displayName: String { file.path }
    /// What the central directory says of each entry, by local header offset (unique once
    /// overlaps are refused): the entry, its name as stored and the offset its data must end by.
    private let listed: [UInt64: (entry: ArchiveEntry, rawName: [UInt8], dataBound: UInt64, isLast: Bool)]

    /// Size of the compressed reads and of the inflated chunks handed to consumers.
    package static let chunkSize = 256 * 1024

    /// Deflated entries up to this size (both compressed and inflated) are inflated in one
    /// call by libdeflate instead of streamed through zlib; see `inflateWhole`.
    package static let wholeEntryLimit: UInt64 = 4 << 20

    package convenience init(path: String, limits: ArchiveLimits = .default) throws {
        try self.init(file: ReadOnlyFile(path: path), limits: limits)
    }

    package init(file: ReadOnlyFile, limits: ArchiveLimits = .default) throws {
        self.file = file
        self.limits = limits
        let listing = try ZipCentralDirectory.read(file)
        let bounds = try ZipCentralDirectory.dataBounds(listing, file: file.path)
        var listed: [UInt64: (entry: ArchiveEntry, rawName: [UInt8], dataBound: UInt64, isLast: Bool)] = [:]
        listed.reserveCapacity(listing.entries.count)
        for (i, entry) in listing.entries.enumerated() {
            listed[entry.localHeaderOffset] = (entry, listing.rawNames[i], bounds[i], bounds[i] == listing.dataEnd)
        }
        self.listed = listed
        entries = listing.entries.filter { !$0.isPlatformJunk }
        // Up front, from the declared sizes: a bomb is refused before a byte is inflated.
        var total: UInt64 = 0
        for entry in entries {
            guard limits.allowsExpansion(entry.uncompressedSize, from: entry.compressedSize) else {
                throw InputError(
                    file: file.path, entry: entry.path,
                    limits.ratioRefusal(entry.uncompressedSize, from: entry.compressedSize, declared: true))
            }
            let (sum, overflow) = total.addingReportingOverflow(entry.uncompressedSize)
            guard !overflow, sum <= limits.maxUncompressedBytes else {
                throw InputError(file: file.path, entry: entry.path, limits.totalRefusal(overflow ? .max : sum))
            }
            total = sum
        }
    }

    /// Offset of the entry's data: after the local header, whose name and extra lengths can
    /// differ from the central directory's. Checks that the local header agrees with the
    /// central directory (name, method, encryption, sizes and CRC unless a data descriptor
    /// follows the data) and that the data ends before the next entry begins.
    package func dataOffset(of entry: ArchiveEntry) throws -> UInt64 {
        let fail = { (message: String) in InputError(file: self.file.path, entry: entry.path, message) }
        guard let known = listed[entry.localHeaderOffset], known.entry == entry else {
            throw fail("entry is not listed in the archive's central directory")
        }
        var header = [UInt8](repeating: 0, count: 30)
        guard try file.read(into: &header, at: entry.localHeaderOffset) == 30,
            header.le32(0) == ZipCentralDirectory.localHeaderSignature
        else {
            throw fail("local header missing (corrupt archive)")
        }
        let flags = header.le16(6), method = header.le16(8)
        let nameLength = Int(header.le16(26)), extraLength = Int(header.le16(28))
        var variable = [UInt8](repeating: 0, count: nameLength + extraLength)
        guard try file.read(into: &variable, at: entry.localHeaderOffset + 30) == variable.count else {
            throw fail("archive ends inside the entry's local header (truncated)")
        }
        guard variable[0..<nameLength].elementsEqual(known.rawName) else {
            throw fail("the local header names another entry than the central directory does (corrupt or tampered archive)")
        }
        if flags & 1 != 0 || entry.flags & 1 != 0 {
            throw fail("encrypted entries are not supported; export the archive again without a password")
        }
        guard method == entry.method else {
            throw fail(
                "the local header's compression method (\(method)) differs from the central directory's (\(entry.method)) (corrupt or tampered archive)"
            )
        }
        if flags & 0x08 == 0 {
            // No data descriptor: the local header's CRC and sizes are final and must agree.
            var compressed = UInt64(header.le32(18)), uncompressed = UInt64(header.le32(22))
            if compressed == 0xFFFF_FFFF || uncompressed == 0xFFFF_FFFF {
                let extra = Array(variable[nameLength...])
                var x = 0
                while x + 4 <= extra.count {
                    let tag = extra.le16(x), size = Int(extra.le16(x + 2))
                    guard x + 4 + size <= extra.count else { break }
                    if tag == 0x0001 {
                        var f = x + 4
                        if uncompressed == 0xFFFF_FFFF, f + 8 <= x + 4 + size { uncompressed = extra.le64(f); f += 8 }
                        if compressed == 0xFFFF_FFFF, f + 8 <= x + 4 + size { compressed = extra.le64(f) }
                    }
                    x += 4 + size
                }
            }
            guard compressed == entry.compressedSize, uncompressed == entry.uncompressedSize,
                entry.crc32 == nil || header.le32(14) == entry.crc32
            else {
                throw fail("the local header's sizes or CRC differ from the central directory's (corrupt or tampered archive)")
            }
        }
        let start = entry.localHeaderOffset + 30 + UInt64(nameLength) + UInt64(extraLength)
        guard start <= known.dataBound, entry.compressedSize <= known.dataBound - start else {
            throw fail(
                known.isLast
                    ? "its data runs into the central directory (corrupt archive)"
                    : "its data overlaps the next entry (overlapping entries: refused as a possible zip bomb)")
        }
        return start
    }

    package func read(_ entry: ArchiveEntry, _ body: (ByteSpan) throws -> Void) throws {
        let fail = { (message: String) in InputError(file: self.file.path, entry: entry.path, message) }
        if entry.flags & 1 != 0 {
            throw fail("encrypted entries are not supported; export the archive again without a password")
        }
        guard entry.method == 0 || entry.method == 8 else {
            throw fail("compression method \(entry.method) is not supported (only stored and deflated)")
        }
        var offset = try dataOffset(of: entry)
        if entry.method == 8,
            try unsafe inflateWhole(
                entry, at: offset, scratch: WholeEntryScratch(), { try unsafe Self.inChunks($0) { try unsafe body(ByteSpan($0)) } })
        {
            return
        }
        var remaining = entry.compressedSize
        var crc: UInt32 = 0
        var produced: UInt64 = 0
        // SAFETY: `input` (and `output` below) belong to this call and are freed when it returns,
        // after `inflateEnd`; chunks made from them reach `body` only during the call.
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { unsafe input.deallocate() }

        /// Reads the next compressed chunk; returns its length.
        func refill() throws -> Int {
            let want = Int(min(UInt64(Self.chunkSize), remaining))
            // SAFETY: want ≤ chunkSize, so `input[0..<want]` lies inside `input`.
            let n = try unsafe file.read(into: UnsafeMutableRawBufferPointer(rebasing: input[0..<want]), at: offset)
            guard n == want else { throw fail("archive ends inside the entry (truncated)") }
            offset += UInt64(n)
            remaining -= UInt64(n)
            return n
        }
        // Output is counted as zlib produces it, whatever the headers say. It may not pass the
        // declared size (whose sum over the entries `init` held to the total limit), nor the
        // ratio limit measured on the compressed bytes zlib actually consumed: a header
        // declaring a large compressed size in front of a short stream gains nothing.
        func deliver(_ chunk: UnsafeRawBufferPointer, consumed: UInt64) throws {
            produced += UInt64(chunk.count)
            guard produced <= entry.uncompressedSize else {
                throw fail("entry inflates past its declared size of \(entry.uncompressedSize) bytes (corrupt archive)")
            }
            guard limits.allowsExpansion(produced, from: consumed) else {
                throw fail(limits.ratioRefusal(produced, from: consumed, declared: false))
            }
            // SAFETY: every chunk delivered is non-empty (so it has a base address) and valid
            // during the call; `libdeflate_crc32` reads its `count` bytes only.
            crc = unsafe libdeflate_crc32(crc, chunk.baseAddress!, chunk.count)
            try unsafe body(ByteSpan(chunk))
        }

        if entry.method == 0 {
            guard entry.compressedSize == entry.uncompressedSize else { throw fail("stored entry with differing sizes") }
            while remaining > 0 {
                let n = try refill()
                // SAFETY: `refill` filled `input[0..<n]` with n > 0 (remaining > 0).
                try unsafe deliver(UnsafeRawBufferPointer(rebasing: input[0..<n]), consumed: produced + UInt64(n))
            }
        } else {
            let output = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
            defer { unsafe output.deallocate() }
            // SAFETY: zlib keeps the stream's address between calls and checks it, so the stream
            // lives in memory of its own (a Swift local's address is not promised to stay put);
            // `inflateEnd` runs before the stream and the buffers are freed.
            let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            unsafe stream.initialize(to: z_stream())
            defer { unsafe stream.deallocate() }
            guard unsafe healthtrail_inflateInit2(stream, -MAX_WBITS) == Z_OK else { throw fail("zlib could not start") }
            defer { unsafe inflateEnd(stream) }
            var finished = false
            while !finished {
                // SAFETY: `input` is refilled only once zlib has consumed all of it (avail_in == 0),
                // so no unread byte is overwritten; `output` is handed back to zlib whole only
                // after the previous chunk of it was delivered, and `body` keeps no span of it.
                if unsafe stream.pointee.avail_in == 0 && remaining > 0 {
                    let n = try refill()
                    unsafe stream.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    unsafe stream.pointee.avail_in = uInt(n)
                }
                unsafe stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
                unsafe stream.pointee.avail_out = uInt(Self.chunkSize)
                let status = unsafe inflate(stream, Z_NO_FLUSH)
                let count = unsafe Self.chunkSize - Int(stream.pointee.avail_out)
                if count > 0 {
                    // SAFETY: zlib wrote `output[0..<count]` (count ≤ chunkSize, from avail_out).
                    try unsafe deliver(UnsafeRawBufferPointer(rebasing: output[0..<count]), consumed: UInt64(stream.pointee.total_in))
                }
                switch status {
                case Z_STREAM_END:
                    finished = true
                case Z_OK:
                    continue
                case Z_BUF_ERROR where unsafe stream.pointee.avail_in == 0 && remaining > 0:
                    continue
                case Z_BUF_ERROR:
                    throw fail("compressed data ends early (truncated or corrupt entry)")
                default:
                    // SAFETY: `msg` is nil or a static string zlib keeps until `inflateEnd`.
                    let detail = unsafe stream.pointee.msg.map { unsafe String(cString: $0) } ?? "code \(status)"
                    throw fail("corrupt compressed data (zlib: \(detail))")
                }
            }
        }
        guard produced == entry.uncompressedSize else {
            throw fail("entry inflates to \(produced) bytes but declares \(entry.uncompressedSize) (corrupt archive)")
        }
        if let expected = entry.crc32, crc != expected {
            throw fail("CRC-32 mismatch: the entry is corrupt")
        }
    }
}
