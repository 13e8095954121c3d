import HealthTrailArchive
import HealthTrailBase

/// The distinct strings of one column chunk, numbered in order of first appearance: the
/// entries of its DICTIONARY_PAGE, whose numbers its data pages store instead of the strings.
///
/// An open-addressing hash table over one byte buffer: looking up a string that is already an
/// entry hashes and compares its bytes in place and allocates nothing; only a new entry copies
/// its bytes (into the shared buffer, which grows geometrically). The table refuses new entries
/// past `maximumEntries` or `maximumBytes`, where a dictionary stops paying for itself and the
/// chunk is written PLAIN instead.
struct ParquetDictionary {
    /// The most entries a chunk's dictionary may hold.
    static let maximumEntries = 65_536
    /// The most bytes of entries (their UTF-8, without length prefixes) it may hold.
    static let maximumBytes = 1 << 20

    /// Every entry's bytes, one after another.
    private(set) var entryBytes: [UInt8] = []
    /// Entry i is `entryBytes[entryOffsets[i]..<entryOffsets[i + 1]]`.
    private var entryOffsets: [Int32] = [0]
    /// Each entry's hash, kept so that growing the table need not rehash the bytes.
    private var entryHashes: [UInt32] = []
    /// The hash table: 0 for an empty slot, else an entry's number + 1. Its size is a power
    /// of two at least twice the entry count, so linear probing ends quickly.
    private var slots: [Int32] = Array(repeating: 0, count: 1024)

    /// How many entries there are.
    var count: Int { entryHashes.count }

    /// The entry numbered `index`.
    func entry(_ index: Int) -> ArraySlice<UInt8> {
        entryBytes[Int(entryOffsets[index])..<Int(entryOffsets[index + 1])]
    }

    /// The number of the entry equal to `value`, added if it is new; nil when adding it would
    /// pass `maximumEntries` or `maximumBytes` (the dictionary is then left as it was).
    @inline(__always)
    mutating func index(of value: ByteSpan) -> Int32? {
        let hash = Self.hash(value)
        let mask = slots.count - 1
        var slot = Int(hash) & mask
        while true {
            let occupant = slots[slot]
            if occupant == 0 { break }
            let entry = Int(occupant - 1)
            if entryHashes[entry] == hash && equals(entry, value) { return Int32(entry) }
            slot = (slot + 1) & mask
        }
        guard count < Self.maximumEntries, entryBytes.count + value.count <= Self.maximumBytes else { return nil }
        let entry = count
        value.append(to: &entryBytes)
        entryOffsets.append(Int32(entryBytes.count))
        entryHashes.append(hash)
        slots[slot] = Int32(entry + 1)
        if count * 2 > slots.count { grow() }
        return Int32(entry)
    }

    /// Forgets every entry, keeping the memory for the next chunk's.
    mutating func removeAll() {
        entryBytes.removeAll(keepingCapacity: true)
        entryOffsets.removeAll(keepingCapacity: true)
        entryOffsets.append(0)
        entryHashes.removeAll(keepingCapacity: true)
        for i in slots.indices { slots[i] = 0 }
    }

    /// The entries PLAIN-encoded, as the dictionary page holds them: each a 4-byte
    /// little-endian length, then its bytes.
    func plainEncoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(entryBytes.count + 4 * count)
        for i in 0..<count {
            let start = Int(entryOffsets[i]), end = Int(entryOffsets[i + 1])
            ParquetPlainEncoding.appendLength(end - start, to: &out)
            out.append(contentsOf: entryBytes[start..<end])
        }
        return out
    }

    /// Whether entry `index` holds exactly the bytes of `value`.
    @inline(__always)
    private func equals(_ index: Int, _ value: ByteSpan) -> Bool {
        let start = Int(entryOffsets[index])
        guard Int(entryOffsets[index + 1]) - start == value.count else { return false }
        for k in 0..<value.count where entryBytes[start + k] != value[k] { return false }
        return true
    }

    /// Doubles the table and reinserts every entry by its kept hash.
    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (entry, hash) in entryHashes.enumerated() {
            var slot = Int(hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(entry + 1)
        }
    }

    /// FNV-1a over the bytes, folded to 32 bits: short strings (units, source names) hash in a
    /// few cycles, and the table needs spread, not resistance to chosen collisions.
    @inline(__always)
    private static func hash(_ value: ByteSpan) -> UInt32 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for k in 0..<value.count { h = (h ^ UInt64(value[k])) &* 0x100_0000_01b3 }
        return UInt32(truncatingIfNeeded: h ^ (h >> 32))
    }
}
