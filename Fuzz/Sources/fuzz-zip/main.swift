import FuzzSupport

@testable import HealthTrailArchive
@testable import HealthTrailXML

/// The zip reader on arbitrary bytes: the end records, the central directory, the limits and
/// overlap checks, then every entry streamed (local header, inflate, size and CRC checks) and
/// the export layout found by content. Any error is fine; a crash, a hang or a leak is not.
/// The limits are smaller than the defaults so a bomb that slips through shows as a slow unit.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZip(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let path = ScratchFolder.write(UnsafeRawBufferPointer(start: data, count: count), to: "input.zip")
    let limits = ArchiveLimits(maxExpansionRatio: 200, maxUncompressedBytes: 64 << 20)
    guard let archive = try? ZipArchive(path: path, limits: limits) else { return 0 }
    var total: UInt64 = 0
    for entry in archive.entries {
        try? archive.read(entry) { chunk in total += UInt64(chunk.count) }
    }
    precondition(total <= limits.maxUncompressedBytes, "read past the total limit")
    _ = try? ExportLayout(source: archive)
    return 0
}
