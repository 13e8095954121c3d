/// A decoder driven by a `SAXPushParser`, whose callbacks may raise a fatal error (a write
/// failure, a fault under `--strict`) that they cannot throw through libxml2.
protocol SAXDocumentDecoder: AnyObject {
    var parser: SAXPushParser! { get }
    /// The error a callback raised; it wins over the parser's own "stopped" error.
    var fatal: InputError? { get }
}

extension SAXDocumentDecoder {
    /// Parses one chunk of the document.
    func feed(_ chunk: UnsafeRawBufferPointer) throws {
        do { try parser.feed(chunk) } catch { throw fatal ?? error }
        if let fatal { throw fatal }
    }

    /// Ends the document; throws if it is incomplete.
    func finish() throws {
        do { try parser.finish() } catch { throw fatal ?? error }
        if let fatal { throw fatal }
    }
}
