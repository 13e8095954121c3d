import CLibXML2
import HealthTrailArchive
import HealthTrailBase

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
/// The first error libxml2 reports is kept with its line so it can be given in one line, as a
/// fixed phrase for its code: libxml2's own messages quote the document (entity and tag names,
/// bytes), which is health data.
///
/// Invariant: `context` is nil or a libxml2 parser context this object owns (freed in deinit,
/// or by `parseWhole` when it replaces it) and uses from one thread; its `_private` is this
/// object, unretained, so it never outlives it. Whoever makes the parser keeps `userData` (the
/// callbacks' `ctx`) alive for as long as it feeds the parser.
@safe
@usableFromInline package final class SAXPushParser {
    package let fileName: String
    package let entryName: String?
    private var context: xmlParserCtxtPtr?
    private var firstError: (line: Int, message: String)?
    /// The callbacks and their `ctx`, kept for `parseWhole`'s own context.
    private let handler: xmlSAXHandler
    private let userData: UnsafeMutableRawPointer
    /// The callbacks' `ctx` of a parser made with `init(events:…)`, kept alive here.
    @usableFromInline var eventContext: SAXEventContext?
    /// What `captureEvents(into:)` copies the tags into, kept alive here.
    var capturing: SAXEventCapture?
    /// Set by `parseWhole`: the document has been parsed, `feed` and `finish` have nothing to do.
    private var parsedWhole = false
    private static let options =
        Int32(XML_PARSE_NONET.rawValue) | Int32(XML_PARSE_NOENT.rawValue)
        | Int32(XML_PARSE_NOWARNING.rawValue) | Int32(XML_PARSE_NOERROR.rawValue)

    /// - Parameters:
    ///   - handler: the SAX2 callbacks (its `initialized` is set to `XML_SAX2_MAGIC` and `serror` to ours).
    ///   - userData: passed to every callback as `ctx`.
    @usableFromInline package init(handler: xmlSAXHandler, userData: UnsafeMutableRawPointer, fileName: String, entryName: String?) {
        self.fileName = fileName
        self.entryName = entryName
        var sax = unsafe handler
        unsafe sax.initialized = UInt32(XML_SAX2_MAGIC)
        unsafe sax.serror = { userData, error in
            guard let error = unsafe error else { return }
            // SAFETY: `error` is valid during the call, and its `ctxt` is nil or the context this
            // handler was installed in, whose `_private` is nil until set to the SAXPushParser
            // that owns it and keeps it alive (see the invariant). `userData` is not used: libxml2
            // passes the context's `userData` (the callbacks' `ctx`) there, or a validation one's.
            _ = unsafe userData
            let ctxt = unsafe error.pointee.ctxt?.assumingMemoryBound(to: xmlParserCtxt.self)
            guard let owner = unsafe ctxt?.pointee._private else { return }
            let parser = unsafe Unmanaged<SAXPushParser>.fromOpaque(owner).takeUnretainedValue()
            if parser.firstError == nil, unsafe error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue {
                parser.firstError = unsafe (Int(error.pointee.line), SAXPushParser.phrase(for: error.pointee))
            }
        }
        unsafe self.handler = sax
        unsafe self.userData = userData
        SAXPushParser.refuseExternalEntities
        unsafe context = xmlCreatePushParserCtxt(&sax, userData, nil, 0, fileName)
        if let context = unsafe context {
            // SAFETY: unretained: this object owns the context and frees it in deinit.
            unsafe context.pointee._private = Unmanaged.passUnretained(self).toOpaque()
            unsafe xmlCtxtUseOptions(context, Self.options)
        }
    }

    /// Runs once per process, before any parser: initialises libxml2 (required before parsers
    /// run on several threads: route files are decoded on two) and installs an external entity
    /// loader that loads nothing, so a hostile `<!ENTITY x SYSTEM "file:///etc/passwd">` fails
    /// instead of reading the file.
    package static let refuseExternalEntities: Void = {
        xmlInitParser()
        unsafe xmlSetExternalEntityLoader { _, _, _ in nil }
    }()

    deinit {
        // SAFETY: the context is this object's alone; freed once, here, with any document in it.
        if let context = unsafe context {
            if let doc = unsafe context.pointee.myDoc { unsafe xmlFreeDoc(doc) }
            unsafe xmlFreeParserCtxt(context)
        }
    }

    /// The line libxml2 is at (1-based), for messages about the element being decoded.
    @inline(__always) package var line: Int {
        // SAFETY: the context lives as long as this object; `input` is nil or its current input.
        guard let context = unsafe context, let input = unsafe context.pointee.input else { return 0 }
        return unsafe Int(input.pointee.line)
    }

    /// Parses one chunk; throws the first XML error with its line.
    package func feed(_ chunk: ByteSpan) throws {
        guard let context = unsafe context, !parsedWhole else {
            throw InputError(file: fileName, entry: entryName, "libxml2 could not start a parser")
        }
        guard chunk.count > 0 else { return }
        // SAFETY: libxml2 reads the chunk's bytes during the call only (it copies what it keeps).
        let status = unsafe xmlParseChunk(context, UnsafeRawPointer(chunk.baseAddress).assumingMemoryBound(to: CChar.self), Int32(chunk.count), 0)
        if status != 0 || firstError != nil { throw error(status) }
    }

    package func feed(_ bytes: [UInt8]) throws {
        try unsafe bytes.withUnsafeBytes { try unsafe feed(ByteSpan($0)) }
    }

    /// Tells libxml2 the document is complete; throws if it is not (e.g. truncated).
    package func finish() throws {
        guard let context = unsafe context, !parsedWhole else { return }
        let status = unsafe xmlParseChunk(context, nil, 0, 1)
        if status != 0 || firstError != nil { throw error(status) }
    }

    /// Parses a whole document held in memory, instead of `feed` and `finish` (call it first,
    /// and only once): with the same callbacks, options and errors, but in libxml2's pull mode,
    /// which reads a route file faster than push mode: push mode has to look ahead for the end
    /// of every text node before it parses it, and a route file is mostly short text nodes.
    package func parseWhole(_ document: ByteSpan) throws {
        guard !parsedWhole, document.count > 0 else {
            throw InputError(file: fileName, entry: entryName, "libxml2 could not start a parser")
        }
        // libxml2 reads the document through a callback, 4 KB at a time into its own buffer,
        // which it empties as it goes: a memory context would first copy the whole document.
        // The bytes not read yet; the callback's context, used only within this call.
        // SAFETY: the caller keeps `document`'s bytes valid for the whole call, and the buffer
        // taken from it is used only inside it. `unread` is freed when this returns, while the
        // context keeps its address: libxml2 reads through it only inside `xmlParseDocument`
        // (feed and finish refuse after this; freeing the context calls no read or close).
        let unread = UnsafeMutablePointer<UnsafeRawBufferPointer>.allocate(capacity: 1)
        unsafe document.withUnsafeBytes { unsafe unread.initialize(to: $0) }
        defer { unsafe unread.deallocate() }
        var sax = unsafe handler
        let pull = unsafe xmlCreateIOParserCtxt(
            &sax, userData,
            { source, buffer, length in
                guard let source = unsafe source, let buffer = unsafe buffer, length > 0 else { return 0 }
                // SAFETY: `source` is `unread`, alive during the parse; libxml2 gives room for
                // `length` bytes at `buffer`, and count ≤ both that and the bytes not read yet.
                let unread = unsafe source.assumingMemoryBound(to: UnsafeRawBufferPointer.self)
                let count = unsafe min(Int(length), unread.pointee.count)
                if count > 0 {
                    unsafe UnsafeMutableRawPointer(buffer).copyMemory(from: unread.pointee.baseAddress!, byteCount: count)
                    unsafe unread.pointee = UnsafeRawBufferPointer(rebasing: unread.pointee[count...])
                }
                return Int32(count)
            }, nil, unsafe unread, XML_CHAR_ENCODING_NONE)
        guard let pull = unsafe pull else { throw InputError(file: fileName, entry: entryName, "libxml2 could not start a parser") }
        if let context = unsafe context { unsafe xmlFreeParserCtxt(context) }
        unsafe context = pull
        parsedWhole = true
        unsafe pull.pointee._private = Unmanaged.passUnretained(self).toOpaque()
        unsafe xmlCtxtUseOptions(pull, Self.options)
        let status = unsafe xmlParseDocument(pull)
        // Pull mode takes a NUL byte for the end of the input (found by fuzz-gpx): inside the
        // root element it reports "Premature end of data", after it nothing at all, where push
        // mode refuses the byte. Both are reported as push mode does, from what libxml2 left
        // unparsed in its buffer (its input and both pointers exist after a parse; should one
        // not, nothing is taken as left) and what the callback has not handed it yet.
        // SAFETY: `cur..<end` lies in the buffer of the context's input, alive until the context
        // is freed (not before this returns); `rest` is read only here.
        let rest: UnsafeBufferPointer<xmlChar> = {
            guard let input = unsafe pull.pointee.input, let cur = unsafe input.pointee.cur, let end = unsafe input.pointee.end, unsafe cur < end
            else {
                return unsafe UnsafeBufferPointer(start: nil, count: 0)
            }
            return unsafe UnsafeBufferPointer(start: cur, count: end - cur)
        }()
        let atNUL = unsafe rest.first == 0
        if unsafe status != 0 || firstError != nil || pull.pointee.wellFormed == 0 {
            if atNUL, let first = firstError, first.message.hasPrefix(Self.prematureEnd) {
                firstError = (line, Self.disallowedCharacter)
            }
            throw error(status)
        }
        // SAFETY: `unread` is freed only when this returns.
        if unsafe !rest.isEmpty || unread.pointee.count > 0 {
            throw InputError(file: fileName, entry: entryName, line: line, "malformed XML: \(Self.extraContent)")
        }
    }

    /// Deepest element nesting a decoder accepts: libxml2's own limit without XML_PARSE_HUGE,
    /// which its push parser leaves unchecked. Exports nest 4 deep, route files 6. A computed
    /// constant, inlinable: the decoders compare with it once per element, and a stored static
    /// is read from another module through its lazy initialiser's accessor.
    @inlinable package static var maxDepth: Int { 256 }

    /// The error for a document nested deeper than `maxDepth`, at the current line.
    package func depthError(line: Int? = nil) -> InputError {
        InputError(
            file: fileName, entry: entryName, line: line ?? self.line,
            "malformed XML: elements nested more than \(Self.maxDepth) deep")
    }

    /// Stops the parser from inside a callback (e.g. a fatal fault under `--strict`).
    package func stop() {
        if let context = unsafe context { unsafe xmlStopParser(context) }
    }

    // Phrases that push and pull mode must word alike (`parseWhole` makes some of its own).
    package static let prematureEnd = "premature end of data"
    package static let disallowedCharacter = "character not allowed in XML"
    package static let extraContent = "extra content at the end of the document"

    /// A fixed phrase for libxml2's error, never its message: the message quotes names and bytes
    /// of the document (`Entity 'Bob_SECRET' not defined`, `tag mismatch: SECRETTAG`, `Bytes:
    /// 0xE9 …`), which are health data and must not reach a log. Numbers libxml2 gives apart
    /// (the line an unclosed element opened on) are kept; they are places, not data.
    package static func phrase(for error: xmlError) -> String {
        let openedOn = unsafe error.int1 > 0 ? unsafe " (element opened on line \(error.int1))" : ""
        if unsafe error.domain == Int32(XML_FROM_NAMESPACE.rawValue) { return "namespace error" }
        if unsafe error.domain == Int32(XML_FROM_IO.rawValue) { return "input error" }
        switch unsafe xmlParserErrors(rawValue: UInt32(bitPattern: error.code)) {
        case XML_ERR_UNDECLARED_ENTITY, XML_WAR_UNDECLARED_ENTITY: return "undefined entity"
        case XML_ERR_ENTITY_LOOP: return "entity reference loop"
        case XML_ERR_ENTITYREF_NO_NAME, XML_ERR_ENTITYREF_SEMICOL_MISSING, XML_ERR_ENTITYREF_AT_EOF,
            XML_ERR_ENTITYREF_IN_PROLOG, XML_ERR_ENTITYREF_IN_EPILOG, XML_ERR_ENTITYREF_IN_DTD,
            XML_ERR_PEREF_NO_NAME, XML_ERR_PEREF_SEMICOL_MISSING, XML_ERR_UNPARSED_ENTITY,
            XML_ERR_ENTITY_IS_EXTERNAL, XML_ERR_ENTITY_IS_PARAMETER, XML_ERR_ENTITY_NOT_STARTED,
            XML_ERR_ENTITY_NOT_FINISHED, XML_ERR_ENTITY_BOUNDARY, XML_ERR_ENTITY_PROCESSING,
            XML_ERR_ENTITY_CHAR_ERROR, XML_ERR_ENTITY_PE_INTERNAL:
            return "malformed entity reference"
        case XML_ERR_INVALID_HEX_CHARREF, XML_ERR_INVALID_DEC_CHARREF, XML_ERR_INVALID_CHARREF,
            XML_ERR_CHARREF_AT_EOF, XML_ERR_CHARREF_IN_PROLOG, XML_ERR_CHARREF_IN_EPILOG, XML_ERR_CHARREF_IN_DTD:
            return "malformed character reference"
        case XML_ERR_TAG_NAME_MISMATCH: return "mismatched end tag" + openedOn
        case XML_ERR_TAG_NOT_FINISHED: return prematureEnd + openedOn
        case XML_ERR_DOCUMENT_END, XML_ERR_EXTRA_CONTENT: return extraContent
        case XML_ERR_NOT_WELL_BALANCED: return "unbalanced elements"
        case XML_ERR_DOCUMENT_EMPTY, XML_ERR_DOCUMENT_START: return "no document"
        case XML_ERR_INVALID_CHAR:
            // One code for both: bytes that are not UTF-8, and a character XML forbids.
            let message = unsafe error.message.map { unsafe String(cString: $0) } ?? ""
            return message.hasPrefix("Input is not proper UTF-8") ? "invalid UTF-8" : disallowedCharacter
        case XML_ERR_INVALID_ENCODING: return "invalid UTF-8"
        case XML_ERR_UNKNOWN_ENCODING, XML_ERR_UNSUPPORTED_ENCODING, XML_ERR_ENCODING_NAME: return "unsupported encoding"
        case XML_ERR_ATTRIBUTE_REDEFINED: return "attribute given twice"
        case XML_ERR_LT_IN_ATTRIBUTE, XML_ERR_ATTRIBUTE_NOT_STARTED, XML_ERR_ATTRIBUTE_NOT_FINISHED,
            XML_ERR_ATTRIBUTE_WITHOUT_VALUE:
            return unsafe limitPhrase(error.message.map { unsafe String(cString: $0) } ?? "") ?? "malformed attribute"
        case XML_ERR_NAME_TOO_LONG: return "name too long"
        case XML_ERR_NAME_REQUIRED, XML_ERR_GT_REQUIRED, XML_ERR_LTSLASH_REQUIRED, XML_ERR_EQUAL_REQUIRED,
            XML_ERR_SPACE_REQUIRED, XML_ERR_LT_REQUIRED:
            return "malformed tag"
        case XML_ERR_COMMENT_NOT_FINISHED, XML_ERR_HYPHEN_IN_COMMENT: return "malformed comment"
        case XML_ERR_CDATA_NOT_FINISHED, XML_ERR_MISPLACED_CDATA_END: return "malformed CDATA section"
        case XML_ERR_PI_NOT_STARTED, XML_ERR_PI_NOT_FINISHED, XML_ERR_RESERVED_XML_NAME: return "malformed processing instruction"
        case XML_ERR_XMLDECL_NOT_STARTED, XML_ERR_XMLDECL_NOT_FINISHED, XML_ERR_VERSION_MISSING,
            XML_ERR_UNKNOWN_VERSION, XML_ERR_STANDALONE_VALUE:
            return "malformed XML declaration"
        case XML_ERR_DOCTYPE_NOT_FINISHED, XML_ERR_EXT_SUBSET_NOT_FINISHED: return "malformed DOCTYPE"
        case XML_ERR_NO_MEMORY: return "out of memory"
        default:
            let message = unsafe error.message.map { unsafe String(cString: $0) } ?? ""
            return unsafe limitPhrase(message) ?? "libxml2 error \(error.code)"
        }
    }

    /// libxml2's own size limits, which no option raises (XML_PARSE_HUGE stays off: no real
    /// export comes near them, and they bound what one element can cost), said as what was
    /// too large. libxml2 reports most of them as an "internal error" (code 1) whose fixed
    /// message names the limit; the message is matched, never repeated, as it may go on to
    /// quote the document.
    static func limitPhrase(_ message: String) -> String? {
        let limit = "longer than 10,000,000 bytes, libxml2's limit, which no option raises"
        if message.contains("Huge input lookup") { return "a tag (an element's name and all its attributes) \(limit)" }
        if message.contains("AttValue length too long") { return "an attribute value \(limit)" }
        if message.contains("huge text node") || message.contains("too big found") || message.contains("CData section too big") {
            return "a text, comment or CDATA section \(limit)"
        }
        if message.contains("Excessive depth") { return "elements nested deeper than libxml2's limit" }
        return nil
    }

    private func error(_ status: Int32) -> InputError {
        let (line, message) = firstError ?? (self.line, "XML error \(status)")
        return InputError(file: fileName, entry: entryName, line: line, "malformed XML: \(message)")
    }
}
