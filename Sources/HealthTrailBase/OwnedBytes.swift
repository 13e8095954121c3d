/// A copy of some bytes in memory of its own, freed with it: for a name kept past the callback
/// that delivered it (a record type's identifier), which the hot paths compare as a `ByteSpan`
/// without reference counting. (Source names, of which there can be millions, share one
/// `NameBytes` instead.)
///
/// `span` is valid exactly as long as this object lives: keep the object beside the span.
package final class OwnedBytes {
    package let span: ByteSpan

    package init<Bytes: Collection>(copying bytes: Bytes) where Bytes.Element == UInt8 {
        // SAFETY: this object owns `storage` (at least one byte, so even an empty copy has an
        // address of its own) and frees it in deinit; `span` is valid exactly as long as it lives.
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: Swift.max(1, bytes.count))
        // SAFETY: `storage` has room for `bytes.count` elements, all initialised here.
        _ = UnsafeMutableBufferPointer(start: storage, count: bytes.count).initialize(from: bytes)
        span = ByteSpan(start: storage, count: bytes.count)
    }

    package convenience init(copying span: ByteSpan) { self.init(copying: span.buffer) }

    deinit {
        // SAFETY: `span.start` is the allocation made in init, freed once, here; its bytes are
        // plain `UInt8`s, which need no deinitialisation.
        UnsafeMutablePointer(mutating: span.start).deallocate()
    }
}
