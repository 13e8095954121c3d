import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailXML

/// Decoding on a thread of its own: the thread feeding the decoder runs only libxml2 and
/// `SAXEventCapture`, whose blocks this thread replays through the same `start(_:)` and
/// `end()` as the direct path. Outputs, faults and errors are the same; only the threads differ.
///
/// A fatal error found while decoding (a fault under `--strict`, a file that cannot be written)
/// asks the parse to stop; the parsing side then waits for this thread and throws that error,
/// as the direct path would have. An XML error found by libxml2 is thrown only after every event
/// before it has been decoded, so a fatal error earlier in the file still wins.
extension ExportDecoder {
    /// Moves decoding to a thread of its own; call before the first `feed`.
    package func decodeOnOwnThread() {
        guard capture == nil else { return }
        let capture = SAXEventCapture(vocabulary: .export)
        self.capture = capture
        parser.captureEvents(into: capture)
        let done = DispatchSemaphore(value: 0)
        decodingDone = done
        let handOff = DecodingThreadHandOff(decoder: self)
        let thread = Thread {
            let decoder = handOff.decoder
            capture.forEachBlock { block in
                if decoder.fatal == nil { decoder.replay(block) }
            }
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Parses one chunk of export.xml.
    package func feed(_ chunk: ByteSpan) throws {
        guard let capture else { return try parseDirectly(chunk) }
        do { try parser.feed(chunk) } catch { throw waitForDecoding() ?? error }
        if capture.stopRequested, let error = waitForDecoding() { throw error }
    }

    /// Parses the bytes of `chunk` from `offset` on (after a prefix `PrologFilter` rewrote).
    package func feed(_ chunk: ByteSpan, from offset: Int) throws {
        try feed(chunk.dropFirst(offset))
    }

    package func feed(_ bytes: [UInt8]) throws {
        try ByteSpan.withBytes(ofEach: bytes) { try feed($0) }
    }

    /// Ends the document (and, on its own thread, waits until every element is decoded).
    package func finish() throws {
        guard capture != nil else { return try finishDirectly() }
        do { try parser.finish() } catch { throw waitForDecoding() ?? error }
        if let error = waitForDecoding() { throw error }
    }

    /// Hands the decoding thread the last events and waits for it to end; returns its fatal
    /// error, if any. Safe to call more than once (and on a run that failed elsewhere).
    @discardableResult
    package func waitForDecoding() -> Error? {
        guard let capture, let done = decodingDone else { return fatal }
        decodingDone = nil
        capture.finish()
        done.wait()
        return fatal
    }

    /// Decodes one block of captured events.
    private func replay(_ block: SAXEventCapture.Block) {
        SAXEventCapture.replay(
            block,
            start: { element, line, captured in
                capturedLine = line
                attributes.clear()
                captured.forEach { key, value in attributes.set(ExportAttribute(rawValue: key) ?? .other, value) }
                start(ExportElement(rawValue: element) ?? .other)
                if fatal != nil { capture!.requestStop() }
                return fatal == nil
            },
            end: {
                end()
                if fatal != nil { capture!.requestStop() }
                return fatal == nil
            })
    }
}

/// The decoder as its decoding thread receives it.
///
/// `@unchecked Sendable`: from `decodeOnOwnThread` until `waitForDecoding` has waited for the
/// thread, the decoding thread alone runs the decoder's handlers and changes its state; the
/// caller's thread uses only `parser` and `capture` (whose queue is locked) meanwhile, and reads
/// `fatal` after `done` is signalled, which orders the thread's writes before the read.
private struct DecodingThreadHandOff: @unchecked Sendable {
    let decoder: ExportDecoder
}
