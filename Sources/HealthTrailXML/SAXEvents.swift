import CLibXML2
import HealthTrailArchive
import HealthTrailBase

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The name of an element or attribute as libxml2 reports it: a NUL-terminated string in the
/// parser's dictionary, valid while the parser lives.
///
/// libxml2 interns names, so within one parser a name always arrives at the same address: after
/// the first sighting, `InternedNames` recognises it by that address instead of by its text.
@unsafe
@usableFromInline package struct SAXName {
    // SAFETY: points into the dictionary of the parser that reported it; the name is read only
    // while that parser lives (inside its callbacks, or as a key of its decoder's tables).
    @usableFromInline package let cString: UnsafePointer<UInt8>

    @inlinable @inline(__always) package init(cString: UnsafePointer<UInt8>) { unsafe self.cString = unsafe cString }

    /// The name as text (an allocation: for recognising a name the first time it is seen).
    package var string: String { unsafe String(cString: cString) }

    /// The same interned name: within one parser, the same name.
    @inlinable @inline(__always) package func isSameInterned(as other: SAXName) -> Bool { unsafe cString == other.cString }

    /// True when the name is `literal` (ASCII).
    @inlinable @inline(__always) package func equals(_ literal: StaticString) -> Bool {
        // SAFETY: both are NUL-terminated (the name by libxml2, a string literal by the compiler)
        // and alive during the call; `UInt8` and `CChar` memory may be read as each other.
        unsafe strcmp(
            UnsafeRawPointer(cString).assumingMemoryBound(to: CChar.self), UnsafeRawPointer(literal.utf8Start).assumingMemoryBound(to: CChar.self))
            == 0
    }

    /// The address, for hashing an interned name.
    @inlinable @inline(__always) package var address: UInt { unsafe UInt(bitPattern: cString) }
}

/// The attributes of one start tag, as libxml2's SAX2 callback hands them over. Valid only
/// during that callback, and nonescapable, so the compiler refuses to keep them past it.
@unsafe
@usableFromInline package struct SAXAttributes: ~Escapable {
    // SAFETY: libxml2's array of `count` attributes of five pointers each (local name, prefix,
    // namespace URI, value start, value end), the value's bytes between its start and end; it
    // lives until the callback returns, and a `SAXAttributes` is never kept past it.
    @usableFromInline let base: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    /// How many attributes the tag has.
    @usableFromInline package let count: Int

    @inlinable @inline(__always) @_lifetime(borrow base)
    init(base: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count: Int) {
        unsafe self.base = base
        unsafe self.count = count
    }

    /// Calls `body` with each attribute's name and value, in the tag's order.
    @inlinable @inline(__always)
    package func forEach(_ body: (SAXName, ByteSpan) throws -> Void) rethrows {
        guard let base = unsafe base else { return }
        for i in unsafe 0..<count {
            let attribute = unsafe base + i * 5
            guard let name = unsafe attribute[0], let start = unsafe attribute[3], let end = unsafe attribute[4] else { continue }
            try unsafe body(SAXName(cString: name), ByteSpan(start: start, count: end - start))
        }
    }
}

/// What a decoder implements to receive a parse's events from `SAXPushParser(events:…)`.
///
/// The names, attributes and text are views into libxml2's buffers, valid only during the call
/// (the text a `ByteSpan`, which the compiler keeps from leaving it); whatever outlives it is
/// copied (`OwnedBytes`, `SAXEventCapture`).
@usableFromInline package protocol SAXEventHandler: AnyObject {
    /// A start tag, with its attributes.
    func startElement(_ name: SAXName, attributes: SAXAttributes)
    /// An end tag (also reported for an empty element, `<a/>`).
    func endElement(_ name: SAXName)
    /// Text between tags, in pieces as libxml2 splits it; reported only to a parser made with
    /// `reportsText: true`.
    func characters(_ text: ByteSpan)
}

extension SAXEventHandler {
    @usableFromInline package func characters(_ text: ByteSpan) {}
}

/// The `ctx` of libxml2's callbacks for a parser made with `SAXPushParser(events:…)`: the one
/// place that turns a C callback into a call on the handler. The callbacks reach the handler
/// through this class's overridden methods, which know its type (`HandlerContext`): holding the
/// handler as `any SAXEventHandler` instead would retain and release it on every event.
@usableFromInline @unsafe class SAXEventContext {
    /// Set by `SAXPushParser.captureEvents(into:)`: the tags go to the capture instead of the
    /// handler, with no call between libxml2 and the copy (the parsing thread's critical path).
    var capture: Unretained<SAXEventCapture>?
    /// The parser, for the capture's line numbers and stop; set with `capture`. Internal, not
    /// `@usableFromInline`: a stored property other modules may reach is checked for exclusive
    /// access at run time on every read, here once per tag on the parsing thread.
    var parser: Unretained<SAXPushParser>?

    @usableFromInline init() {}
    @usableFromInline func startElement(_ name: SAXName, attributes: SAXAttributes) {}
    @usableFromInline func endElement(_ name: SAXName) {}
    @usableFromInline func characters(_ text: ByteSpan) {}

    /// The SAX2 callbacks, each forwarding to the context it is given.
    @usableFromInline static func callbacks(reportsText: Bool) -> xmlSAXHandler {
        var sax = unsafe xmlSAXHandler()
        unsafe sax.startElementNs = { ctx, name, _, _, _, _, count, _, attributes in
            guard let ctx = unsafe ctx, let name = unsafe name else { return }
            // SAFETY: `ctx` is the context `SAXPushParser(events:…)` passed, which the parser keeps.
            unsafe Unmanaged<SAXEventContext>.fromOpaque(ctx)._withUnsafeGuaranteedRef { context in
                let name = unsafe SAXName(cString: name), attributes = unsafe SAXAttributes(base: attributes, count: Int(count))
                guard let capture = unsafe context.capture, let parser = unsafe context.parser else {
                    return unsafe context.startElement(name, attributes: attributes)
                }
                unsafe parser.with { parser in
                    if unsafe !capture.with({ unsafe $0.start(name, attributes, line: parser.line) }) { parser.stop() }
                }
            }
        }
        unsafe sax.endElementNs = { ctx, name, _, _ in
            guard let ctx = unsafe ctx, let name = unsafe name else { return }
            // SAFETY: as above.
            unsafe Unmanaged<SAXEventContext>.fromOpaque(ctx)._withUnsafeGuaranteedRef { context in
                guard let capture = unsafe context.capture, let parser = unsafe context.parser else {
                    return unsafe context.endElement(SAXName(cString: name))
                }
                if unsafe !capture.with({ $0.end() }) { unsafe parser.with { $0.stop() } }
            }
        }
        if reportsText {
            unsafe sax.characters = { ctx, text, length in
                guard let ctx = unsafe ctx, let text = unsafe text else { return }
                // SAFETY: as above; libxml2 hands `length` bytes at `text`.
                unsafe Unmanaged<SAXEventContext>.fromOpaque(ctx)._withUnsafeGuaranteedRef {
                    unsafe $0.characters(ByteSpan(start: text, count: Int(length)))
                }
            }
        }
        return unsafe sax
    }
}

/// The context of one handler type. Inlinable, so that the decoders get it specialised: an
/// unspecialised generic call per event would cost more than the event.
@usableFromInline @unsafe final class HandlerContext<Handler: SAXEventHandler>: SAXEventContext {
    // SAFETY: the handler owns the parser, which owns this context, so the handler outlives
    // every callback; unretained, so that the two form no cycle and an event costs no
    // reference counting.
    @usableFromInline let handler: Unretained<Handler>

    @inlinable init(handler: Handler) {
        unsafe self.handler = Unretained(handler)
        unsafe super.init()
    }

    @inlinable override func startElement(_ name: SAXName, attributes: SAXAttributes) {
        unsafe handler.with { unsafe $0.startElement(name, attributes: attributes) }
    }

    @inlinable override func endElement(_ name: SAXName) { unsafe handler.with { unsafe $0.endElement(name) } }

    @inlinable override func characters(_ text: ByteSpan) { unsafe handler.with { $0.characters(text) } }
}

extension SAXPushParser {
    /// A parser that reports its events to `handler`, which must keep the parser (and so
    /// outlive it).
    ///
    /// - Parameters:
    ///   - reportsText: whether `handler.characters` is called; without it libxml2 skips text.
    ///   - fileName, entryName: named in errors.
    @inlinable
    package convenience init<Handler: SAXEventHandler>(events handler: Handler, reportsText: Bool, fileName: String, entryName: String?) {
        let context = unsafe HandlerContext(handler: handler)
        // SAFETY: `ctx` is `context`, unretained: `eventContext` keeps it for the parser's whole
        // life, and no callback runs before the first `feed`, after this init has returned.
        unsafe self.init(
            handler: SAXEventContext.callbacks(reportsText: reportsText), userData: Unmanaged.passUnretained(context).toOpaque(),
            fileName: fileName, entryName: entryName)
        unsafe eventContext = context
    }

    /// From now on, copies each start and end tag into `capture` (for a decoder on another
    /// thread to replay) instead of reporting it to the handler. For a parser made with
    /// `init(events:…)`, before its first `feed`.
    package func captureEvents(into capture: SAXEventCapture) {
        unsafe precondition(eventContext != nil, "captureEvents(into:) needs a parser made with init(events:)")
        capturing = capture
        unsafe eventContext?.parser = Unretained(self)
        unsafe eventContext?.capture = Unretained(capture)
    }
}
