/// A view of bytes owned elsewhere: by libxml2 (an attribute value, a name), valid only inside
/// the callback that delivered it, or by an `OwnedBytes`, valid while that object lives.
///
/// Decoders read attributes in place through spans instead of making a `String` per attribute:
/// at millions of records, that allocation would cost more than parsing.
///
/// The functions are inlinable: the decoders and writers call them once per attribute
/// byte or comparison, and a call across the module boundary for each would cost more than the
/// comparison.
///
/// Invariant: `start` is never null (an empty span points at an empty literal), `count` ≥ 0, and the
/// `count` bytes from `start` are initialised and stay readable for as long as the span is used;
/// the span does not keep them alive: whoever makes one keeps their owner alive meanwhile.
public struct ByteSpan {
    @usableFromInline package let start: UnsafePointer<UInt8>
    @usableFromInline package let count: Int

    @inlinable @inline(__always) package init(start: UnsafePointer<UInt8>, count: Int) {
        self.start = start
        self.count = count
    }

    /// A view of `bytes` (the empty span when there are none).
    @inlinable @inline(__always) package init(_ bytes: UnsafeRawBufferPointer) {
        // SAFETY: the span covers exactly `bytes`, which the caller keeps valid while it is used;
        // they are only ever read as bytes. No base address (no bytes) gives the empty span.
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            self = .empty
            return
        }
        self.init(start: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
    }

    /// The address of the first byte, for a C library that reads the bytes while the span is valid.
    /// SAFETY: never null; valid for `count` bytes, as long as the span is (see the invariant).
    @inlinable package var baseAddress: UnsafePointer<UInt8> { start }

    /// Calls `body` with the bytes as a raw buffer, for a C library that reads them.
    @inlinable package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        // SAFETY: exactly the span's `count` bytes, valid during `body` by the type's invariant;
        // `body` must not keep the buffer past the span's validity.
        try body(UnsafeRawBufferPointer(start: start, count: count))
    }

    /// The bytes of a string literal, which live as long as the program.
    @inlinable @inline(__always) package init(_ literal: StaticString) {
        self.init(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
    }

    /// Calls `body` with a view of `text`'s UTF-8 bytes, valid inside `body` only.
    @inlinable
    package static func withUTF8<Result>(_ text: String, _ body: (ByteSpan) throws -> Result) rethrows -> Result {
        var text = text
        // SAFETY: `withUTF8` lends the string's contiguous UTF-8 storage for the duration of the
        // closure; the span does not escape `body`. An empty string may have no base address.
        return try text.withUTF8 { utf8 in
            guard let base = utf8.baseAddress, utf8.count > 0 else { return try body(.empty) }
            return try body(ByteSpan(start: base, count: utf8.count))
        }
    }

    /// No bytes.
    /// SAFETY: the empty literal's address, in the program's read-only data for its whole run:
    /// never null, so a C call on it (`memcmp` of 0 bytes) gets a valid address; no span reads it.
    @inlinable package static var empty: ByteSpan { ByteSpan(start: ("" as StaticString).utf8Start, count: 0) }

    /// A span over a NUL-terminated C string.
    @inlinable @inline(__always) package init(cString: UnsafePointer<UInt8>) {
        // SAFETY: the caller passes a NUL-terminated string that stays valid while the span is
        // used; `strlen` reads up to its NUL, and `UInt8` and `CChar` may alias each other.
        self.init(start: cString, count: strlen(UnsafeRawPointer(cString).assumingMemoryBound(to: CChar.self)))
    }

    /// The byte at `i` (0 ≤ i < count; checked).
    @inlinable @inline(__always) package subscript(i: Int) -> UInt8 {
        precondition(i >= 0 && i < count, "ByteSpan index out of range")
        // SAFETY: 0 ≤ i < count (checked above), so the byte lies inside the span.
        return start[i]
    }

    // SAFETY: the span's own `count` bytes; the buffer is valid as long as the span is.
    @inlinable package var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: count) }

    /// True when the bytes equal `literal` (ASCII).
    @inlinable @inline(__always) package func equals(_ literal: StaticString) -> Bool {
        // SAFETY: `memcmp` runs only when both hold `count` bytes; a literal lives for the program.
        count == literal.utf8CodeUnitCount && memcmp(start, literal.utf8Start, count) == 0
    }

    @inlinable @inline(__always) package func hasPrefix(_ literal: StaticString) -> Bool {
        // SAFETY: `memcmp` reads the literal's length only after checking the span is as long.
        count >= literal.utf8CodeUnitCount && memcmp(start, literal.utf8Start, literal.utf8CodeUnitCount) == 0
    }

    @inlinable @inline(__always) package func equals(_ other: ByteSpan) -> Bool {
        // SAFETY: `memcmp` runs only when both spans hold `count` bytes; neither pointer is null.
        count == other.count && memcmp(start, other.start, count) == 0
    }

    @inlinable @inline(__always) package func equals(_ bytes: [UInt8]) -> Bool {
        // SAFETY: `memcmp` runs only when the array holds `count` bytes, inside the closure that
        // lends its storage (non-empty, so it has a base address).
        count == bytes.count && (count == 0 || bytes.withUnsafeBufferPointer { memcmp(start, $0.baseAddress!, count) == 0 })
    }

    /// The first `n` bytes (all of them when there are fewer).
    /// SAFETY: the new count is clamped to 0...count, so the prefix lies inside the span.
    @inlinable package func prefix(_ n: Int) -> ByteSpan { ByteSpan(start: start, count: Swift.max(0, Swift.min(n, count))) }

    /// All but the first `n` bytes (none when there are fewer).
    /// SAFETY: `n` is clamped to 0...count, so the rest starts inside the span and ends with it.
    @inlinable package func dropFirst(_ n: Int) -> ByteSpan {
        let n = Swift.max(0, Swift.min(n, count))
        return ByteSpan(start: start + n, count: count - n)
    }

    /// Feeds the bytes to `hasher`.
    @inlinable package func hash(into hasher: inout Hasher) {
        // SAFETY: the span's own `count` bytes (see the invariant), read during the call only.
        hasher.combine(bytes: UnsafeRawBufferPointer(buffer))
    }

    @inlinable package var string: String { String(decoding: buffer, as: UTF8.self) }

    /// Appends the bytes to `array`.
    @inlinable package func append(to array: inout [UInt8]) { array.append(contentsOf: buffer) }
    @inlinable package var bytes: [UInt8] { Array(buffer) }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
