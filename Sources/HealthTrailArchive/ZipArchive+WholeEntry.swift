import CLibDeflate
import HealthTrailBase

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ZipArchive {
    /// The whole of a small deflated entry, inflated in one call (route files are decoded
    /// from it in libxml2's faster pull mode); false for any other entry, which `read` streams.
    package func readWhole(
        _ entry: ArchiveEntry, scratch: WholeEntryScratch,
        _ body: (ByteSpan) throws -> Void
    ) throws -> Bool {
        guard entry.method == 8, entry.flags & 1 == 0 else { return false }
        return try unsafe inflateWhole(entry, at: dataOffset(of: entry), scratch: scratch) { try unsafe body(ByteSpan($0)) }
    }

    /// Hands `whole` to `body` in `chunkSize` pieces, as the streaming path would.
    package static func inChunks(_ whole: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var start = 0
        while start < whole.count {
            let end = min(start + chunkSize, whole.count)
            // SAFETY: start < end ≤ whole.count, so each piece lies inside `whole`, which the
            // caller keeps valid for the call.
            try unsafe body(UnsafeRawBufferPointer(rebasing: whole[start..<end]))
            start = end
        }
    }

    /// Inflates a small deflated entry in one libdeflate call and hands it to `body` whole;
    /// returns false (having called `body` never) when the entry is too large for it or
    /// anything about it is wrong.
    ///
    /// Why: a two-year export has about 300 route files of 0.5–2 MB. libdeflate inflates them
    /// in half zlib's time (0.27 s against 0.52 s for the 212 MB of the benchmark's GPX), and
    /// those files are decoded on the cores the export.xml threads leave, where every CPU
    /// second counts. It cannot stream, so it only takes entries of at most `wholeEntryLimit`
    /// bytes: memory stays bounded (`scratch`, kept by the caller across entries), and
    /// export.xml, which may be gigabytes, is always streamed.
    ///
    /// The streaming path stays the only judge of a bad entry: on any failure (corrupt data,
    /// an inflated size other than the declared one, the expansion ratio, the CRC-32, a read
    /// error) this returns false and `read` streams the entry through zlib from its start,
    /// which reports the fault exactly as it always has. Nothing is delivered before the CRC
    /// has been checked. One difference: the expansion ratio is judged on the whole entry,
    /// not after every chunk as it streams. That early check is there to stop a bomb before it
    /// has inflated much; here the output cannot pass the entry's declared size, at most
    /// `wholeEntryLimit`, so there is nothing to stop.
    package func inflateWhole(
        _ entry: ArchiveEntry, at offset: UInt64, scratch: WholeEntryScratch,
        _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Bool {
        guard entry.uncompressedSize <= Self.wholeEntryLimit, entry.compressedSize <= Self.wholeEntryLimit,
            entry.uncompressedSize > 0, let expectedCRC = entry.crc32
        else { return false }
        // SAFETY: `buffer` holds at least both sizes (each ≤ wholeEntryLimit, so no overflow):
        // `input` and `output` are disjoint ranges inside it, valid until the scratch's next use,
        // after this call. libdeflate writes at most `output.count` bytes and reads `input` only.
        let buffer = unsafe scratch.bytes(atLeast: Int(entry.compressedSize + entry.uncompressedSize))
        let input = unsafe UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(entry.compressedSize)])
        let output = unsafe UnsafeMutableRawBufferPointer(rebasing: buffer[input.count..<(input.count + Int(entry.uncompressedSize))])
        guard unsafe (try? file.read(into: input, at: offset)) == input.count,
            let decompressor = unsafe libdeflate_alloc_decompressor()
        else { return false }
        defer { unsafe libdeflate_free_decompressor(decompressor) }
        var consumed = 0
        var produced = 0
        // SAFETY: see above: libdeflate reads `input` whole, writes at most `output.count` bytes,
        // and the CRC reads the `produced` ≤ output.count bytes it wrote.
        let status = unsafe libdeflate_deflate_decompress_ex(
            decompressor, input.baseAddress, input.count,
            output.baseAddress, output.count, &consumed, &produced)
        guard status == LIBDEFLATE_SUCCESS, produced == output.count,
            limits.allowsExpansion(UInt64(produced), from: UInt64(consumed)),
            unsafe libdeflate_crc32(0, output.baseAddress, produced) == expectedCRC
        else { return false }
        // SAFETY: all of `output` was written (produced == output.count); valid during `body`,
        // which must not use the same scratch.
        try unsafe body(UnsafeRawBufferPointer(output))
        return true
    }
}

/// The memory `ExportSource.readWhole` reads and inflates into, kept from one entry to the
/// next by the thread that owns it, and unmapped with it.
///
/// One per thread, as large as the largest entry it has held (at most
/// `2 × ZipArchive.wholeEntryLimit`). It is mapped directly rather than taken from `malloc`:
/// freeing a malloc'd block of a few megabytes raises glibc's mmap threshold to that size, after
/// which every later buffer below it (the route stage's CSV buffers and point arrays) stays in
/// glibc's heaps when freed, and peak RSS grew by 5 MiB, 9 % when the benchmark's history doubled.
///
/// Invariant: `base` is nil, or a block of `abs(count)` bytes this object owns: mapped when
/// `count` > 0, allocated when `count` < 0, released by `unmap` (on growth and in deinit) the
/// same way. Used by one thread at a time, which holds no buffer from it across a `bytes` call.
@safe
package final class WholeEntryScratch {
    private var base: UnsafeMutableRawPointer?
    private var count = 0

    package init() {}

    deinit { unmap() }

    /// At least `size` bytes, valid until the next call.
    package func bytes(atLeast size: Int) -> UnsafeMutableRawBufferPointer {
        if unsafe abs(count) < size || base == nil {
            unmap()
            let mapped = unsafe mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            if let mapped = unsafe mapped, unsafe mapped != MAP_FAILED {
                unsafe base = mapped
                count = size
            } else {
                // No address space left: malloc's failure is as fatal as everywhere else.
                unsafe base = .allocate(byteCount: size, alignment: 16)
                count = -size
            }
        }
        // SAFETY: `base` holds `abs(count)` ≥ size bytes (see the invariant) until the next call.
        return unsafe UnsafeMutableRawBufferPointer(start: base, count: abs(count))
    }

    private func unmap() {
        guard let base = unsafe base else { return }
        if count > 0 { unsafe munmap(base, count) } else { unsafe base.deallocate() }
        unsafe self.base = nil
        count = 0
    }
}
