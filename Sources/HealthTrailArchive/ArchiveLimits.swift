import Foundation

/// How far a zip archive may expand before HealthTrail refuses it as a possible zip bomb.
///
/// Both limits are checked up front from the central directory (declared sizes) and again while
/// each entry inflates, on the bytes zlib actually produces and consumes, so an archive whose
/// headers lie gains nothing.
///
/// The defaults come from measuring real exports. The most compressible entry of the bundled
/// sample and of the real fixtures is an `export_cda.xml` at 46:1; `export.xml` itself deflates
/// 14–18:1 and route files about 6:1. A deflate stream cannot exceed about 1032:1 (a run of one
/// byte); a run of identical `<Record …/>` lines, the cheapest bomb that is still valid XML,
/// deflates about 290:1. So 200:1 is four times what any real entry reaches and still stops both
/// kinds of bomb within their first mebibyte. 64 GiB of uncompressed content is several times
/// the largest exports reported (an export.xml of a few GiB after a decade of Apple Watch data).
package struct ArchiveLimits: Sendable, Equatable {
    /// Largest uncompressed/compressed ratio allowed for one entry (200 means 200:1).
    /// Applies only once an entry has produced `expansionRatioGraceBytes`: tiny entries of
    /// repeated bytes legitimately reach high ratios and cost nothing.
    package var maxExpansionRatio: UInt64
    /// Largest total of the entries' uncompressed sizes, in bytes.
    package var maxUncompressedBytes: UInt64

    /// The defaults: 200:1 and 64 GiB.
    package static let `default` = ArchiveLimits()

    /// Output an entry may produce before its expansion ratio is checked: 1 MiB.
    package static let expansionRatioGraceBytes: UInt64 = 1 << 20

    /// - Parameters:
    ///   - maxExpansionRatio: per-entry uncompressed/compressed ratio (at least 1).
    ///   - maxUncompressedBytes: total uncompressed bytes of all entries.
    package init(maxExpansionRatio: UInt64 = 200, maxUncompressedBytes: UInt64 = 64 << 30) {
        self.maxExpansionRatio = max(1, maxExpansionRatio)
        self.maxUncompressedBytes = maxUncompressedBytes
    }

    /// True when `uncompressed` bytes from `compressed` bytes stay within the ratio limit.
    /// Overflow-safe for any pair of sizes.
    @inline(__always)
    package func allowsExpansion(_ uncompressed: UInt64, from compressed: UInt64) -> Bool {
        guard uncompressed > Self.expansionRatioGraceBytes else { return true }
        let (ceiling, overflow) = compressed.multipliedReportingOverflow(by: maxExpansionRatio)
        return overflow || uncompressed <= ceiling
    }

    /// The message refusing an entry that expands past the ratio limit (sizes only, no content).
    package func ratioRefusal(_ uncompressed: UInt64, from compressed: UInt64, declared: Bool) -> String {
        let ratio = compressed == 0 ? "unbounded" : "\(uncompressed / compressed):1"
        return "\(declared ? "declares" : "inflates to more than") \(Self.text(bytes: uncompressed)) from "
            + "\(Self.text(bytes: compressed)) compressed (\(ratio)), over the \(maxExpansionRatio):1 expansion limit: "
            + "refused as a possible zip bomb; if the archive is genuine, raise the limit with --max-expansion-ratio"
    }

    /// The message refusing the entry with which the declared sizes pass the total limit.
    package func totalRefusal(_ total: UInt64) -> String {
        "with this entry the archive declares \(Self.text(bytes: total)) uncompressed, over the "
            + "\(Self.text(bytes: maxUncompressedBytes)) limit: refused as a possible zip bomb; "
            + "if the archive is genuine, raise the limit with --max-uncompressed"
    }

    // MARK: Sizes as text

    /// `123 bytes`, `1.5 MiB`, `64 GiB`: for messages.
    package static func text(bytes: UInt64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
        guard bytes >= 1024 else { return "\(bytes) bytes" }
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
        let rounded = (value * 10).rounded() / 10
        let number = rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
        return "\(number) \(units[unit])"
    }

    /// Parses a size as a user writes it for `--max-uncompressed`: `1000000`, `500M`, `64G`,
    /// `64GiB`, `2T` (K, M, G, T are powers of 1024; a trailing `B` or `iB` is optional).
    /// Returns nil for anything else, or a value that does not fit 64 bits.
    package static func bytes(parsing text: String) -> UInt64? {
        var s = Substring(text.trimmingCharacters(in: .whitespaces))
        if s.hasSuffix("iB") { s = s.dropLast(2) } else if s.hasSuffix("B") || s.hasSuffix("b") { s = s.dropLast() }
        var shift: UInt64 = 0
        if let last = s.last, let index = "KMGT".firstIndex(of: Character(last.uppercased())) {
            shift = 10 * UInt64("KMGT".distance(from: "KMGT".startIndex, to: index) + 1)
            s = s.dropLast()
        }
        guard !s.isEmpty, s.allSatisfy({ $0.isASCII && $0.isNumber }), let number = UInt64(s) else { return nil }
        guard shift == 0 || number <= UInt64.max >> shift else { return nil }
        return number << shift
    }
}
