/// A view of bytes owned elsewhere: by libxml2 (an attribute value, a name), valid only inside
/// the callback that delivered it, or by an `OwnedBytes`, valid while that object lives.
///
/// Decoders read attributes in place through spans instead of making a `String` per attribute:
/// at millions of records, that allocation would cost more than parsing.
///
/// The functions are inlinable: the decoders and writers call them once per attribute
/// byte or comparison, and a call across the module boundary for each would cost more than the
/// comparison.
public struct ByteSpan {
    @usableFromInline let start: UnsafePointer<UInt8>
    public let count: Int

    @inlinable @inline(__always) package init(start: UnsafePointer<UInt8>, count: Int) {
        self.start = start
        self.count = count
    }

    /// A view of `bytes` (the empty span when there are none).
    @inlinable @inline(__always) package init(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            self = .empty
            return
        }
        self.init(start: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
    }

    /// The address of the first byte, for a C library that reads the bytes while the span is valid.
    @inlinable package var baseAddress: UnsafePointer<UInt8> { start }

    /// Calls `body` with the bytes as a raw buffer, for a C library that reads them.
    @inlinable package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: start, count: count))
    }

    /// The bytes of a string literal, which live as long as the program.
    @inlinable @inline(__always) package init(_ literal: StaticString) {
        self.init(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
    }

    /// Calls `body` with a view of `text`'s UTF-8 bytes, valid inside `body` only.
    @inlinable
    public static func withUTF8<Result>(_ text: String, _ body: (ByteSpan) throws -> Result) rethrows -> Result {
        var text = text
        // SAFETY: `withUTF8` lends the string's contiguous UTF-8 storage for the duration of the
        // closure; the span does not escape `body`. An empty string may have no base address.
        return try text.withUTF8 { utf8 in
            guard let base = utf8.baseAddress, utf8.count > 0 else { return try body(.empty) }
            return try body(ByteSpan(start: base, count: utf8.count))
        }
    }

    /// No bytes.
    @inlinable package static var empty: ByteSpan { ByteSpan(start: emptyBytes, count: 0) }

    /// A span over a NUL-terminated C string.
    @inlinable @inline(__always) package init(cString: UnsafePointer<UInt8>) {
        self.init(start: cString, count: strlen(UnsafeRawPointer(cString).assumingMemoryBound(to: CChar.self)))
    }

    @inlinable @inline(__always) public subscript(i: Int) -> UInt8 { start[i] }

    @inlinable package var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: count) }

    /// True when the bytes equal `literal` (ASCII).
    @inlinable @inline(__always) public func equals(_ literal: StaticString) -> Bool {
        count == literal.utf8CodeUnitCount && memcmp(start, literal.utf8Start, count) == 0
    }

    @inlinable @inline(__always) public func hasPrefix(_ literal: StaticString) -> Bool {
        count >= literal.utf8CodeUnitCount && memcmp(start, literal.utf8Start, literal.utf8CodeUnitCount) == 0
    }

    @inlinable @inline(__always) public func equals(_ other: ByteSpan) -> Bool {
        count == other.count && memcmp(start, other.start, count) == 0
    }

    @inlinable @inline(__always) public func equals(_ bytes: [UInt8]) -> Bool {
        count == bytes.count && bytes.withUnsafeBufferPointer { memcmp(start, $0.baseAddress!, count) == 0 }
    }

    /// The first `n` bytes (all of them when there are fewer).
    @inlinable public func prefix(_ n: Int) -> ByteSpan { ByteSpan(start: start, count: Swift.max(0, Swift.min(n, count))) }

    @inlinable public func dropFirst(_ n: Int) -> ByteSpan { ByteSpan(start: start + min(n, count), count: max(0, count - n)) }

    /// Feeds the bytes to `hasher`.
    @inlinable public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes: UnsafeRawBufferPointer(buffer))
    }

    @inlinable public var string: String { String(decoding: buffer, as: UTF8.self) }

    /// Appends the bytes to `array`.
    @inlinable public func append(to array: inout [UInt8]) { array.append(contentsOf: buffer) }
    @inlinable public var bytes: [UInt8] { Array(buffer) }
}

/// What `ByteSpan.empty` points at: a byte no span reads.
@usableFromInline let emptyBytes: UnsafePointer<UInt8> = {
    let byte = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    byte.initialize(to: 0)
    return UnsafePointer(byte)
}()

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
