/// A copy of some bytes in memory of its own, freed with it: for a name kept past the callback
/// that delivered it (a record type's identifier), which the hot paths compare as a `ByteSpan`
/// without reference counting. (Source names, of which there can be millions, share one
/// `NameBytes` instead.)
///
/// `span` borrows this object, so the compiler refuses to use it after the object is gone.
///
/// `@safe` under strict memory safety: the storage is private to this object and read only
/// through `span`, whose lifetime the compiler ties to the object's.
@safe package final class OwnedBytes {
    // SAFETY: this object owns `storage` (at least one byte, so even an empty copy has an
    // address of its own), holding `count` initialised bytes, never written after init, freed in deinit.
    @usableFromInline let storage: UnsafeMutablePointer<UInt8>
    @usableFromInline let count: Int

    package init<Bytes: Collection>(copying bytes: Bytes) where Bytes.Element == UInt8 {
        // SAFETY: a new allocation, which this object owns (see `storage`); it has room for
        // `bytes.count` elements, all initialised here.
        unsafe storage = UnsafeMutablePointer<UInt8>.allocate(capacity: Swift.max(1, bytes.count))
        _ = unsafe UnsafeMutableBufferPointer(start: storage, count: bytes.count).initialize(from: bytes)
        count = bytes.count
    }

    // SAFETY: `span`'s own bytes, copied during the call.
    package convenience init(copying span: ByteSpan) { unsafe self.init(copying: span.buffer) }

    /// The bytes, for as long as this object is borrowed.
    @inlinable package var span: ByteSpan {
        @_lifetime(borrow self) get {
            // SAFETY: `storage` holds `count` bytes until deinit, which the borrow of `self` defers.
            unsafe _overrideLifetime(ByteSpan(start: storage, count: count), borrowing: self)
        }
    }

    /// True when the bytes equal `span`'s.
    @inlinable @inline(__always) package func equals(_ span: ByteSpan) -> Bool { self.span.equals(span) }

    deinit {
        // SAFETY: `storage` is the allocation made in init, freed once, here; its bytes are
        // plain `UInt8`s, which need no deinitialisation.
        unsafe storage.deallocate()
    }
}
