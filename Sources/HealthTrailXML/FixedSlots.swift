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

    /// A span over `length` bytes from `offset`: valid while the slots live and until they are
    /// written again.
    @inlinable @inline(__always) package func span(from offset: Int, count length: Int) -> ByteSpan {
        precondition(offset >= 0 && length >= 0 && offset <= count - length, "slot out of range")
        return unsafe ByteSpan(start: pointer + offset, count: length)
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
