/// A JSON value written in one canonical form: the same value always gives the same bytes.
///
/// Objects have their keys sorted by UTF-8 bytes (which is Unicode code point order), there is
/// no whitespace, numbers are integers only, and strings escape exactly what Python's `json`
/// escapes with `ensure_ascii=False` (`"`, `\` and the control characters below U+0020). The
/// bytes are therefore those of Python's
/// `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`, so files in
/// this form can be produced or checked by other tools, byte for byte.
indirect enum CanonicalJSON {
    case string(String)
    case integer(Int64)
    case object([String: CanonicalJSON])
    /// Elements in the order given: a writer that wants one canonical order sorts them first.
    case array([CanonicalJSON])

    /// The canonical bytes of the value.
    var bytes: [UInt8] {
        var out: [UInt8] = []
        write(into: &out)
        return out
    }

    private func write(into out: inout [UInt8]) {
        switch self {
        case .string(let text):
            Self.writeString(text, into: &out)
        case .integer(let value):
            out += Array(String(value).utf8)
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            // Byte order of the UTF-8 keys, not Swift's `<` on String (which compares by
            // Unicode canonical equivalence and could treat two different keys as equal).
            let keys = members.keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
            for (i, key) in keys.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                let name = String(decoding: key, as: UTF8.self)
                Self.writeString(name, into: &out)
                out.append(UInt8(ascii: ":"))
                members[name]!.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                element.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
    }

    private static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += Array("\\\"".utf8)
            case UInt8(ascii: "\\"): out += Array("\\\\".utf8)
            case 0x08: out += Array("\\b".utf8)
            case 0x0C: out += Array("\\f".utf8)
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0x09: out += Array("\\t".utf8)
            case 0..<0x20:
                let hex = String(byte, radix: 16)
                out += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
