import FuzzSupport

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailXML

/// Differential: export.xml as libxml2 sees it with and without `DeviceValueElision` in front.
/// The input (its first byte choosing the chunk size, so chunk boundaries land everywhere) goes
/// through the prolog filter once as it is and once rewritten chunk by chunk, as the inflating
/// thread of `ExportRun.stream` rewrites it. libxml2 must then report the same elements,
/// attributes (device values masked), text, lines and error for both: the elision may empty a
/// value but never hide an error, move a line or touch anything else.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDeviceElision(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let input = ChunkedInput(data, count)
    var original: [[UInt8]] = []
    var rewritten: [[UInt8]] = []
    let elision = DeviceValueElision()
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: DeviceValueElision.outputCapacity(forInput: 256), alignment: 16)
    defer { buffer.deallocate() }
    input.forEachChunk { chunk in
        original.append(Array(chunk))
        rewritten.append(Array(UnsafeRawBufferPointer(start: buffer, count: elision.rewrite(chunk, into: buffer))))
    }
    rewritten.append(Array(UnsafeRawBufferPointer(start: buffer, count: elision.finish(into: buffer))))
    let a = SAXEventTrace(chunks: prologFiltered(original))
    let b = SAXEventTrace(chunks: prologFiltered(rewritten))
    if a.lines != b.lines || a.error != b.error {
        fatalError(
            "the elision changed what libxml2 reports: \(a.error ?? "no error") / \(b.error ?? "no error"), "
                + "\(a.lines.count) / \(b.lines.count) events, first difference at \(zip(a.lines, b.lines).prefix { $0 == $1 }.count)")
    }
    return 0
}

/// The chunks as `ExportRun.stream` hands them to libxml2: the prolog filter first.
func prologFiltered(_ chunks: [[UInt8]]) -> [[UInt8]] {
    var filter = PrologFilter()
    var out: [[UInt8]] = []
    for chunk in chunks {
        if filter.done { out.append(chunk); continue }
        ByteSpan.withBytes(ofEach: chunk) { bytes in
            if case .ready(let prolog, let resumeAt) = filter.consume(bytes) {
                out.append(prolog)
                out.append(bytes.dropFirst(resumeAt).bytes)
            }
        }
    }
    return out
}
