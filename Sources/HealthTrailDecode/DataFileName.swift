import Crypto

/// File names made from text in the data (record types, workout activity names): only
/// `[a-z0-9_-]`, and bounded, because an export can hold a type name of any length and a
/// name over the file system's 255 bytes failed the whole run ("File name too long").
package enum DataFileName {
    /// The longest stem (the name before its extension) made from a record type.
    package static let maxBytes = 100
    /// Hex digits of the hash that ends a shortened name: 32 bits keep names that share their
    /// first bytes apart (a clash would still get ExportOutputs' `-2`, never a shared file).
    package static let hashDigits = 8

    /// `name` when it fits in `maxBytes`, else its first bytes, `-` and the first
    /// `hashDigits` hex digits of SHA-256 of `original` (the text the name was made from), so
    /// that distinct long names stay distinct. `name` must be ASCII.
    package static func bounded(_ name: String, original: String, maxBytes: Int = maxBytes) -> String {
        guard name.utf8.count > maxBytes else { return name }
        let digest = SHA256.hash(data: Array(original.utf8))
        let hex = digest.map { byte -> String in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined().prefix(hashDigits)
        var head = String(name.utf8.prefix(maxBytes - hashDigits - 1))!
        while head.hasSuffix("_") || head.hasSuffix("-") { head.removeLast() }
        return head + "-" + hex
    }
}
