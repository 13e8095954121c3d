import FuzzSupport

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailCommit
@testable import HealthTrailDecode
@testable import HealthTrailKit
@testable import HealthTrailXML

/// One staging folder for the whole fuzzing process: each input's outputs are created afresh
/// in it (truncating the previous input's files), and the folder goes when the process ends.
let staging: OutputStaging = {
    guard let staging = try? OutputStaging(outputDirectory: ScratchFolder.path + "/out") else {
        fatalError("cannot create the scratch staging folder")
    }
    return staging
}()

/// export.xml on arbitrary bytes the way `ExportRun.stream` reads it: the prolog filter, then
/// libxml2 SAX into an `ExportDecoder` that writes CSV files (records, heart rate, HRV, daily
/// figures), which are then closed. The input chooses its chunk size; an even size decodes on
/// the decoder's own thread as `healthtrail run` does (`SAXEventCapture` and its replay), an
/// odd one in libxml2's callbacks as `inspect` does. The prefetching thread of
/// `ExportRun.stream` is left out: it only moves the same chunks between threads.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExportXML(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let input = ChunkedInput(data, count)
    guard let outputs = try? ExportOutputs(staging: staging) else { fatalError("cannot create the scratch outputs") }
    let faults = FaultLog(file: "fuzz-input", strict: false)
    let decoder = ExportDecoder(
        sink: RunRecordSink(outputs: outputs, priority: .default), faults: faults, fileName: "fuzz-input",
        entryName: "apple_health_export/export.xml")
    if input.chunkSize % 2 == 0 { decoder.decodeOnOwnThread() }
    var filter = PrologFilter()
    do {
        try input.forEachChunk { chunk in
            if filter.done { return try decoder.feed(ByteSpan(chunk)) }
            if case .ready(let prolog, let resumeAt) = filter.consume(ByteSpan(chunk)) {
                try decoder.feed(prolog)
                try decoder.feed(ByteSpan(chunk), from: resumeAt)
            }
        }
        try decoder.finish()
    } catch {}
    decoder.waitForDecoding()   // the decoding thread must be done before the files close
    _ = try? outputs.closeAll()
    return 0
}
