import HealthTrailArchive
import HealthTrailBase

/// A decoder driven by a `SAXPushParser`, whose callbacks may raise a fatal error (a write
/// failure, a fault under `--strict`) that they cannot throw through libxml2.
package protocol SAXDocumentDecoder: AnyObject {
    var parser: SAXPushParser! { get }
    /// The error a callback raised; it wins over the parser's own "stopped" error.
    var fatal: InputError? { get set }
    /// Where skipped records are counted.
    var faults: FaultLog { get }
    /// The archive entry being decoded, named in faults.
    var entryName: String { get }
    /// The line of the element being decoded.
    var line: Int { get }
    /// Stops the parse after a fatal error (at once, or as soon as the parsing thread sees it).
    func stopParsing()
}

extension SAXDocumentDecoder {
    /// Counts a skipped record at the decoder's `line` (the parser's, or the captured one on a
    /// decoding thread); under `--strict` it becomes the fatal error
    /// and the parse stops.
    package func fault(_ kind: String, _ message: String) {
        if let error = faults.record(entry: entryName, line: line, kind: kind, message) {
            if fatal == nil { fatal = error }
            stopParsing()
        }
    }

    /// Parses one chunk of the document.
    package func feed(_ chunk: ByteSpan) throws { try parseDirectly(chunk) }

    /// Ends the document; throws if it is incomplete.
    package func finish() throws { try finishDirectly() }

    /// Parses one chunk, the callbacks decoding on this thread.
    package func parseDirectly(_ chunk: ByteSpan) throws {
        do { try parser.feed(chunk) } catch { throw fatal ?? error }
        if let fatal { throw fatal }
    }

    /// Parses a whole document held in memory (instead of `feed` and `finish`).
    package func parseWhole(_ document: ByteSpan) throws {
        do { try parser.parseWhole(document) } catch { throw fatal ?? error }
        if let fatal { throw fatal }
    }

    package func finishDirectly() throws {
        do { try parser.finish() } catch { throw fatal ?? error }
        if let fatal { throw fatal }
    }
}
