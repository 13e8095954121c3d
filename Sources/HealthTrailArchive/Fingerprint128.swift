import HealthTrailBase

/// A 128-bit fingerprint of a sequence of fields: two 64-bit lanes, each a chain of full-width
/// multiplications (the folded 128-bit product of wyhash), seeded apart.
///
/// What it is for: telling whether two records are the same without keeping either. Distinct
/// inputs share a fingerprint with probability about n²/2¹²⁹ among n of them (below 10⁻²⁰ for
/// a hundred million records); it is not a cryptographic hash, and need not be: the data is the
/// user's own, read by the user's own run. Each field is framed by its length, so `("ab", "c")`
/// and `("a", "bc")` differ.
@usableFromInline package struct Fingerprint128: Equatable {
    /// The two lanes. Public for inlining: set only by `add`.
    @usableFromInline package var high: UInt64
    @usableFromInline package var low: UInt64

    @inlinable @inline(__always) package init() {
        high = 0x243F_6A88_85A3_08D3
        low = 0x1319_8A2E_0370_7344
    }

    @inlinable @inline(__always) static func fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (h, l) = a.multipliedFullWidth(by: b)
        return h ^ l
    }

    /// Adds one 64-bit word.
    @inlinable @inline(__always) package mutating func add(_ word: UInt64) {
        high = Self.fold(high ^ word, 0xA076_1D64_78BD_642F)
        low = Self.fold(low ^ word ^ 0xE703_7ED1_A0B4_28DB, 0x8EBC_6AF0_9C88_C6E3)
    }

    /// Adds a field of bytes, framed by its length.
    @inlinable @inline(__always) package mutating func add(_ bytes: ByteSpan) {
        add(UInt64(bytes.count) | 0xB0 << 56)
        var i = 0
        // SAFETY: every load reads 8 bytes at `start + i` with `i + 8 <= count`, inside the
        // span's bytes (the type's invariant keeps them readable while the span is used).
        while i + 8 <= bytes.count {
            unsafe add(UnsafeRawPointer(bytes.start + i).loadUnaligned(as: UInt64.self))
            i += 8
        }
        if i < bytes.count {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < bytes.count {
                tail |= UInt64(bytes[i]) << shift
                shift += 8
                i += 1
            }
            add(tail)
        }
    }

    /// Adds a field that may be absent (nil differs from the empty field).
    @inlinable @inline(__always) package mutating func add(optional bytes: ByteSpan?) {
        if let bytes { add(bytes) } else { add(0xA5 << 56) }
    }
}
