import CZlib
import HealthTrailBase

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes real zip archives, streaming each entry through zlib's deflate; zip64 where needed.
///
/// Used by `healthtrail synth` to make test and benchmark exports of any size, and by tests
/// to build archives with chosen faults. Local headers always carry a zip64 size field so an
/// entry's size need not be known before it is written; the central directory uses zip64 only
/// for values that do not fit 32 bits (or for all of them with `forceZip64`).
package final class ZipWriter {
    package struct Written {
        package var name: [UInt8]
        package var method: UInt16
        package var crc: UInt32
        package var compressed: UInt64
        package var uncompressed: UInt64
        package var offset: UInt64
    }

    package let path: String
    package let fd: Int32
    package var position: UInt64 = 0
    package var written: [Written] = []
    /// Write every central-directory value through zip64 fields and a zip64 end record.
    package var forceZip64 = false
    /// MS-DOS date and time stamped on entries (fixed so archives are reproducible).
    package let dosTime: UInt16 = 0x6000   // 12:00:00
    package let dosDate: UInt16 = 0x5821   // 2024-01-01

    package init(path: String) throws {
        self.path = path
        fd = unsafe open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw InputError(file: path, unsafe "cannot create: \(String(cString: strerror(errno)))") }
    }

    deinit { close(fd) }

    /// Adds an entry whose content `produce` writes through the `emit` function it is given.
    /// `level` is zlib's (0 stores the entry uncompressed).
    package func addEntry(
        _ name: String, level: Int32 = Z_DEFAULT_COMPRESSION,
        _ produce: (_ emit: (ByteSpan) throws -> Void) throws -> Void
    ) throws {
        let nameBytes = Array(name.utf8)
        let method: UInt16 = level == 0 ? 0 : 8
        let headerOffset = position
        try writeLocalHeader(name: nameBytes, method: method, crc: 0, compressed: 0, uncompressed: 0)
        let dataStart = position
        var crc: uLong = 0
        var total: UInt64 = 0
        if method == 0 {
            try produce { span in
                // SAFETY: the span's bytes, valid during this closure and read only inside it; a
                // span always has a base address, so `crc32` never gets NULL (which would reset it).
                try unsafe span.withUnsafeBytes { chunk in
                    crc = unsafe crc32(crc, chunk.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(chunk.count))
                    total += UInt64(chunk.count)
                    try unsafe self.write(chunk)
                }
            }
        } else {
            // SAFETY: zlib keeps the stream's address between calls and checks it, so the stream
            // lives in memory of its own (a Swift local's address is not promised to stay put).
            // `deflateEnd` frees only zlib's own state, so it may run after `out` is freed (the
            // defers run in that order), and before the stream itself is.
            let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            unsafe stream.initialize(to: z_stream())
            defer { unsafe stream.deallocate() }
            guard unsafe healthtrail_deflateInit2(stream, level, -MAX_WBITS) == Z_OK else {
                throw InputError(file: path, entry: name, "zlib deflate could not start")
            }
            defer { unsafe deflateEnd(stream) }
            let outSize = 256 * 1024
            let out = UnsafeMutablePointer<Bytef>.allocate(capacity: outSize)
            defer { unsafe out.deallocate() }
            func pump(_ flush: Int32) throws {
                // SAFETY: `out` (owned by this call) is given to zlib whole on each pass, and its
                // first n = outSize - avail_out bytes, which zlib wrote, are written out at once.
                repeat {
                    unsafe stream.pointee.next_out = out
                    unsafe stream.pointee.avail_out = uInt(outSize)
                    let status = unsafe deflate(stream, flush)
                    guard status != Z_STREAM_ERROR else { throw InputError(file: path, entry: name, "deflate failed") }
                    let n = unsafe outSize - Int(stream.pointee.avail_out)
                    if n > 0 { try unsafe write(UnsafeRawBufferPointer(start: out, count: n)) }
                } while unsafe stream.pointee.avail_out == 0
            }
            try produce { span in
                guard span.count > 0 else { return }
                // SAFETY: zlib reads the chunk during `pump` only, inside this call: `pump` returns
                // once deflate leaves output room, which it does only with all input consumed
                // (avail_in == 0), so `next_in` is never read after. zlib does not write through it.
                try unsafe span.withUnsafeBytes { chunk in
                    crc = unsafe crc32(crc, chunk.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt(chunk.count))
                    total += UInt64(chunk.count)
                    unsafe stream.pointee.next_in = UnsafeMutablePointer(mutating: chunk.baseAddress!.assumingMemoryBound(to: Bytef.self))
                    unsafe stream.pointee.avail_in = uInt(chunk.count)
                    try pump(Z_NO_FLUSH)
                }
            }
            try pump(Z_FINISH)
        }
        let compressed = position - dataStart
        try patchLocalHeader(
            at: headerOffset, nameLength: nameBytes.count, crc: UInt32(truncatingIfNeeded: crc),
            compressed: compressed, uncompressed: total)
        written.append(
            Written(
                name: nameBytes, method: method, crc: UInt32(truncatingIfNeeded: crc),
                compressed: compressed, uncompressed: total, offset: headerOffset))
    }

    /// Adds an entry from bytes in memory.
    package func addEntry(_ name: String, bytes: [UInt8], level: Int32 = Z_DEFAULT_COMPRESSION) throws {
        try addEntry(name, level: level) { emit in try ByteSpan.withBytes(ofEach: bytes) { try emit($0) } }
    }

    /// Adds an entry whose compressed bytes the caller supplies with their declared CRC and sizes,
    /// which need not be true: tests use it to build archives that lie or that are enormous.
    package func addRawEntry(
        _ name: String, method: UInt16, crc: UInt32, uncompressedSize: UInt64,
        compressedSize: UInt64, _ produce: (_ emit: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        let nameBytes = Array(name.utf8)
        let headerOffset = position
        try writeLocalHeader(name: nameBytes, method: method, crc: crc, compressed: compressedSize, uncompressed: uncompressedSize)
        try unsafe produce { try unsafe self.write($0) }
        written.append(
            Written(
                name: nameBytes, method: method, crc: crc, compressed: compressedSize,
                uncompressed: uncompressedSize, offset: headerOffset))
    }

    /// Writes the central directory and end records, then closes the file.
    package func finish() throws {
        let cdStart = position
        for w in written {
            var extra = Bytes()
            let bigU = forceZip64 || w.uncompressed >= 0xFFFF_FFFF
            let bigC = forceZip64 || w.compressed >= 0xFFFF_FFFF
            let bigO = forceZip64 || w.offset >= 0xFFFF_FFFF
            if bigU || bigC || bigO {
                var body = Bytes()
                if bigU { body.u64(w.uncompressed) }
                if bigC { body.u64(w.compressed) }
                if bigO { body.u64(w.offset) }
                extra.u16(0x0001); extra.u16(UInt16(body.bytes.count)); extra.bytes += body.bytes
            }
            var h = Bytes()
            h.u32(ZipCentralDirectory.centralHeaderSignature)
            h.u16(0x031E)   // made by: Unix, spec 3.0
            h.u16(extra.bytes.isEmpty ? 20 : 45)   // version needed
            h.u16(0x0800)   // UTF-8 names
            h.u16(w.method); h.u16(dosTime); h.u16(dosDate); h.u32(w.crc)
            h.u32(bigC ? 0xFFFF_FFFF : UInt32(w.compressed))
            h.u32(bigU ? 0xFFFF_FFFF : UInt32(w.uncompressed))
            h.u16(UInt16(w.name.count)); h.u16(UInt16(extra.bytes.count)); h.u16(0)
            h.u16(0); h.u16(0); h.u32(0o100600 << 16)
            h.u32(bigO ? 0xFFFF_FFFF : UInt32(w.offset))
            h.bytes += w.name
            h.bytes += extra.bytes
            try write(h.bytes)
        }
        let cdSize = position - cdStart
        let count = UInt64(written.count)
        let zip64 = forceZip64 || count >= 0xFFFF || cdSize >= 0xFFFF_FFFF || cdStart >= 0xFFFF_FFFF
        if zip64 {
            let recordStart = position
            var r = Bytes()
            r.u32(ZipCentralDirectory.zip64EOCDSignature); r.u64(44)
            r.u16(0x031E); r.u16(45); r.u32(0); r.u32(0)
            r.u64(count); r.u64(count); r.u64(cdSize); r.u64(cdStart)
            r.u32(ZipCentralDirectory.zip64LocatorSignature); r.u32(0); r.u64(recordStart); r.u32(1)
            try write(r.bytes)
        }
        var e = Bytes()
        e.u32(ZipCentralDirectory.eocdSignature); e.u16(0); e.u16(0)
        e.u16(zip64 ? 0xFFFF : UInt16(count)); e.u16(zip64 ? 0xFFFF : UInt16(count))
        e.u32(zip64 ? 0xFFFF_FFFF : UInt32(cdSize)); e.u32(zip64 ? 0xFFFF_FFFF : UInt32(cdStart)); e.u16(0)
        try write(e.bytes)
        guard fsync(fd) == 0 || errno == EINVAL else {
            throw InputError(file: path, unsafe "cannot sync: \(String(cString: strerror(errno)))")
        }
    }

    // MARK: - Headers

    /// Local header with a zip64 extra field holding both sizes, so any size can be patched in.
    package func writeLocalHeader(name: [UInt8], method: UInt16, crc: UInt32, compressed: UInt64, uncompressed: UInt64) throws {
        var h = Bytes()
        h.u32(ZipCentralDirectory.localHeaderSignature)
        h.u16(45); h.u16(0x0800); h.u16(method); h.u16(dosTime); h.u16(dosDate)
        h.u32(crc); h.u32(0xFFFF_FFFF); h.u32(0xFFFF_FFFF)
        h.u16(UInt16(name.count)); h.u16(20)
        h.bytes += name
        h.u16(0x0001); h.u16(16); h.u64(uncompressed); h.u64(compressed)
        try write(h.bytes)
    }

    /// Fills in the CRC and the zip64 sizes once the entry's data has been written.
    package func patchLocalHeader(at offset: UInt64, nameLength: Int, crc: UInt32, compressed: UInt64, uncompressed: UInt64) throws {
        var c = Bytes(); c.u32(crc)
        try pwriteAll(c.bytes, at: offset + 14)
        let extraAt = offset + 30 + UInt64(nameLength) + 4   // past the extra field's tag and size
        var sizes = Bytes(); sizes.u64(uncompressed); sizes.u64(compressed)
        try pwriteAll(sizes.bytes, at: extraAt)
    }

    // MARK: - I/O

    // SAFETY: the array's own bytes, lent for the call; `write(_:)` uses them before returning.
    package func write(_ bytes: [UInt8]) throws { try unsafe bytes.withUnsafeBytes { try unsafe write($0) } }

    package func write(_ chunk: UnsafeRawBufferPointer) throws {
        // SAFETY: the caller's `chunk.count` bytes, valid for the call; no base address, no bytes.
        if let base = chunk.baseAddress {
            let failed = unsafe writeFully(fd, base, chunk.count)
            guard failed == 0 else { throw InputError(file: path, unsafe "write failed: \(String(cString: strerror(failed)))") }
        }
        position += UInt64(chunk.count)
    }

    package func pwriteAll(_ bytes: [UInt8], at offset: UInt64) throws {
        // SAFETY: `pwrite` reads the array's `count` bytes, lent for the call only.
        let n = unsafe bytes.withUnsafeBytes { unsafe pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        guard n == bytes.count else { throw InputError(file: path, unsafe "write failed: \(String(cString: strerror(errno)))") }
    }
}

/// Little-endian byte assembly for zip headers.
package struct Bytes {
    package var bytes: [UInt8] = []
    package mutating func u16(_ v: UInt16) { bytes.append(UInt8(v & 0xFF)); bytes.append(UInt8(v >> 8)) }
    package mutating func u32(_ v: UInt32) { u16(UInt16(v & 0xFFFF)); u16(UInt16(v >> 16)) }
    package mutating func u64(_ v: UInt64) { u32(UInt32(v & 0xFFFF_FFFF)); u32(UInt32(v >> 32)) }
}
