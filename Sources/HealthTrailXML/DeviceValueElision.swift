import HealthTrailArchive

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Empties the values of export.xml's `device` attributes before libxml2 reads them.
///
/// Why: every record an iPhone or a Watch wrote carries
/// `device="&lt;&lt;HKDevice: 0x…&gt;, name:Apple Watch, …&gt;&gt;"`. That one attribute is a
/// third of a typical export.xml, and because of its entity references libxml2 reads each value
/// through its slow path, a character at a time: it is about half of libxml2's whole parse
/// (the benchmark's floor takes 1.7 s instead of 3.3 s without it). HealthTrail never reads it.
/// This filter runs on the inflating thread, in the copy the bytes go through anyway, so the
/// parsing thread (the critical path of a run) is spared that work.
///
/// Safe by construction. A value is emptied only when it cannot matter:
/// - it belongs to an attribute named exactly `device` inside a start tag, which is tracked with
///   XML's own grammar after the root element (comments, CDATA sections, processing
///   instructions, text and the values of other attributes are skipped, never rewritten; a
///   name is recognised by looking back from its value's opening quote);
/// - its bytes are printable ASCII without `<`, and its only references are the five predefined
///   entities, so it is well-formed: emptying it cannot hide an error libxml2 would report;
/// - the attribute itself stays (`device=""`), so a duplicated attribute is still refused;
/// - it is at most `longestValue` bytes, the most held back across a chunk boundary.
/// No newline is ever removed, so the lines in errors and faults are the file's. Markup the
/// tracker cannot follow (`<!` other than a comment or CDATA, `<` then a space) turns the filter
/// off for the rest of the entry, and malformed markup inside a tag is not even looked at: only
/// malformed XML has either, and libxml2 stops at it, before any value after it.
///
/// The prolog is left alone: the filter starts rewriting at the first `<HealthData` followed by
/// the end of a name, the same place `PrologFilter` takes as the root element, and only when
/// libxml2 will see a start tag there too (`isPlainProlog`: before it, or before the `<!DOCTYPE`
/// that PrologFilter cuts out up to it, only whitespace, processing instructions and complete
/// comments) in a UTF-8 document (no XML declaration, or one declaring UTF-8, and ASCII first
/// bytes): in any other encoding (UTF-7, UTF-16, EBCDIC…) bytes do not mean what they look like.
/// Otherwise it passes everything through (real exports always qualify).
///
/// Invariant: `held` and `tail` are owned by the filter (`longestValue` and `tailLength` bytes,
/// freed in deinit), `heldCount` ≤ `longestValue` and `tailCount` ≤ `tailLength` are how many of
/// their first bytes are set, and one thread (the reader's) uses the filter at a time.
@safe
package final class DeviceValueElision: ChunkRewriter {
    /// The longest value emptied; longer ones pass through (real ones are about 150 bytes).
    package static let longestValue = 4096

    /// Values emptied so far.
    package private(set) var elidedValues = 0

    private enum Mode {
        case prolog, content, afterLessThan, afterBang, afterBangDash, comment, cdataOpening, cdata
        case processingInstruction, endTag, inTag, value, deviceValue, passthrough
    }

    private var mode = Mode.prolog
    /// Bytes matched of what the current mode looks for (`<HealthData`, `CDATA[`, `-->`, `]]>`, `?>`).
    private var matched = 0
    /// The quote that closes the value being read.
    private var quote: UInt8 = 0
    /// The start of a `device` value that began in an earlier chunk, held back until its end
    /// shows whether it is emptied or passed on.
    private let held = UnsafeMutablePointer<UInt8>.allocate(capacity: DeviceValueElision.longestValue)
    private var heldCount = 0
    /// The last input bytes before this chunk, for the look-back that finds ` device =` when a
    /// value opens at the very start of a chunk: the output does not depend on where chunks end.
    private let tail = UnsafeMutablePointer<UInt8>.allocate(capacity: DeviceValueElision.tailLength)
    private var tailCount = 0
    private static let tailLength = 32
    /// The document's first bytes, kept until the root element shows where the prolog ends:
    /// the prolog must be plain and its XML declaration tells the encoding. A prolog longer than
    /// this (real ones, DTD included, are about 10 KB) turns the filter off.
    private var head: [UInt8] = []
    private static let headLength = 64 * 1024
    /// Bytes of the entry before this chunk (while in the prolog).
    private var offset = 0

    // Patterns as static strings, not arrays: a static array is checked for initialisation at
    // every use, and this runs per byte.
    private static let root: StaticString = "<HealthData"
    private static let cdataOpening: StaticString = "CDATA["

    /// A filter for one entry, at its first byte.
    package init() {}

    deinit {
        unsafe held.deallocate()
        unsafe tail.deallocate()
    }

    package func rewrittenCapacity(forInput count: Int) -> Int { Self.outputCapacity(forInput: count) }
    package var heldCapacity: Int { Self.longestValue }

    /// The most bytes one call can write: the input plus what was held back.
    package static func outputCapacity(forInput count: Int) -> Int { count + longestValue }

    /// Rewrites one chunk of export.xml into `output`, which has room for
    /// `outputCapacity(forInput: input.count)` bytes; returns how many it wrote.
    package func rewrite(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer) -> Int {
        // SAFETY: the caller keeps `input` valid and gives `outputCapacity(forInput:)` bytes at
        // `output`, separate from it. Every read below is at an index in 0..<end; the writer
        // copies each input byte at most once plus the held bytes at most once (≤ longestValue),
        // so it stays inside `output`. Both are read and written as bytes only.
        guard let raw = input.baseAddress, input.count > 0 else { return 0 }
        var writer = unsafe ChunkWriter(input: raw.assumingMemoryBound(to: UInt8.self), output: output.assumingMemoryBound(to: UInt8.self))
        let end = input.count
        var i = 0
        // Where the current `device` value starts in this chunk (0 when it began in an earlier one).
        var valueStart = 0
        let p = unsafe writer.input
        if mode == .prolog && head.count < Self.headLength {
            // SAFETY: 0 < min(end, headLength - head.count) ≤ end bytes of the input.
            unsafe head.append(contentsOf: UnsafeBufferPointer(start: p, count: min(end, Self.headLength - head.count)))
        }
        defer { if mode == .prolog { offset += end } }
        while i < end {
            switch mode {
            case .passthrough:
                i = end

            case .prolog:
                // The first `<HealthData` followed by a name end, where PrologFilter finds the root.
                if matched == 0 {
                    guard let at = unsafe Self.find(UInt8(ascii: "<"), in: p, from: i, to: end) else { i = end; break }
                    i = at + 1
                    matched = 1
                    continue
                }
                let c = unsafe p[i]
                if matched == Self.root.utf8CodeUnitCount {
                    // Either way c is read again: as the tag's delimiter, or as a possible `<`.
                    if Self.isSpace(c) || c == UInt8(ascii: ">") || c == UInt8(ascii: "/") {
                        let root = offset + i - Self.root.utf8CodeUnitCount
                        let plain = root <= head.count && Self.isUTF8(head: head) && Self.isPlainProlog(head[..<root])
                        mode = plain ? .inTag : .passthrough
                        head = []
                    }
                    matched = 0
                    continue
                }
                if unsafe c == Self.root.utf8Start[matched] {
                    matched += 1
                    i += 1
                } else {
                    matched = 0   // c is read again: it may be a `<`
                }

            case .content:
                guard let at = unsafe Self.find(UInt8(ascii: "<"), in: p, from: i, to: end) else { i = end; break }
                i = at + 1
                mode = .afterLessThan

            case .afterLessThan:
                let c = unsafe p[i]
                i += 1
                switch c {
                case UInt8(ascii: "/"): mode = .endTag
                case UInt8(ascii: "?"): mode = .processingInstruction; matched = 0
                case UInt8(ascii: "!"): mode = .afterBang
                default: mode = Self.endsName(c) ? .passthrough : .inTag
                }

            case .afterBang:
                let c = unsafe p[i]
                i += 1
                switch c {
                case UInt8(ascii: "-"): mode = .afterBangDash
                case UInt8(ascii: "["): mode = .cdataOpening; matched = 0
                default: mode = .passthrough   // a DOCTYPE after the root: libxml2 refuses it
                }

            case .afterBangDash:
                mode = unsafe p[i] == UInt8(ascii: "-") ? .comment : .passthrough
                matched = 0
                i += 1

            case .comment:
                let c = unsafe p[i]
                i += 1
                if endsSection(at: c, repeating: UInt8(ascii: "-")) { mode = .content }

            case .cdataOpening:
                if unsafe p[i] != Self.cdataOpening.utf8Start[matched] { mode = .passthrough; break }
                i += 1
                matched += 1
                if matched == Self.cdataOpening.utf8CodeUnitCount { mode = .cdata; matched = 0 }

            case .cdata:
                let c = unsafe p[i]
                i += 1
                if endsSection(at: c, repeating: UInt8(ascii: "]")) { mode = .content }

            case .processingInstruction:
                let c = unsafe p[i]
                i += 1
                if c == UInt8(ascii: ">") && matched == 1 { mode = .content }
                matched = c == UInt8(ascii: "?") ? 1 : 0

            case .endTag:
                guard let at = unsafe Self.find(UInt8(ascii: ">"), in: p, from: i, to: end) else { i = end; break }
                i = at + 1
                mode = .content

            case .inTag:
                // Names, spaces and `=` up to the next value or the tag's end. Malformed markup
                // here needs no check: libxml2 stops at it, before any value after it. The
                // values of other attributes are skipped right here, as `.value` would, rather
                // than through the switch once for each value and once after it.
                while true {
                    guard let at = unsafe Self.findQuoteOrTagEnd(in: p, from: i, to: end) else { i = end; break }
                    let c = unsafe p[at]
                    i = at + 1
                    if c == UInt8(ascii: ">") {
                        mode = .content
                        break
                    }
                    quote = c
                    if unsafe isDeviceAttribute(quoteAt: at, in: p) {
                        mode = .deviceValue
                        valueStart = i
                        heldCount = 0
                        break
                    }
                    guard let close = unsafe Self.find(c, in: p, from: i, to: end) else {
                        mode = .value   // the value goes on in the next chunk
                        i = end
                        break
                    }
                    i = close + 1
                }

            case .value:
                guard let at = unsafe Self.find(quote, in: p, from: i, to: end) else { i = end; break }
                i = at + 1
                mode = .inTag

            case .deviceValue:
                guard let at = unsafe Self.find(quote, in: p, from: i, to: end) else {
                    // The value goes on in the next chunk: hold its bytes back, if they fit.
                    let part = end - valueStart
                    if heldCount + part <= Self.longestValue {
                        // SAFETY: the `part` bytes from valueStart end at `end`, and fit in `held`
                        // (checked just above).
                        unsafe writer.copy(upTo: valueStart)
                        unsafe (held + heldCount).update(from: p + valueStart, count: part)
                        heldCount += part
                        unsafe writer.skip(to: end)
                        valueStart = 0
                    } else {
                        unsafe writer.write(held, heldCount)
                        heldCount = 0
                        mode = .value
                    }
                    i = end
                    break
                }
                let part = at - valueStart
                var plain: Bool
                if heldCount == 0 {
                    plain = unsafe part <= Self.longestValue && Self.isPlainValue(p + valueStart, part)
                } else if heldCount + part <= Self.longestValue {
                    // SAFETY: the value's `part` bytes end at the quote (< end) and fit in `held`.
                    unsafe (held + heldCount).update(from: p + valueStart, count: part)
                    plain = unsafe Self.isPlainValue(held, heldCount + part)
                } else {
                    plain = false
                }
                if plain {
                    unsafe writer.copy(upTo: valueStart)
                    unsafe writer.skip(to: at)
                    elidedValues += 1
                } else if heldCount > 0 {
                    // Nothing of this chunk is written yet: the held bytes go first.
                    unsafe writer.write(held, heldCount)
                }
                heldCount = 0
                valueStart = 0
                i = at + 1
                mode = .inTag
            }
        }
        unsafe writer.copy(upTo: end)
        unsafe keepTail(p, end)
        return unsafe writer.written
    }

    /// True at the `>` of `-->` or `]]>` (`repeated` being `-` or `]`): `matched` counts the
    /// repeated bytes just before, across chunks.
    @inline(__always) private func endsSection(at c: UInt8, repeating repeated: UInt8) -> Bool {
        if c == repeated {
            matched = min(matched + 1, 2)
            return false
        }
        defer { matched = 0 }
        return c == UInt8(ascii: ">") && matched == 2
    }

    /// Keeps the last `tailLength` input bytes seen, across chunks however small.
    private func keepTail(_ bytes: UnsafePointer<UInt8>, _ count: Int) {
        let fresh = min(count, Self.tailLength)
        let kept = min(tailCount, Self.tailLength - fresh)
        // SAFETY: kept + fresh ≤ tailLength, so both copies stay inside `tail`; the first moves
        // its last `kept` set bytes to the front (`update(from:count:)` allows the overlap), the
        // second reads the last `fresh` ≤ count bytes of the input.
        if kept > 0 { unsafe tail.update(from: tail + (tailCount - kept), count: kept) }
        unsafe (tail + kept).update(from: bytes + (count - fresh), count: fresh)
        tailCount = kept + fresh
    }

    /// At the end of the entry: writes what is still held back (the entry ended inside a
    /// `device` value, which libxml2 will report); returns how many bytes.
    package func finish(into output: UnsafeMutableRawPointer) -> Int {
        let count = heldCount
        // SAFETY: the caller gives `heldCapacity` = longestValue ≥ heldCount bytes at `output`.
        unsafe output.copyMemory(from: held, byteCount: count)
        heldCount = 0
        return count
    }

    // MARK: Bytes

    /// True when libxml2, after `PrologFilter`, sees nothing but whitespace, processing
    /// instructions and complete comments before the root element: `prolog` is everything before
    /// the first `<HealthData`; PrologFilter replaces whatever follows the first `<!DOCTYPE` by
    /// line breaks, so only what precedes that counts. Anything else (the root inside a comment,
    /// text, another element) and the filter stays off.
    package static func isPlainProlog(_ prolog: ArraySlice<UInt8>) -> Bool {
        var bytes = prolog
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if let doctype = HealthTrailXML.find(Array("<!DOCTYPE".utf8), in: bytes) { bytes = bytes[..<doctype] }
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if isSpace(bytes[i]) { i += 1; continue }
            let rest = bytes[i...]
            let close: [UInt8]
            if rest.starts(with: Array("<?".utf8)) {
                close = Array("?>".utf8)
            } else if rest.starts(with: Array("<!--".utf8)) {
                close = Array("-->".utf8)
            } else {
                return false
            }
            guard let at = HealthTrailXML.find(close, in: bytes[(i + 2)...]) else { return false }
            i = at + close.count
        }
        return true
    }

    /// True when a document starting with `head` is UTF-8 for libxml2: its first bytes (after a
    /// UTF-8 byte order mark) are ASCII, which rules out UTF-16, UCS-4 and EBCDIC, and its XML
    /// declaration, if any, names no encoding or UTF-8. A declaration longer than the head is
    /// taken as another encoding.
    package static func isUTF8(head: [UInt8]) -> Bool {
        var bytes = head[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard bytes.count >= 4, bytes.prefix(4).allSatisfy({ $0 >= 0x09 && $0 < 0x80 }) else { return false }
        guard bytes.starts(with: Array("<?xml".utf8)) else { return true }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let close = text.range(of: "?>") else { return false }
        let declaration = text[..<close.lowerBound]
        guard let name = declaration.range(of: "encoding") else { return true }
        let rest = declaration[name.upperBound...].drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "=" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return false }
        let value = rest.dropFirst().prefix { $0 != quote }
        return ["utf-8", "utf8"].contains(value.lowercased())
    }

    /// True when `count` bytes at `bytes`, a value, are printable ASCII without `<`, whose
    /// references are only `&lt;`, `&gt;`, `&amp;`, `&quot;` and `&apos;`: a value libxml2
    /// always accepts.
    package static func isPlainValue(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        // SAFETY: the caller passes `count` readable bytes; each read below is at i < count, a
        // word only when 8 bytes remain, an entity only within the `count - i` that remain.
        var i = 0
        while i < count {
            // Eight bytes at a time while none is special (a device value has a few `&`s only).
            if unsafe count - i >= 8 && !mayNeedCheck(word(bytes + i)) {
                i += 8
                continue
            }
            let c = unsafe bytes[i]
            if c == UInt8(ascii: "&") {
                let length = unsafe predefinedEntityLength(bytes + i, count - i)
                if length == 0 { return false }
                i += length
                continue
            }
            if c < 0x20 || c > 0x7E || c == UInt8(ascii: "<") { return false }
            i += 1
        }
        return true
    }

    /// True when one of the eight bytes of `word` is below 0x20, above 0x7E, `<` or `&`
    /// (the "has less" and "has zero byte" word tricks: exact as a whole, whichever lane
    /// they flag).
    @inline(__always) private static func mayNeedCheck(_ word: UInt64) -> Bool {
        if word & highs != 0 { return true }   // a byte above 0x7F
        let below20 = (word &- ones &* 0x20) & ~word & highs   // "has a byte less than 0x20"
        return
            (below20 | zeroBytes(word ^ (ones &* 0x7F)) | zeroBytes(word ^ (ones &* 0x3C))
            | zeroBytes(word ^ (ones &* 0x26))) != 0
    }

    /// True when the value opening at `quote` in `bytes` belongs to an attribute named exactly
    /// `device`: looking back, optional spaces, `=`, optional spaces, `device`, a space. None
    /// of those is a quote, so the look-back cannot reach into an earlier value. It looks at
    /// most `tailLength` bytes back, through the previous chunks' last bytes when the value
    /// opens near a chunk's start, so where chunks end never matters; past that (dozens of
    /// spaces around `=`) the answer is no, and the value is simply left as it is.
    @inline(__always) private func isDeviceAttribute(quoteAt quote: Int, in bytes: UnsafePointer<UInt8>) -> Bool {
        // SAFETY: `bytes[j]` is read only for 0 ≤ j < quote (in this chunk), and `tail` only at
        // tailCount + j for -tailCount ≤ j < 0: its set bytes.
        let limit = quote - Self.tailLength
        // Most values are of other attributes, written `name="`: `ce=` rejects nearly all at once.
        // (Only without a space before `=`: `device ="` must reach the full look-back, or where
        // chunks end would decide.)
        if unsafe quote >= 3 && bytes[quote - 1] == UInt8(ascii: "=") && !Self.isSpace(bytes[quote - 2])
            && (bytes[quote - 2] != UInt8(ascii: "e") || bytes[quote - 3] != UInt8(ascii: "c"))
        {
            return false
        }
        if limit >= 0 {
            // The common case: everything the look-back may read is in this chunk.
            var j = quote - 1
            while unsafe j >= limit && Self.isSpace(bytes[j]) { j -= 1 }
            guard j >= limit, unsafe bytes[j] == UInt8(ascii: "=") else { return false }
            j -= 1
            while unsafe j >= limit && Self.isSpace(bytes[j]) { j -= 1 }
            guard j - 6 >= limit else { return false }
            return unsafe bytes[j] == UInt8(ascii: "e") && bytes[j - 1] == UInt8(ascii: "c") && bytes[j - 2] == UInt8(ascii: "i")
                && bytes[j - 3] == UInt8(ascii: "v") && bytes[j - 4] == UInt8(ascii: "e")
                && bytes[j - 5] == UInt8(ascii: "d") && Self.isSpace(bytes[j - 6])
        }
        // Near the chunk's start: the same look-back, partly through the tail.
        func byte(_ j: Int) -> UInt8? {
            if j < limit { return nil }
            if j >= 0 { return unsafe bytes[j] }
            return unsafe tailCount + j >= 0 ? tail[tailCount + j] : nil
        }
        var j = quote - 1
        while let c = byte(j), Self.isSpace(c) { j -= 1 }
        guard byte(j) == UInt8(ascii: "=") else { return false }
        j -= 1
        while let c = byte(j), Self.isSpace(c) { j -= 1 }
        for expected in "ecived".utf8 {
            guard byte(j) == expected else { return false }
            j -= 1
        }
        guard let before = byte(j) else { return false }
        return Self.isSpace(before)
    }

    /// The length of the predefined entity reference at `bytes` (`&lt;` … `&apos;`), or 0.
    private static func predefinedEntityLength(_ bytes: UnsafePointer<UInt8>, _ available: Int) -> Int {
        if available >= 4, unsafe bytes[3] == UInt8(ascii: ";"), unsafe bytes[2] == UInt8(ascii: "t"),
            unsafe bytes[1] == UInt8(ascii: "l") || bytes[1] == UInt8(ascii: "g")
        {
            return 4
        }
        // SAFETY: each comparison reads only as many bytes as are `available`; a string literal
        // passed to C is NUL-terminated and lives for the call, longer than what is compared.
        if available >= 5, unsafe memcmp(bytes, "&amp;", 5) == 0 { return 5 }
        if available >= 6, unsafe memcmp(bytes, "&quot;", 6) == 0 || memcmp(bytes, "&apos;", 6) == 0 { return 6 }
        return 0
    }

    @inline(__always) private static func isSpace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D
    }

    /// Bytes that cannot be part of a name inside a tag.
    @inline(__always) private static func endsName(_ c: UInt8) -> Bool {
        c <= 0x20 || c == UInt8(ascii: "=") || c == UInt8(ascii: ">") || c == UInt8(ascii: "/")
            || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") || c == UInt8(ascii: "<")
    }

    /// The index of the first `byte` in `base[from..<end]`, or nil. Inline, eight bytes at a
    /// time: most distances here are a few bytes (`\n <`, a short value), where a `memchr`
    /// call costs more than the scan.
    @inline(__always) private static func find(_ byte: UInt8, in base: UnsafePointer<UInt8>, from: Int, to end: Int) -> Int? {
        var i = from
        let pattern = ones &* UInt64(byte)
        while i + 8 <= end {
            let flags = unsafe zeroBytes(word(base + i) ^ pattern)
            if flags != 0 { return i + flags.trailingZeroBitCount >> 3 }
            i += 8
        }
        while i < end {
            if unsafe base[i] == byte { return i }
            i += 1
        }
        return nil
    }

    /// The index of the first `"`, `'` or `>` in `base[from..<end]`, or nil.
    @inline(__always) private static func findQuoteOrTagEnd(in base: UnsafePointer<UInt8>, from: Int, to end: Int) -> Int? {
        var i = from
        while i + 8 <= end {
            let w = unsafe word(base + i)
            let flags = zeroBytes(w ^ (ones &* 0x22)) | zeroBytes(w ^ (ones &* 0x27)) | zeroBytes(w ^ (ones &* 0x3E))
            if flags != 0 { return i + flags.trailingZeroBitCount >> 3 }
            i += 8
        }
        while i < end {
            let c = unsafe base[i]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") || c == UInt8(ascii: ">") { return i }
            i += 1
        }
        return nil
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Eight bytes, the first in the lowest lane whatever the machine's byte order.
    @inline(__always) private static func word(_ p: UnsafePointer<UInt8>) -> UInt64 {
        // SAFETY: every caller checks that 8 bytes from `p` lie inside its buffer;
        // `loadUnaligned` has no alignment requirement.
        unsafe UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
    }

    /// The high bit of each lane of `w` that is zero, and maybe of lanes above one: the lowest
    /// flag is always exact (a borrow only runs upwards), which is all the scans use.
    @inline(__always) private static func zeroBytes(_ w: UInt64) -> UInt64 {
        (w &- ones) & ~w & highs
    }
}

/// Copies the unchanged runs of a chunk to the output and skips the emptied ones.
///
/// Invariant: `input` holds the chunk and `output` the room `rewrite` was given, disjoint;
/// `consumed` only grows up to the chunk's count, so `written` never passes that room.
@unsafe
private struct ChunkWriter {
    package let input: UnsafePointer<UInt8>
    package let output: UnsafeMutablePointer<UInt8>
    /// Input bytes before this index are written or skipped.
    package private(set) var consumed = 0
    package private(set) var written = 0

    package init(input: UnsafePointer<UInt8>, output: UnsafeMutablePointer<UInt8>) {
        unsafe self.input = input
        unsafe self.output = output
    }

    /// Writes the input from `consumed` up to `index`.
    package mutating func copy(upTo index: Int) {
        guard unsafe index > consumed else { return }
        // SAFETY: see the invariant: consumed < index ≤ the chunk's count.
        unsafe (output + written).update(from: input + consumed, count: index - consumed)
        unsafe written += index - consumed
        unsafe consumed = index
    }

    /// Leaves out the input from `consumed` up to `index`.
    package mutating func skip(to index: Int) { unsafe consumed = index }

    /// Writes other bytes (held back from an earlier chunk) at the current position.
    package mutating func write(_ bytes: UnsafePointer<UInt8>, _ count: Int) {
        // SAFETY: only the held bytes (count ≤ longestValue), at most once per chunk: the room
        // `rewrite` was given has `longestValue` bytes beyond the chunk's count for them.
        unsafe (output + written).update(from: bytes, count: count)
        unsafe written += count
    }
}
