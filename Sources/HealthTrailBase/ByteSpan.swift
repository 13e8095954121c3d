/// A view of bytes owned elsewhere: by libxml2 (an attribute value, a name) for the callback
/// that delivered it, or by an `OwnedBytes` while that object lives.
///
/// Nonescapable (`~Escapable`): a span lives no longer than what it was made from, and the
/// compiler refuses to store one past that: in a class or global, in an array, in an escaping
/// closure, or returned from a function that does not say what it borrows (`@_lifetime`). So
/// a view handed to a callback cannot outlive the callback; what must is copied (`OwnedBytes`).
///
/// Decoders read attributes in place through spans instead of making a `String` per attribute:
/// at millions of records, that allocation would cost more than parsing.
///
/// A pointer and a count rather than the standard library's `RawSpan` or `Span<UInt8>`: every
/// reader hands the bytes to C (`memcmp`, `strtod`, libxml2, `write`), for which those types
/// would need a `withUnsafeBytes` closure per call and an optional base address (nil when
/// empty) to unwrap; `ByteSpan`'s is never null. The lifetime checking is the same either way,
/// and the unsafe construction stays in the few initialisers below, each with its SAFETY note.
///
/// The functions are inlinable: the decoders and writers call them once per attribute
/// byte or comparison, and a call across the module boundary for each would cost more than the
/// comparison.
///
/// Invariant: `start` is never null (an empty span points at an empty literal), `count` ≥ 0, and the
/// `count` bytes from `start` are initialised and stay readable for as long as the span is used;
/// the span does not keep them alive: its lifetime dependence on what it was made from does.
///
/// `@safe` under strict memory safety: its own pointer is private to the invariant above, every
/// read through it is bounds-checked or length-checked, and the span cannot outlive its bytes;
/// the initialisers from pointers and the accessors that hand a pointer out are the unsafe part.
@safe public struct ByteSpan: ~Escapable {
    @usableFromInline package let start: UnsafePointer<UInt8>
    @usableFromInline package let count: Int

    /// A view of `count` bytes from `start`, borrowing `start`: a span made from a pointer that is
    /// returned past the pointer's scope states what it borrows instead (`_overrideLifetime`).
    /// SAFETY: `@unsafe`: the caller guarantees the invariant for the `count` bytes from `start`.
    @unsafe @inlinable @inline(__always) @_lifetime(borrow start)
    package init(start: UnsafePointer<UInt8>, count: Int) {
        unsafe self.start = start
        self.count = count
    }

    /// A view of `bytes` (the empty span when there are none).
    @unsafe @inlinable @inline(__always) @_lifetime(borrow bytes)
    package init(_ bytes: UnsafeRawBufferPointer) {
        // SAFETY: the span covers exactly `bytes`, which the caller keeps valid while it is used;
        // they are only ever read as bytes. No base address (no bytes) gives the empty span.
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            self = unsafe _overrideLifetime(ByteSpan.empty, borrowing: bytes)
            return
        }
        self = unsafe _overrideLifetime(ByteSpan(start: base.assumingMemoryBound(to: UInt8.self), count: bytes.count), borrowing: bytes)
    }

    /// The address of the first byte, for a C library that reads the bytes while the span is valid.
    /// SAFETY: never null; valid for `count` bytes, as long as the span is (see the invariant).
    @unsafe @inlinable package var baseAddress: UnsafePointer<UInt8> { unsafe start }

    /// Calls `body` with the bytes as a raw buffer, for a C library that reads them.
    @unsafe @inlinable package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        // SAFETY: exactly the span's `count` bytes, valid during `body` by the type's invariant;
        // `body` must not keep the buffer past the span's validity.
        try unsafe body(UnsafeRawBufferPointer(start: start, count: count))
    }

    /// The bytes of a string literal, which live as long as the program.
    @inlinable @inline(__always) @_lifetime(immortal)
    package init(_ literal: StaticString) {
        // SAFETY: a literal's bytes are in the program's read-only data for its whole run.
        self = unsafe _overrideLifetime(ByteSpan(start: literal.utf8Start, count: literal.utf8CodeUnitCount), borrowing: ())
    }

    /// Calls `body` with a view of `text`'s UTF-8 bytes, which cannot leave `body`.
    @inlinable
    package static func withUTF8<Result>(_ text: String, _ body: (ByteSpan) throws -> Result) rethrows -> Result {
        var text = text
        // SAFETY: `withUTF8` lends the string's contiguous UTF-8 storage for the duration of the
        // closure; the span does not escape `body`. An empty string may have no base address.
        return try text.withUTF8 { utf8 in
            guard let base = utf8.baseAddress, utf8.count > 0 else { return try body(.empty) }
            return try body(unsafe ByteSpan(start: base, count: utf8.count))
        }
    }

    /// No bytes.
    /// SAFETY: the empty literal's address, in the program's read-only data for its whole run:
    /// never null, so a C call on it (`memcmp` of 0 bytes) gets a valid address; no span reads it.
    @inlinable package static var empty: ByteSpan {
        @_lifetime(immortal) get { ByteSpan("" as StaticString) }
    }

    /// A span over a NUL-terminated C string.
    @unsafe @inlinable @inline(__always) @_lifetime(borrow cString)
    package init(cString: UnsafePointer<UInt8>) {
        // SAFETY: the caller passes a NUL-terminated string that stays valid while the span is
        // used; `strlen` reads up to its NUL, and `UInt8` and `CChar` may alias each other.
        self = unsafe _overrideLifetime(
            ByteSpan(start: cString, count: strlen(UnsafeRawPointer(cString).assumingMemoryBound(to: CChar.self))), borrowing: cString)
    }

    /// The byte at `i` (0 ≤ i < count; checked).
    @inlinable @inline(__always) package subscript(i: Int) -> UInt8 {
        precondition(i >= 0 && i < count, "ByteSpan index out of range")
        // SAFETY: 0 ≤ i < count (checked above), so the byte lies inside the span.
        return unsafe start[i]
    }

    /// The bytes as a buffer, for the standard library's and C's readers of one.
    /// SAFETY: the span's own `count` bytes; the buffer is valid as long as the span is.
    @unsafe @inlinable package var buffer: UnsafeBufferPointer<UInt8> { unsafe UnsafeBufferPointer(start: start, count: count) }

    /// True when the bytes equal `literal` (ASCII).
    @inlinable @inline(__always) package func equals(_ literal: StaticString) -> Bool {
        // SAFETY: `memcmp` runs only when both hold `count` bytes; a literal lives for the program.
        unsafe count == literal.utf8CodeUnitCount && memcmp(start, literal.utf8Start, count) == 0
    }

    @inlinable @inline(__always) package func hasPrefix(_ literal: StaticString) -> Bool {
        // SAFETY: `memcmp` reads the literal's length only after checking the span is as long.
        unsafe count >= literal.utf8CodeUnitCount && memcmp(start, literal.utf8Start, literal.utf8CodeUnitCount) == 0
    }

    @inlinable @inline(__always) package func equals(_ other: ByteSpan) -> Bool {
        // SAFETY: `memcmp` runs only when both spans hold `count` bytes; neither pointer is null.
        unsafe count == other.count && memcmp(start, other.start, count) == 0
    }

    @inlinable @inline(__always) package func equals(_ bytes: [UInt8]) -> Bool {
        // SAFETY: `memcmp` runs only when the array holds `count` bytes, inside the closure that
        // lends its storage (non-empty, so it has a base address).
        unsafe count == bytes.count && (count == 0 || bytes.withUnsafeBufferPointer { unsafe memcmp(start, $0.baseAddress!, count) == 0 })
    }

    /// The first `n` bytes (all of them when there are fewer).
    /// SAFETY: the new count is clamped to 0...count, so the prefix lies inside the span.
    @inlinable @_lifetime(copy self) package func prefix(_ n: Int) -> ByteSpan {
        unsafe _overrideLifetime(ByteSpan(start: start, count: Swift.max(0, Swift.min(n, count))), copying: self)
    }

    /// All but the first `n` bytes (none when there are fewer).
    /// SAFETY: `n` is clamped to 0...count, so the rest starts inside the span and ends with it.
    @inlinable @_lifetime(copy self) package func dropFirst(_ n: Int) -> ByteSpan {
        let n = Swift.max(0, Swift.min(n, count))
        return unsafe _overrideLifetime(ByteSpan(start: start + n, count: count - n), copying: self)
    }

    /// Feeds the bytes to `hasher`.
    @inlinable package func hash(into hasher: inout Hasher) {
        // SAFETY: the span's own `count` bytes (see the invariant), read during the call only.
        unsafe hasher.combine(bytes: UnsafeRawBufferPointer(buffer))
    }

    // SAFETY (these three): `buffer` is the span's own bytes, copied out during the call.
    /// The bytes as text (invalid UTF-8 repaired).
    @inlinable package var string: String { unsafe String(decoding: buffer, as: UTF8.self) }

    /// Appends the bytes to `array`.
    @inlinable package func append(to array: inout [UInt8]) { unsafe array.append(contentsOf: buffer) }
    /// A copy of the bytes.
    @inlinable package var bytes: [UInt8] { unsafe Array(buffer) }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
