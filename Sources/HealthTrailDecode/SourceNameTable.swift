import HealthTrailArchive
import HealthTrailXML

/// Source indices by name bytes: an open-addressing table of (hash, index) slots, at most half
/// full, whose names stay in the decoder's `sourceNames`.
///
/// An export can name a different source on every record. A dictionary keyed by `[UInt8]`
/// allocated a key per lookup, fed the hasher byte by byte and rehashed every name (a cache
/// miss each) whenever it grew, which made such exports cost over twice as much as ones with a
/// single source. Here a lookup hashes the span in one call and allocates nothing, and growing
/// reuses the stored hashes.
package struct SourceNameTable {
    /// Slot → source index, −1 for an empty slot; its count is a power of two.
    private var indices: [Int32] = Array(repeating: -1, count: 64)
    /// Slot → the hash of its name (meaningless in empty slots).
    private var hashes: [Int] = Array(repeating: 0, count: 64)
    private(set) var count = 0

    package static func hash(_ span: ByteSpan) -> Int {
        var hasher = Hasher()
        span.hash(into: &hasher)
        return hasher.finalize()
    }

    /// The index stored for `span`'s bytes, whose hash is `hash`; `names` holds every stored
    /// index's name.
    package func index(of span: ByteSpan, hash: Int, names: [ByteSpan]) -> Int? {
        let mask = indices.count - 1
        var slot = hash & mask
        // Ends: at most half the slots are full, so the probe meets an empty one.
        while indices[slot] >= 0 {
            let index = Int(indices[slot])
            if hashes[slot] == hash && span.equals(names[index]) { return index }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Stores `index` for a name that is not in the table yet, whose hash is `hash`.
    package mutating func insert(_ index: Int, hash: Int) {
        if (count + 1) * 2 > indices.count { grow() }
        place(Int32(index), hash: hash)
        count += 1
    }

    private mutating func place(_ index: Int32, hash: Int) {
        let mask = indices.count - 1
        var slot = hash & mask
        while indices[slot] >= 0 { slot = (slot + 1) & mask }
        indices[slot] = index
        hashes[slot] = hash
    }

    private mutating func grow() {
        let (oldIndices, oldHashes) = (indices, hashes)
        indices = Array(repeating: -1, count: oldIndices.count * 2)
        hashes = Array(repeating: 0, count: oldIndices.count * 2)
        for (index, hash) in zip(oldIndices, oldHashes) where index >= 0 { place(index, hash: hash) }
    }
}
