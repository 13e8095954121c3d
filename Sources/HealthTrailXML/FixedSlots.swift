import HealthTrailArchive
import HealthTrailBase

/// A fixed number of values in memory of their own, read and written in place by index.
///
/// For the decoders' small tables updated once per element (the open elements, attribute
/// values, the recent sources, a point's fields): an array held by a class costs an exclusivity
/// check and a uniqueness check per write, this costs a bounds check and a store.
///
/// Inlinable, so that the decoders get it specialised for their `Element`.
@safe
package final class FixedSlots<Element> {
    // SAFETY: holds `count` initialised values from init to deinit; every access below checks
    // its index against `count`. Used by one thread at a time, like the decoder that holds it.
    @usableFromInline let pointer: UnsafeMutablePointer<Element>
    /// How many slots there are.
    package let count: Int

    /// `count` slots, each holding `value`.
    @inlinable package init(repeating value: Element, count: Int) {
        precondition(count > 0)
        self.count = count
        unsafe pointer = .allocate(capacity: count)
        unsafe pointer.initialize(repeating: value, count: count)
    }

    deinit {
        unsafe pointer.deinitialize(count: count)
        unsafe pointer.deallocate()
    }

    @inlinable package subscript(i: Int) -> Element {
        @inline(__always) get {
            precondition(UInt(bitPattern: i) < UInt(bitPattern: count), "slot out of range")
            return unsafe pointer[i]
        }
        @inline(__always) set {
            precondition(UInt(bitPattern: i) < UInt(bitPattern: count), "slot out of range")
            unsafe pointer[i] = newValue
        }
    }

    /// Sets the first `n` slots to `value`.
    @inlinable package func fill(_ value: Element, first n: Int) {
        precondition(n >= 0 && n <= count, "slot out of range")
        unsafe pointer.update(repeating: value, count: n)
    }
}

extension FixedSlots where Element == UInt8 {
    /// Copies `bytes` into the slots from `offset` on.
    @inlinable @inline(__always) package func copy(_ bytes: ByteSpan, to offset: Int) {
        precondition(offset >= 0 && bytes.count >= 0 && offset <= count - bytes.count, "slot out of range")
        // SAFETY: the range lies inside the slots (checked above); `update(from:count:)` allows
        // `bytes` to overlap them (a span from `span(from:count:)`).
        unsafe (pointer + offset).update(from: bytes.baseAddress, count: bytes.count)
    }

    /// A span over `length` bytes from `offset`, borrowing `owner`, the object that holds these
    /// slots (so the span cannot outlive them); valid until they are written again.
    @inlinable @inline(__always) @_lifetime(borrow owner)
    package func span<Owner: AnyObject>(from offset: Int, count length: Int, heldBy owner: Owner) -> ByteSpan {
        precondition(offset >= 0 && length >= 0 && offset <= count - length, "slot out of range")
        // SAFETY: the range lies inside the slots (checked above), which `owner` keeps alive.
        return unsafe _overrideLifetime(ByteSpan(start: pointer + offset, count: length), borrowing: owner)
    }
}

/// Where the bytes of a fixed number of spans are, by index: for the tables of the current
/// element's attribute values, which a decoder fills from one callback's spans and reads while
/// that element is decoded.
///
/// A `ByteSpan` cannot be stored, so these slots keep each one's address and count instead, and
/// make a span of them again on reading; that span borrows the object that owns the slots
/// (`heldBy`), so it is used in place and never stored either.
///
/// Invariant (the owner's to keep): a slot is read only while the bytes last set in it are
/// still valid: during the callback that delivered them, or while the replayed block they lie in
/// is. Used by one thread at a time, like the decoder that holds it.
@unsafe
package final class ByteSpanSlots {
    // SAFETY: `count` initialised starts and counts from init to deinit; every access below
    // checks its index against `count`. A start is never null (`ByteSpan`'s invariant).
    @usableFromInline let starts: UnsafeMutablePointer<UnsafePointer<UInt8>>
    @usableFromInline let counts: UnsafeMutablePointer<Int>
    /// How many slots there are.
    package let count: Int

    /// `count` slots, each holding the empty span.
    package init(count: Int) {
        precondition(count > 0)
        unsafe self.count = count
        unsafe starts = .allocate(capacity: count)
        unsafe starts.initialize(repeating: ByteSpan.empty.start, count: count)
        unsafe counts = .allocate(capacity: count)
        unsafe counts.initialize(repeating: 0, count: count)
    }

    deinit {
        // SAFETY: the allocations of init, freed once; pointers and counts need no deinitialising.
        unsafe starts.deallocate()
        unsafe counts.deallocate()
    }

    /// Remembers where `span`'s bytes are in slot `i`.
    @inlinable @inline(__always) package func set(_ i: Int, _ span: ByteSpan) {
        unsafe precondition(UInt(bitPattern: i) < UInt(bitPattern: count), "slot out of range")
        // SAFETY: `i` is inside the slots (checked above).
        unsafe starts[i] = span.start
        unsafe counts[i] = span.count
    }

    /// The span last set in slot `i`, borrowing `owner`, the object that holds these slots.
    @inlinable @inline(__always) @_lifetime(borrow owner)
    package func span<Owner: AnyObject>(_ i: Int, heldBy owner: Owner) -> ByteSpan {
        unsafe precondition(UInt(bitPattern: i) < UInt(bitPattern: count), "slot out of range")
        // SAFETY: `i` is inside the slots (checked above); the bytes are valid by the invariant.
        return unsafe _overrideLifetime(ByteSpan(start: starts[i], count: counts[i]), borrowing: owner)
    }
}

/// A reference that costs no retain and no release to use, to an object something else keeps
/// alive: for the objects a decoder reaches once per record (a record's type, its writer).
///
/// SAFETY: whoever makes one keeps the object alive as long as the `Unretained` is used, and
/// says where it does so.
@unsafe
@usableFromInline package struct Unretained<Object: AnyObject> {
    @usableFromInline let reference: Unmanaged<Object>

    @inlinable @inline(__always) package init(_ object: Object) { unsafe reference = unsafe .passUnretained(object) }

    /// Calls `body` with the object.
    @inlinable @inline(__always) package func with<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        try unsafe reference._withUnsafeGuaranteedRef(body)
    }

    /// True when this refers to `object`.
    @inlinable @inline(__always) package func refers(to object: Object) -> Bool {
        unsafe reference.toOpaque() == Unmanaged.passUnretained(object).toOpaque()
    }
}
