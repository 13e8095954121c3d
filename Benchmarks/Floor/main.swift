// healthtrail-floor ARCHIVE.zip
//
// The least work any tool must do to read an Apple Health export: find export.xml through the
// zip central directory, inflate it, and run it through libxml2's SAX2 push parser with callbacks
// that do nothing. No CRC, no decoding, no output. `make bench` compares `healthtrail run` against
// this program, so the gap between the two is exactly the cost of HealthTrail's own work.
//
// `healthtrail-floor --elide-device-values ARCHIVE.zip` is the stricter floor: the same, with
// each inflated chunk put through HealthTrail's `DeviceValueElision` before libxml2 parses it,
// on the same single thread. HealthTrail parses the elided bytes, so this is the floor for
// the document libxml2 actually sees in a run (see Benchmarks/README.md).
//
// Prints one line: `floor: inflated N bytes of ENTRY in S s (R MB/s)`; the bench driver reads N
// from it. Exit status: 0 on success, 1 on an XML or zlib error, 2 on a usage or archive error.

import CLibXML2
import CZlib
import HealthTrailArchive
import HealthTrailXML

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Size of the compressed reads and of the inflated chunks fed to the parser; the same as
/// `ZipArchive.chunkSize`, so the floor and HealthTrail make the same number of syscalls.
let chunkSize = 256 * 1024

/// A failure that ends the program with `status`.
struct FloorError: Error {
    var status: Int32
    var message: String
}

/// Seconds on the monotonic clock (never jumps with NTP, unlike the wall clock).
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// The main XML of an export: the largest `.xml` entry that is not `export_cda.xml`.
///
/// Sniffing for `<HealthData` would need the DTD that precedes it (several KiB) to be inflated
/// first; size alone is unambiguous for every real export, whose other XML is the small CDA file.
/// Names are compared case-insensitively: older iOS versions wrote `Export.xml`.
func mainXMLEntry(of archive: ZipArchive) -> ArchiveEntry? {
    archive.entries
        .filter { entry in
            let name = entry.fileName.lowercased()
            return name.hasSuffix(".xml") && name != "export_cda.xml"
        }
        .max { $0.uncompressedSize < $1.uncompressedSize }
}

/// A SAX2 handler whose element and text callbacks exist but do nothing.
///
/// The three callbacks are non-nil so that libxml2 makes the same indirect call per element and
/// per text run that it makes for HealthTrail (a nil callback is skipped). Every other field
/// stays nil: no tree is built, which is what a SAX reader of a 1 GB file must avoid anyway.
func emptySAXHandler() -> xmlSAXHandler {
    var sax = xmlSAXHandler()
    sax.initialized = UInt32(XML_SAX2_MAGIC)
    sax.startElementNs = { _, _, _, _, _, _, _, _, _ in }
    sax.endElementNs = { _, _, _, _ in }
    sax.characters = { _, _, _ in }
    return sax
}

/// A libxml2 push parser fed one chunk at a time, through `DeviceValueElision` if asked.
final class PushParser {
    private let context: xmlParserCtxtPtr
    private var handler = emptySAXHandler()
    private let elision: DeviceValueElision?
    private let elided: UnsafeMutableRawPointer?

    init(elidingDeviceValues: Bool) throws {
        elision = elidingDeviceValues ? DeviceValueElision() : nil
        elided =
            elidingDeviceValues
            ? .allocate(byteCount: DeviceValueElision.outputCapacity(forInput: chunkSize), alignment: 16) : nil
        guard let context = xmlCreatePushParserCtxt(&handler, nil, nil, 0, nil) else {
            throw FloorError(status: 1, message: "libxml2 could not create a push parser")
        }
        self.context = context
        // NONET: an export's DTD is internal; never let a DOCTYPE reach for the network.
        xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue))
    }

    deinit {
        xmlFreeParserCtxt(context)
        elided?.deallocate()
    }

    /// libxml2's message for the error that stopped the parse (the handler has no error callback,
    /// so nothing has been printed yet).
    private func lastErrorMessage() -> String {
        guard let error = xmlCtxtGetLastError(context), let message = error.pointee.message else {
            return "unknown error"
        }
        return String(cString: message).trimmingSuffix("\n")
    }

    /// Parses `chunk`; `last` tells libxml2 the document ends here.
    func feed(_ chunk: UnsafeRawBufferPointer, last: Bool = false) throws {
        var bytes = chunk.baseAddress?.assumingMemoryBound(to: CChar.self)
        var count = chunk.count
        if let elision, let elided {
            count = elision.rewrite(chunk, into: elided)
            if last { count += elision.finish(into: elided + count) }
            bytes = UnsafePointer(elided.assumingMemoryBound(to: CChar.self))
        }
        let status = xmlParseChunk(context, bytes, Int32(count), last ? 1 : 0)
        if status != 0 || context.pointee.wellFormed == 0 {
            throw FloorError(status: 1, message: "XML error at line \(xmlSAX2GetLineNumber(context)): \(lastErrorMessage())")
        }
    }
}

/// Streams `entry` from `file`, inflating it if deflated, into `parser`; returns the bytes parsed.
func parse(_ entry: ArchiveEntry, at start: UInt64, of file: ReadOnlyFile, into parser: PushParser) throws -> UInt64 {
    let input = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
    defer { input.deallocate() }
    var offset = start
    var remaining = entry.compressedSize

    /// Reads the next compressed chunk; returns its length (0 once the entry is consumed).
    func refill() throws -> Int {
        let want = Int(min(UInt64(chunkSize), remaining))
        let n = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: input[0..<want]), at: offset)
        guard n == want else { throw FloorError(status: 2, message: "archive ends inside \(entry.path)") }
        offset += UInt64(n)
        remaining -= UInt64(n)
        return n
    }

    switch entry.method {
    case 0:   // Stored: the bytes are the XML. Real exports are deflated; synthetic ones may not be.
        var parsed: UInt64 = 0
        while remaining > 0 {
            let n = try refill()
            try parser.feed(UnsafeRawBufferPointer(rebasing: input[0..<n]))
            parsed += UInt64(n)
        }
        try parser.feed(UnsafeRawBufferPointer(start: nil, count: 0), last: true)
        return parsed
    case 8:
        return try inflate(refill: refill, input: input, into: parser)
    default:
        throw FloorError(status: 2, message: "\(entry.path): unsupported compression method \(entry.method)")
    }
}

/// The inflate loop: raw deflate (no zlib header, as in zip), 256 KiB out per `inflate` call.
func inflate(refill: () throws -> Int, input: UnsafeMutableRawBufferPointer, into parser: PushParser) throws -> UInt64 {
    let output = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
    defer { output.deallocate() }
    var stream = z_stream()
    guard healthtrail_inflateInit2(&stream, -MAX_WBITS) == Z_OK else {
        throw FloorError(status: 1, message: "zlib could not start")
    }
    defer { inflateEnd(&stream) }
    var produced: UInt64 = 0
    while true {
        if stream.avail_in == 0 {
            let n = try refill()
            if n == 0 { throw FloorError(status: 1, message: "compressed data ends early") }
            stream.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.avail_in = uInt(n)
        }
        stream.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.avail_out = uInt(chunkSize)
        let status = CZlib.inflate(&stream, Z_NO_FLUSH)
        guard status == Z_OK || status == Z_STREAM_END || (status == Z_BUF_ERROR && stream.avail_in == 0) else {
            throw FloorError(status: 1, message: "corrupt compressed data (zlib status \(status))")
        }
        let count = chunkSize - Int(stream.avail_out)
        produced += UInt64(count)
        let done = status == Z_STREAM_END
        try parser.feed(UnsafeRawBufferPointer(rebasing: output[0..<count]), last: done)
        if done { return produced }
    }
}

/// Locates export.xml, parses it, and prints the one-line summary.
func run(archivePath: String, elidingDeviceValues: Bool) throws {
    let started = monotonicSeconds()
    let archive: ZipArchive
    do { archive = try ZipArchive(path: archivePath) } catch {
        throw FloorError(status: 2, message: "\(error)")
    }
    guard let entry = mainXMLEntry(of: archive) else {
        throw FloorError(status: 2, message: "\(archivePath): no export.xml in the archive")
    }
    if entry.flags & 1 != 0 { throw FloorError(status: 2, message: "\(entry.path) is encrypted") }
    let start: UInt64
    do { start = try archive.dataOffset(of: entry) } catch {
        throw FloorError(status: 2, message: "\(error)")
    }
    let parser = try PushParser(elidingDeviceValues: elidingDeviceValues)
    let bytes = try parse(entry, at: start, of: archive.file, into: parser)
    let elapsed = monotonicSeconds() - started
    let rate = Double(bytes) / 1e6 / elapsed
    print("floor: inflated \(bytes) bytes of \(entry.path) in \(format(elapsed, 3)) s (\(format(rate, 1)) MB/s)")
}

/// `value` with `digits` decimals, without Foundation (keeps the floor's startup minimal).
func format(_ value: Double, _ digits: Int) -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    _ = withVaList([Int32(digits), value]) { vsnprintf(&buffer, buffer.count, "%.*f", $0) }
    return String(cString: buffer)
}

extension String {
    /// The string without trailing `character`s (libxml2 messages end in a newline).
    func trimmingSuffix(_ character: Character) -> String {
        var result = self
        while result.last == character { result.removeLast() }
        return result
    }
}

/// Writes `text` on standard error, unbuffered as `stderr` is.
func writeToStandardError(_ text: String) {
    _ = writeFully(STDERR_FILENO, Array(text.utf8))
}

var arguments = Array(CommandLine.arguments.dropFirst())
let elide = arguments.first == "--elide-device-values"
if elide { arguments.removeFirst() }
guard arguments.count == 1, !arguments[0].hasPrefix("-") else {
    writeToStandardError("usage: healthtrail-floor [--elide-device-values] ARCHIVE.zip\n")
    exit(2)
}
do {
    try run(archivePath: arguments[0], elidingDeviceValues: elide)
} catch let error as FloorError {
    writeToStandardError("healthtrail-floor: \(error.message)\n")
    exit(error.status)
} catch {
    writeToStandardError("healthtrail-floor: \(error)\n")
    exit(2)
}
