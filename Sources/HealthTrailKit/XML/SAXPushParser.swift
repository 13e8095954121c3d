import CLibXML2

/// A libxml2 SAX2 push parser fed with byte chunks as they are inflated.
///
/// No DOM is built and nothing is fetched: the SAX handlers record no declaration, so no
/// entity is ever defined (a reference to one is an "Entity 'x' not defined" error, which also
/// stops entity-expansion bombs), the external entity loader refuses every request anyway (no
/// file reads, no network), and the DTD is neither loaded nor validated. libxml2's size limits
/// stay on (XML_PARSE_HUGE is never set: text and attribute values stop at 10 MB). The five
/// predefined entities and character references are substituted (XML_PARSE_NOENT), because
/// without that libxml2 hands `&amp;` in attributes back as `&#38;`. libxml2's push parser does
/// not apply its nesting limit, so the decoders apply `maxDepth` themselves.
/// The first error libxml2 reports is kept with its line so it can be given in one line.
public final class SAXPushParser {
    public let fileName: String
    public let entryName: String?
    private var context: xmlParserCtxtPtr?
    private var firstError: (line: Int, message: String)?
    /// The callbacks and their `ctx`, kept for `parseWhole`'s own context.
    private let handler: xmlSAXHandler
    private let userData: UnsafeMutableRawPointer
    /// Set by `parseWhole`: the document has been parsed, `feed` and `finish` have nothing to do.
    private var parsedWhole = false
    private static let options = Int32(XML_PARSE_NONET.rawValue) | Int32(XML_PARSE_NOENT.rawValue)
        | Int32(XML_PARSE_NOWARNING.rawValue) | Int32(XML_PARSE_NOERROR.rawValue)

    /// - Parameters:
    ///   - handler: the SAX2 callbacks (its `initialized` is set to `XML_SAX2_MAGIC` and `serror` to ours).
    ///   - userData: passed to every callback as `ctx`.
    public init(handler: xmlSAXHandler, userData: UnsafeMutableRawPointer, fileName: String, entryName: String?) {
        self.fileName = fileName
        self.entryName = entryName
        var sax = handler
        sax.initialized = UInt32(XML_SAX2_MAGIC)
        sax.serror = { userData, error in
            guard let error else { return }
            // userData here is the parser's `_private`, which points at this object.
            _ = userData
            let ctxt = error.pointee.ctxt?.assumingMemoryBound(to: xmlParserCtxt.self)
            guard let owner = ctxt?.pointee._private else { return }
            let parser = Unmanaged<SAXPushParser>.fromOpaque(owner).takeUnretainedValue()
            if parser.firstError == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue {
                let text = error.pointee.message.map { String(cString: $0) } ?? "XML error"
                parser.firstError = (Int(error.pointee.line), SAXPushParser.oneLine(text))
            }
        }
        self.handler = sax
        self.userData = userData
        SAXPushParser.refuseExternalEntities
        context = xmlCreatePushParserCtxt(&sax, userData, nil, 0, fileName)
        if let context {
            context.pointee._private = Unmanaged.passUnretained(self).toOpaque()
            xmlCtxtUseOptions(context, Self.options)
        }
    }

    /// Runs once per process, before any parser: initialises libxml2 (required before parsers
    /// run on several threads: route files are decoded on two) and installs an external entity
    /// loader that loads nothing, so a hostile `<!ENTITY x SYSTEM "file:///etc/passwd">` fails
    /// instead of reading the file.
    static let refuseExternalEntities: Void = {
        xmlInitParser()
        xmlSetExternalEntityLoader { _, _, _ in nil }
    }()

    deinit {
        if let context {
            if let doc = context.pointee.myDoc { xmlFreeDoc(doc) }
            xmlFreeParserCtxt(context)
        }
    }

    /// The line libxml2 is at (1-based), for messages about the element being decoded.
    @inline(__always) public var line: Int {
        guard let context, let input = context.pointee.input else { return 0 }
        return Int(input.pointee.line)
    }

    /// Parses one chunk; throws the first XML error with its line.
    public func feed(_ chunk: UnsafeRawBufferPointer) throws {
        guard let context, !parsedWhole else { throw InputError(file: fileName, entry: entryName, "libxml2 could not start a parser") }
        guard chunk.count > 0 else { return }
        let status = xmlParseChunk(context, chunk.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(chunk.count), 0)
        if status != 0 || firstError != nil { throw error(status) }
    }

    public func feed(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try feed($0) }
    }

    /// Tells libxml2 the document is complete; throws if it is not (e.g. truncated).
    public func finish() throws {
        guard let context, !parsedWhole else { return }
        let status = xmlParseChunk(context, nil, 0, 1)
        if status != 0 || firstError != nil { throw error(status) }
    }

    /// Parses a whole document held in memory, instead of `feed` and `finish` (call it first,
    /// and only once): with the same callbacks, options and errors, but in libxml2's pull mode,
    /// which reads a route file in about 80 % of the time push mode takes (0.69 s against
    /// 0.83 s for the benchmark's 212 MB of GPX). Push mode has to look ahead for the end of
    /// every text node before it parses it; a route file is mostly short text nodes.
    public func parseWhole(_ document: UnsafeRawBufferPointer) throws {
        guard !parsedWhole, document.count > 0 else {
            throw InputError(file: fileName, entry: entryName, "libxml2 could not start a parser")
        }
        // libxml2 reads the document through a callback, 4 KB at a time into its own buffer,
        // which it empties as it goes: a memory context would first copy the whole document.
        // The bytes not read yet; the callback's context, used only within this call.
        let unread = UnsafeMutablePointer<UnsafeRawBufferPointer>.allocate(capacity: 1)
        unread.initialize(to: document)
        defer { unread.deallocate() }
        var sax = handler
        let pull = xmlCreateIOParserCtxt(&sax, userData, { source, buffer, length in
            guard let source, let buffer, length > 0 else { return 0 }
            let unread = source.assumingMemoryBound(to: UnsafeRawBufferPointer.self)
            let count = min(Int(length), unread.pointee.count)
            if count > 0 {
                UnsafeMutableRawPointer(buffer).copyMemory(from: unread.pointee.baseAddress!, byteCount: count)
                unread.pointee = UnsafeRawBufferPointer(rebasing: unread.pointee[count...])
            }
            return Int32(count)
        }, nil, unread, XML_CHAR_ENCODING_NONE)
        guard let pull else { throw InputError(file: fileName, entry: entryName, "libxml2 could not start a parser") }
        if let context { xmlFreeParserCtxt(context) }
        context = pull
        parsedWhole = true
        pull.pointee._private = Unmanaged.passUnretained(self).toOpaque()
        xmlCtxtUseOptions(pull, Self.options)
        let status = xmlParseDocument(pull)
        // Pull mode takes a NUL byte for the end of the input (found by fuzz-gpx): inside the
        // root element it reports "Premature end of data", after it nothing at all, where push
        // mode refuses the byte. Both are reported as push mode does, from what libxml2 left
        // unparsed in its buffer (its input and both pointers exist after a parse; should one
        // not, nothing is taken as left) and what the callback has not handed it yet.
        let rest: UnsafeBufferPointer<xmlChar> = {
            guard let input = pull.pointee.input, let cur = input.pointee.cur, let end = input.pointee.end, cur < end else {
                return UnsafeBufferPointer(start: nil, count: 0)
            }
            return UnsafeBufferPointer(start: cur, count: end - cur)
        }()
        let atNUL = rest.first == 0
        if status != 0 || firstError != nil || pull.pointee.wellFormed == 0 {
            if atNUL, let first = firstError, first.message.hasPrefix("Premature end of data") {
                firstError = (line, "Char 0x0 out of allowed range")
            }
            throw error(status)
        }
        if !rest.isEmpty || unread.pointee.count > 0 {
            throw InputError(file: fileName, entry: entryName, line: line, "malformed XML: Extra content at the end of the document")
        }
    }

    /// Deepest element nesting a decoder accepts: libxml2's own limit without XML_PARSE_HUGE,
    /// which its push parser leaves unchecked. Exports nest 4 deep, route files 6.
    public static let maxDepth = 256

    /// The error for a document nested deeper than `maxDepth`, at the current line.
    func depthError(line: Int? = nil) -> InputError {
        InputError(file: fileName, entry: entryName, line: line ?? self.line,
                   "malformed XML: elements nested more than \(Self.maxDepth) deep")
    }

    /// Stops the parser from inside a callback (e.g. a fatal fault under `--strict`).
    public func stop() {
        if let context { xmlStopParser(context) }
    }

    /// libxml2's message as one short line without document bytes. Some messages go on to a
    /// second line quoting the input (`Input is not proper UTF-8 … \nBytes: 0xE9 0x22 …`): those
    /// bytes are health data, so only the first line is kept. Names quoted by a message are cut
    /// so that a hostile 50,000-byte element name cannot make a 50 KB error line.
    static func oneLine(_ text: String, limit: Int = 160) -> String {
        let first = text.split(whereSeparator: { $0.isNewline }).first.map(String.init) ?? ""
        var line = String(first.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
        line = String(line.reversed().drop { $0.isWhitespace || $0 == "," }.reversed())
        if line.count > limit { line = String(line.prefix(limit)) + "…" }
        return line.isEmpty ? "XML error" : line
    }

    private func error(_ status: Int32) -> InputError {
        let (line, message) = firstError ?? (self.line, "XML error \(status)")
        return InputError(file: fileName, entry: entryName, line: line, "malformed XML: \(message)")
    }
}

