import HealthTrailBase

/// Parses a zip's end-of-central-directory record (zip64 included) and its central directory.
///
/// The central directory is the authority on names, sizes, CRCs and offsets: local headers may
/// carry zeros when a data descriptor follows the data (general-purpose flag bit 3).
package enum ZipCentralDirectory {
    package static let eocdSignature: UInt32 = 0x0605_4B50
    package static let zip64LocatorSignature: UInt32 = 0x0706_4B50
    package static let zip64EOCDSignature: UInt32 = 0x0606_4B50
    package static let centralHeaderSignature: UInt32 = 0x0201_4B50
    package static let localHeaderSignature: UInt32 = 0x0403_4B50

    /// What the central directory lists: the entries in directory order, each entry's name as
    /// stored (to compare with its local header), and where entry data must end.
    package struct Listing {
        package var entries: [ArchiveEntry] = []
        package var rawNames: [[UInt8]] = []
        /// Offset of the central directory: no entry's data may reach past it.
        package var dataEnd: UInt64 = 0
    }

    package static func read(_ file: ReadOnlyFile) throws -> Listing {
        let fail = { (message: String) in InputError(file: file.path, message) }
        // The EOCD is 22 bytes plus a comment of up to 65,535 bytes, at the very end.
        let tailLength = Int(min(file.size, 22 + 65_535))
        guard tailLength >= 22 else { throw fail("not a zip archive, or truncated (too short)") }
        var tail = [UInt8](repeating: 0, count: tailLength)
        _ = try file.read(into: &tail, at: file.size - UInt64(tailLength))
        var eocdAt: Int? = nil
        var i = tailLength - 22
        while i >= 0 {
            if tail.le32(i) == eocdSignature { eocdAt = i; break }
            i -= 1
        }
        guard let e = eocdAt else {
            throw fail("not a complete zip archive: no end-of-central-directory record (truncated download?)")
        }
        let eocdOffset = file.size - UInt64(tailLength) + UInt64(e)
        var entryCount = UInt64(tail.le16(e + 10))
        var cdSize = UInt64(tail.le32(e + 12))
        var cdOffset = UInt64(tail.le32(e + 16))

        if entryCount == 0xFFFF || cdSize == 0xFFFF_FFFF || cdOffset == 0xFFFF_FFFF {
            // Zip64: a 20-byte locator sits just before the EOCD and points at the zip64 EOCD.
            guard eocdOffset >= 20 else { throw fail("zip64 locator missing (truncated archive?)") }
            var locator = [UInt8](repeating: 0, count: 20)
            guard try file.read(into: &locator, at: eocdOffset - 20) == 20 else { throw fail("zip64 locator truncated") }
            guard locator.le32(0) == zip64LocatorSignature else {
                throw fail("zip64 end-of-central-directory locator missing (corrupt archive)")
            }
            let z64Offset = locator.le64(8)
            // Subtraction, not addition: a hostile offset near 2^64 must not wrap past the check.
            guard z64Offset <= eocdOffset, eocdOffset - z64Offset >= 56 else {
                throw fail("zip64 end record lies outside the archive")
            }
            var record = [UInt8](repeating: 0, count: 56)
            guard try file.read(into: &record, at: z64Offset) == 56 else { throw fail("zip64 end record truncated") }
            guard record.le32(0) == zip64EOCDSignature else {
                throw fail("zip64 end-of-central-directory record missing (corrupt archive)")
            }
            entryCount = record.le64(32)
            cdSize = record.le64(40)
            cdOffset = record.le64(48)
        }
        guard cdOffset <= file.size, cdSize <= file.size - cdOffset, cdOffset + cdSize <= eocdOffset else {
            throw fail("central directory lies outside the archive (truncated or corrupt)")
        }
        // Each central header is at least 46 bytes: a count that cannot fit is a lie.
        guard entryCount <= cdSize / 46 + 1 else { throw fail("central directory declares more entries than it holds") }

        var cd = [UInt8](repeating: 0, count: Int(cdSize))
        guard try file.read(into: &cd, at: cdOffset) == cd.count else {
            throw fail("central directory truncated")
        }
        var listing = Listing(dataEnd: cdOffset)
        listing.entries.reserveCapacity(Int(entryCount))
        listing.rawNames.reserveCapacity(Int(entryCount))
        var p = 0
        for index in 0..<entryCount {
            guard p + 46 <= cd.count, cd.le32(p) == centralHeaderSignature else {
                throw fail("central directory entry \(index + 1) is corrupt")
            }
            let flags = cd.le16(p + 8)
            let method = cd.le16(p + 10)
            let crc = cd.le32(p + 16)
            var compressed = UInt64(cd.le32(p + 20))
            var uncompressed = UInt64(cd.le32(p + 24))
            let nameLength = Int(cd.le16(p + 28))
            let extraLength = Int(cd.le16(p + 30))
            let commentLength = Int(cd.le16(p + 32))
            var localOffset = UInt64(cd.le32(p + 42))
            let nameStart = p + 46
            let extraStart = nameStart + nameLength
            let next = extraStart + extraLength + commentLength
            guard next <= cd.count else { throw fail("central directory entry \(index + 1) overruns the directory") }
            let name = decodeName(cd[nameStart..<extraStart], utf8Flag: flags & 0x0800 != 0)

            // Zip64 extended information (tag 0x0001): only the fields saturated above are present.
            var x = extraStart
            while x + 4 <= extraStart + extraLength {
                let tag = cd.le16(x), size = Int(cd.le16(x + 2))
                let body = x + 4
                guard body + size <= extraStart + extraLength else { break }
                if tag == 0x0001 {
                    var f = body
                    func field() throws -> UInt64 {
                        guard f + 8 <= body + size else {
                            throw InputError(file: file.path, entry: name, "zip64 extra field too short")
                        }
                        defer { f += 8 }
                        return cd.le64(f)
                    }
                    if uncompressed == 0xFFFF_FFFF { uncompressed = try field() }
                    if compressed == 0xFFFF_FFFF { compressed = try field() }
                    if localOffset == 0xFFFF_FFFF { localOffset = try field() }
                }
                x = body + size
            }
            // A zip64 size past 2^63 is no file anyone wrote; refuse it before it reaches arithmetic.
            guard uncompressed <= UInt64(Int64.max), compressed <= UInt64(Int64.max), localOffset <= UInt64(Int64.max) else {
                throw InputError(file: file.path, entry: name, "zip64 size or offset out of range (corrupt archive)")
            }
            // The smallest local header is 30 bytes plus the name: data cannot start sooner.
            let headerBytes = 30 + UInt64(nameLength)
            guard localOffset < cdOffset, headerBytes <= cdOffset - localOffset,
                compressed <= cdOffset - localOffset - headerBytes
            else {
                throw InputError(file: file.path, entry: name, "entry data lies outside the archive (truncated or corrupt)")
            }
            listing.entries.append(
                ArchiveEntry(
                    path: name, uncompressedSize: uncompressed, compressedSize: compressed,
                    crc32: crc, method: method, flags: flags, localHeaderOffset: localOffset))
            listing.rawNames.append(Array(cd[nameStart..<extraStart]))
            p = next
        }
        return listing
    }

    /// Refuses entries whose data ranges overlap: the non-recursive zip bomb points many central
    /// entries at one deflate stream (or at each other's data) so that a small file inflates
    /// to far more than its size. Each entry owns `[local header, data end)`; ranges are
    /// compared in offset order with each header's smallest size (30 bytes plus its name), and
    /// `ZipArchive` checks the exact end against the next entry when it reads the local header.
    /// Returns, for each entry in `listing` order, the offset its data must end by.
    package static func dataBounds(_ listing: Listing, file: String) throws -> [UInt64] {
        let order = listing.entries.indices.sorted { listing.entries[$0].localHeaderOffset < listing.entries[$1].localHeaderOffset }
        var bounds = [UInt64](repeating: listing.dataEnd, count: listing.entries.count)
        for (k, i) in order.enumerated() where k + 1 < order.count {
            let entry = listing.entries[i], next = listing.entries[order[k + 1]]
            // Sums cannot overflow: `read` bounded each term by the central directory's offset.
            let minimalEnd = entry.localHeaderOffset + 30 + UInt64(listing.rawNames[i].count) + entry.compressedSize
            guard minimalEnd <= next.localHeaderOffset else {
                throw InputError(
                    file: file, entry: entry.path,
                    "its data overlaps entry \(next.path) (overlapping entries: refused as a possible zip bomb)")
            }
            bounds[i] = next.localHeaderOffset
        }
        return bounds
    }

    /// Entry names are UTF-8 when flag bit 11 is set; many tools write UTF-8 without it, so try
    /// UTF-8 first and fall back to Latin-1 rather than failing on a name.
    package static func decodeName(_ bytes: ArraySlice<UInt8>, utf8Flag: Bool) -> String {
        if let s = String(validating: bytes, as: UTF8.self) { return s }
        return String(bytes.map { Character(Unicode.Scalar($0)) })
    }
}

extension Array where Element == UInt8 {
    @inline(__always) package func le16(_ i: Int) -> UInt16 { UInt16(self[i]) | UInt16(self[i + 1]) << 8 }
    @inline(__always) package func le32(_ i: Int) -> UInt32 {
        UInt32(self[i]) | UInt32(self[i + 1]) << 8 | UInt32(self[i + 2]) << 16 | UInt32(self[i + 3]) << 24
    }
    @inline(__always) package func le64(_ i: Int) -> UInt64 { UInt64(le32(i)) | UInt64(le32(i + 4)) << 32 }
}
