import HealthTrailArchive
import HealthTrailBase

/// Removes the internal DTD subset from the start of an export.xml before libxml2 sees it.
///
/// iOS 16 wrote exports whose internal DTD is broken (an ATTLIST never closed, or a stray `>`
/// before `]>`), which every strict XML parser rejects. The DTD declares nothing HealthTrail
/// needs (no entities, no defaults we rely on), so everything from `<!DOCTYPE` up to the root
/// element is replaced by the same number of newlines: line numbers in errors stay true to the
/// original file. The export version, which lives only in a DTD comment, is captured on the way.
package struct PrologFilter {
    /// The root element the prolog must end with (`HealthData` for export.xml).
    package let rootName: [UInt8]
    /// The prolog is buffered until the root element appears; past this size the input is not an export.
    package let limit: Int
    package private(set) var buffered: [UInt8] = []
    package private(set) var done = false
    /// `HealthKit Export Version: N` from the DTD comment, when present.
    package private(set) var exportVersion: String? = nil

    package init(rootName: String = "HealthData", limit: Int = 4 << 20) {
        self.rootName = Array(("<" + rootName).utf8)
        self.limit = limit
    }

    package enum Outcome {
        /// Pass these bytes to the parser, then the rest of the chunk from `resumeAt`.
        case ready(prolog: [UInt8], resumeAt: Int)
        /// Need more input.
        case needMore
        case notAnExport
    }

    /// Consumes the start of the stream; once `.ready`, the filter has nothing more to do.
    package mutating func consume(_ chunk: ByteSpan) -> Outcome {
        let before = buffered.count
        chunk.append(to: &buffered)
        // Only the new bytes (and a root name cut by the chunk boundary) can hold the root:
        // rescanning from the start would make many small chunks quadratic.
        let searchFrom = max(0, before - rootName.count)
        guard let rootAt = find(rootName, in: buffered[searchFrom...], followedByNameEnd: true) else {
            return buffered.count > limit ? .notAnExport : .needMore
        }
        done = true
        var prolog: [UInt8]
        if let doctypeAt = find(Array("<!DOCTYPE".utf8), in: buffered[..<rootAt]) {
            captureVersion(buffered[doctypeAt..<rootAt])
            prolog = Array(buffered[..<doctypeAt])
            prolog += buffered[doctypeAt..<rootAt].filter { $0 == UInt8(ascii: "\n") }
        } else {
            prolog = Array(buffered[..<rootAt])
        }
        let resumeAt = rootAt - before   // may be negative: the root began in an earlier chunk
        if resumeAt < 0 {
            prolog += buffered[rootAt..<before]
            buffered = []
            return .ready(prolog: prolog, resumeAt: 0)
        }
        buffered = []
        return .ready(prolog: prolog, resumeAt: resumeAt)
    }

    private mutating func captureVersion(_ dtd: ArraySlice<UInt8>) {
        let marker = Array("HealthKit Export Version:".utf8)
        guard let at = find(marker, in: dtd) else { return }
        var i = at + marker.count
        while i < dtd.endIndex, dtd[i] == UInt8(ascii: " ") { i += 1 }
        var j = i
        while j < dtd.endIndex, dtd[j] != UInt8(ascii: " "), dtd[j] != UInt8(ascii: "-"), dtd[j] != UInt8(ascii: "\n") { j += 1 }
        if j > i { exportVersion = String(decoding: dtd[i..<j], as: UTF8.self) }
    }
}

/// First index of `needle` in `haystack`; with `followedByNameEnd`, only where the next byte ends
/// an element name (space, `>`, `/`), so `<HealthData` does not match `<HealthDataX`.
package func find<C: RandomAccessCollection>(_ needle: [UInt8], in haystack: C, followedByNameEnd: Bool = false) -> C.Index?
where C.Element == UInt8, C.Index == Int {
    guard needle.count <= haystack.count, let first = needle.first else { return nil }
    var i = haystack.startIndex
    let last = haystack.endIndex - needle.count
    while i <= last {
        if haystack[i] == first {
            var k = 1
            while k < needle.count && haystack[i + k] == needle[k] { k += 1 }
            if k == needle.count {
                if !followedByNameEnd { return i }
                let after = i + needle.count
                if after < haystack.endIndex {
                    let c = haystack[after]
                    if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == UInt8(ascii: ">") || c == UInt8(ascii: "/") { return i }
                }
            }
        }
        i += 1
    }
    return nil
}
