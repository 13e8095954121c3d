import HealthTrailBase

/// Bytes held first in, first out: copies of short texts (a route point's CSV columns) kept past
/// the callback that delivered them, until their row is written, without an allocation each.
///
/// Every append gets a position that only grows; `span(at:count:)` reads it back until
/// `release(upTo:)` passes it. Released bytes at the front are reclaimed by moving the live
/// ones down, so memory stays about twice the bytes held at once.
@safe
package final class ByteQueue {
    /// The storage; bytes `live` ..< `end` (storage offsets) are held.
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Storage offset of the first held byte, and one past the last.
    private var live = 0
    private var end = 0
    /// The position of storage offset 0: positions are `base + offset`.
    private var base = 0

    package init(capacity: Int = 1 << 14) {
        self.capacity = Swift.max(64, capacity)
        // SAFETY: owned by this object, freed once in deinit.
        unsafe storage = UnsafeMutablePointer<UInt8>.allocate(capacity: self.capacity)
    }

    deinit {
        // SAFETY: the allocation of init or of the last `grow`; bytes are plain `UInt8`s.
        unsafe storage.deallocate()
    }

    /// Copies `bytes` in; returns their position.
    @inline(__always)
    package func append(_ bytes: ByteSpan) -> Int {
        if end + bytes.count > capacity { makeRoom(for: bytes.count) }
        let position = base + end
        // SAFETY: `makeRoom` left at least `bytes.count` bytes free from `end`; the source is a
        // caller's live span, which cannot overlap this private storage.
        unsafe (storage + end).update(from: bytes.baseAddress, count: bytes.count)
        end += bytes.count
        return position
    }

    /// The `count` bytes appended at `position`: valid until the next `append` or `release`,
    /// and borrowing this queue, so never stored.
    @inline(__always) @_lifetime(borrow self)
    package func span(at position: Int, count: Int) -> ByteSpan {
        let offset = position - base
        precondition(offset >= live && offset + count <= end, "ByteQueue: bytes already released")
        // SAFETY: checked just above: the bytes lie inside the held region, initialised by `append`.
        return unsafe _overrideLifetime(ByteSpan(start: storage + offset, count: count), borrowing: self)
    }

    /// Lets go of every byte before `position`.
    package func release(upTo position: Int) {
        live = Swift.min(end, Swift.max(live, position - base))
        if live == end {
            base += end
            live = 0
            end = 0
        }
    }

    /// Makes room for `count` more bytes: moves the held bytes to the front, and doubles the
    /// storage when they would still not fit in half of it.
    private func makeRoom(for count: Int) {
        let held = end - live
        if held + count > capacity / 2 {
            var newCapacity = capacity
            while held + count > newCapacity / 2 { newCapacity *= 2 }
            // SAFETY: a fresh allocation of `newCapacity` ≥ `held` bytes; the held bytes are
            // copied from the old storage, which is freed once, here.
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            unsafe grown.update(from: storage + live, count: held)
            unsafe storage.deallocate()
            unsafe storage = grown
            capacity = newCapacity
        } else if live > 0 {
            // SAFETY: both ranges lie inside the storage and may overlap, which raw
            // `copyMemory` (a memmove) allows; the bytes are plain `UInt8`s.
            unsafe UnsafeMutableRawPointer(storage).copyMemory(from: storage + live, byteCount: held)
        }
        base += live
        live = 0
        end = held
    }
}
