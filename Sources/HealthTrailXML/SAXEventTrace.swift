import CLibXML2

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What libxml2 reports for a document: one line per element (its prefixed name, line and
/// attributes), per comment and per processing instruction, the text between them, and the
/// error that stopped the parse.
///
/// The yardstick for rewriting export.xml before libxml2 reads it (`DeviceValueElision`): the
/// trace of the rewritten bytes must equal the original's but for the values emptied, which
/// the trace masks. The tests and the fuzzer (`fuzz-device-elision`) compare the two.
///
/// SAFETY: every callback's `ctx` is this trace, passed unretained: the parse runs inside
/// `init`, which keeps it alive, and the parser is released when `init` returns. The pointers
/// libxml2 passes are read only during the callback, as it documents them.
package final class SAXEventTrace {
    /// The events, in order; the text between two elements is one line however libxml2 split it.
    package private(set) var lines: [String] = []
    /// The error that ended the parse (file, line and libxml2's message), or nil.
    package private(set) var error: String?
    private var text: [UInt8] = []
    private let maskedAttribute: [UInt8]
    private weak var parser: SAXPushParser?

    /// Parses `chunks` in order; attributes named `masked` show as `name=…` whatever their value.
    package init<Chunks: Sequence>(chunks: Chunks, masking masked: String = "device") where Chunks.Element == [UInt8] {
        maskedAttribute = Array(masked.utf8)
        var handler = unsafe xmlSAXHandler()
        unsafe handler.startElementNs = { ctx, name, prefix, _, _, _, count, _, attributes in
            guard let ctx = unsafe ctx, let name = unsafe name else { return }
            let trace = unsafe Unmanaged<SAXEventTrace>.fromOpaque(ctx).takeUnretainedValue()
            trace.flushText()
            var line =
                unsafe "<" + (prefix.map { unsafe String(cString: $0) + ":" } ?? "") + String(cString: name)
                + " @\(trace.parser?.line ?? 0)"
            for i in 0..<Int(count) {
                // SAFETY: libxml2's `count` attributes of five pointers each: a NUL-terminated
                // local name, and the value's bytes from base[3] up to base[4].
                guard let base = unsafe attributes.map({ unsafe $0 + i * 5 }), let key = unsafe base[0], let start = unsafe base[3],
                    let end = unsafe base[4]
                else { continue }
                let keyBytes = unsafe Array(UnsafeBufferPointer(start: key, count: strlen(key)))
                line += " " + String(decoding: keyBytes, as: UTF8.self) + "="
                unsafe line +=
                    keyBytes == trace.maskedAttribute ? "…" : String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
            }
            trace.lines.append(line)
        }
        unsafe handler.endElementNs = { ctx, name, _, _ in
            guard let ctx = unsafe ctx, let name = unsafe name else { return }
            let trace = unsafe Unmanaged<SAXEventTrace>.fromOpaque(ctx).takeUnretainedValue()
            trace.flushText()
            unsafe trace.lines.append("</" + String(cString: name))
        }
        unsafe handler.comment = { ctx, value in
            guard let ctx = unsafe ctx else { return }
            let trace = unsafe Unmanaged<SAXEventTrace>.fromOpaque(ctx).takeUnretainedValue()
            trace.flushText()
            unsafe trace.lines.append("<!--" + (value.map { unsafe String(cString: $0) } ?? "") + " @\(trace.parser?.line ?? 0)")
        }
        unsafe handler.processingInstruction = { ctx, target, data in
            guard let ctx = unsafe ctx else { return }
            let trace = unsafe Unmanaged<SAXEventTrace>.fromOpaque(ctx).takeUnretainedValue()
            trace.flushText()
            trace.lines.append(
                unsafe "<?" + (target.map { unsafe String(cString: $0) } ?? "") + " " + (data.map { unsafe String(cString: $0) } ?? "")
                    + " @\(trace.parser?.line ?? 0)")
        }
        unsafe handler.characters = { ctx, bytes, count in
            guard let ctx = unsafe ctx, let bytes = unsafe bytes else { return }
            // SAFETY: libxml2 hands `count` bytes at `bytes`, copied into `text` here.
            unsafe Unmanaged<SAXEventTrace>.fromOpaque(ctx).takeUnretainedValue().text += UnsafeBufferPointer(start: bytes, count: Int(count))
        }
        let parser = unsafe SAXPushParser(
            handler: handler, userData: Unmanaged.passUnretained(self).toOpaque(),
            fileName: "trace.xml", entryName: nil)
        self.parser = parser
        do {
            for chunk in chunks { try parser.feed(chunk) }
            try parser.finish()
        } catch {
            self.error = "\(error)"
        }
        flushText()
    }

    private func flushText() {
        guard !text.isEmpty else { return }
        lines.append("text " + String(decoding: text, as: UTF8.self))
        text = []
    }
}
