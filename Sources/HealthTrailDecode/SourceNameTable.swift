import HealthTrailArchive
import HealthTrailBase
import HealthTrailXML

/// Source indices by name bytes: an open-addressing table of 32-bit (hash, index) slots, at most
/// half full, whose names stay in a `NameBytes`.
///
/// An export can name a different source on every record. A dictionary keyed by `[UInt8]`
/// allocated a key per lookup, fed the hasher byte by byte and rehashed every name (a cache
/// miss each) whenever it grew, which made such exports cost over twice as much as ones with a
/// single source. Here a lookup hashes the span in one call and allocates nothing, and growing
/// reuses the stored hashes. A slot is 8 bytes: 32 bits of hash are plenty to skip most unequal
/// names, and indices are 32-bit like `NameBytes`' offsets.
package struct SourceNameTable {
    /// Slot → source index + 1, 0 for an empty slot; its count is a power of two.
    private var indices: [UInt32] = Array(repeating: 0, count: 64)
    /// Slot → the low 32 bits of its name's hash (meaningless in empty slots).
    private var hashes: [UInt32] = Array(repeating: 0, count: 64)
    private(set) var count = 0

    package static func hash(_ span: ByteSpan) -> Int {
        var hasher = Hasher()
        span.hash(into: &hasher)
        return hasher.finalize()
    }

    /// The index stored for `span`'s bytes, whose hash is `hash`; `names` holds every stored
    /// index's name.
    package func index(of span: ByteSpan, hash: Int, names: NameBytes) -> Int? {
        let mask = indices.count - 1
        let hash32 = UInt32(truncatingIfNeeded: hash)
        var slot = Int(hash32) & mask
        // Ends: at most half the slots are full, so the probe meets an empty one.
        while indices[slot] != 0 {
            let index = Int(indices[slot]) - 1
            if hashes[slot] == hash32 && names.equals(index, span) { return index }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Stores `index` (below `UInt32.max`) for a name that is not in the table yet, whose hash
    /// is `hash`.
    package mutating func insert(_ index: Int, hash: Int) {
        if (count + 1) * 2 > indices.count { grow() }
        place(UInt32(index + 1), hash: UInt32(truncatingIfNeeded: hash))
        count += 1
    }

    private mutating func place(_ slotValue: UInt32, hash: UInt32) {
        let mask = indices.count - 1
        var slot = Int(hash) & mask
        while indices[slot] != 0 { slot = (slot + 1) & mask }
        indices[slot] = slotValue
        hashes[slot] = hash
    }

    private mutating func grow() {
        let (oldIndices, oldHashes) = (indices, hashes)
        indices = Array(repeating: 0, count: oldIndices.count * 2)
        hashes = Array(repeating: 0, count: oldIndices.count * 2)
        for (value, hash) in zip(oldIndices, oldHashes) where value != 0 { place(value, hash: hash) }
    }
}
