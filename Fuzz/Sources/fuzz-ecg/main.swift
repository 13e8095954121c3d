import FuzzSupport

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailDecode

/// What one read of an ECG file gives: the recording, or the problem's line and kind, and the
/// samples handed out before either.
struct Outcome: Equatable {
    var recording: ECGRecording?
    var malformed: ECGMalformed?
    var samples: [[UInt8]] = []
}

/// Reads `chunks` through one `ECGDecoder`, as `ECGStage` reads an entry.
func read(_ chunks: [UnsafeRawBufferPointer]) -> Outcome {
    let decoder = ECGDecoder()
    var outcome = Outcome()
    let keep = { (index: Int, text: ByteSpan) in
        precondition(index == outcome.samples.count, "samples out of order")
        precondition(NumberText.double(text)?.isFinite == true, "a sample that is not a finite number")
        outcome.samples.append(text.bytes)
    }
    do {
        for chunk in chunks { try decoder.feed(ByteSpan(chunk)) { keep($0, $1) } }
        outcome.recording = try decoder.finish(entry: "ecg.csv") { keep($0, $1) }
    } catch let malformed as ECGMalformed {
        outcome.malformed = malformed
    } catch {
        preconditionFailure("ECGDecoder threw something other than ECGMalformed")
    }
    return outcome
}

/// The ECG file reader on arbitrary bytes, fed in chunks of the first byte's size and whole:
/// both ways give the same recording or the same problem at the same line, and the same
/// samples; a recording read has samples, a rate in range and a line no longer than allowed.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzECG(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let input = ChunkedInput(data, count)
    var chunks: [UnsafeRawBufferPointer] = []
    input.forEachChunk { chunks.append($0) }
    let chunked = read(chunks)
    let whole = read([input.body])
    precondition(chunked == whole, "chunk boundaries changed what was read")
    if let recording = whole.recording {
        precondition(recording.samples > 0 && recording.samples == whole.samples.count, "sample count")
        precondition((1...100_000).contains(recording.sampleRateHz), "sample rate out of range")
        precondition(whole.samples.allSatisfy { $0.count <= ECGDecoder.maxLineBytes }, "a line over the limit")
    } else {
        precondition(whole.malformed != nil, "neither a recording nor a problem")
        precondition(whole.malformed!.line >= 1, "a problem on no line")
    }
    return 0
}
