import HealthTrailArchive
import HealthTrailDecode

/// Finds the records of an export that are exact copies of an earlier record.
///
/// Two records are the same when their type, `sourceName`, `unit`, `startDate`, `endDate` and
/// `value` are, as the export writes them (dates as instants with their offsets). Left out:
/// `device`, whose text carries a memory address that changes from record to record;
/// `creationDate` and `sourceVersion`, which an app that syncs its samples again writes anew;
/// and the record's metadata, which says how a value was measured, not what it was. The first of
/// a set of copies is the record; every later one is a copy.
///
/// Copies of a re-synced app lie anywhere in export.xml, months of records apart, so they cannot
/// be found with a window, and a set of every record would grow with the export. Instead each
/// record leaves a 24-byte entry (its `Fingerprint128`, its place in the file and its type) in
/// sorted runs spilled to disk (`SortedRunFile`); `finish()` merges the runs, where the copies of
/// a record come together, and returns the places of the copies as a bit set: one bit per record.
package final class RecordCopyFinder {
    /// One record's entry: sorted by fingerprint, then by place, so the first of a set of
    /// copies comes first.
    package struct Entry: BitwiseCopyable {
        var high: UInt64
        var low: UInt64
        var place: UInt32
        var type: UInt32
    }

    private let entries: SortedRunFile<Entry>
    /// Records seen so far: the next record's place.
    package var records: Int { recordsSeen }
    /// `records`' storage. Private: counted once per record, and a stored property other
    /// modules may read is checked for exclusive access at run time on each update.
    private var recordsSeen = 0
    /// The record types met, by the index their entries carry, and the index of the last one
    /// (records come grouped by type: nearly every record finds its type there).
    private var typeIdentifiers: [String] = []
    private var typeIndices: [ObjectIdentifier: Int] = [:]
    private var lastType: (id: ObjectIdentifier, index: Int)?

    /// - Parameters:
    ///   - spillPath: the file the sorted runs go to; nil keeps them in memory.
    ///   - runLength: entries sorted in memory at once.
    package init(spillPath: String?, runLength: Int = 1 << 16) {
        entries = SortedRunFile(path: spillPath, runLength: runLength, by: Self.precedes) { run in
            run.sort { a, b in a.high != b.high ? a.high < b.high : a.low != b.low ? a.low < b.low : a.place < b.place }
        }
    }

    /// By fingerprint, then by place: the first of a set of copies comes first.
    private static func precedes(_ a: Entry, _ b: Entry) -> Bool {
        a.high != b.high ? a.high < b.high : a.low != b.low ? a.low < b.low : a.place < b.place
    }

    /// The fingerprint of one record: the fields that make two records the same. The type and
    /// the source are given by their indices (`typeIndex` here, the decoder's `sourceIndex`),
    /// which stand for their names' bytes one to one within a run and are cheaper to add.
    @inline(__always)
    package static func fingerprint(_ record: DecodedRecord, typeIndex: Int) -> Fingerprint128 {
        var f = Fingerprint128()
        f.add(UInt64(truncatingIfNeeded: typeIndex) << 32 | UInt64(truncatingIfNeeded: record.sourceIndex) & 0xFFFF_FFFF)
        f.add(optional: record.unit)
        f.add(UInt64(bitPattern: record.start.utcSeconds))
        f.add(UInt64(bitPattern: record.end.utcSeconds))
        f.add(UInt64(UInt32(bitPattern: record.start.offsetMinutes)) << 32 | UInt64(UInt32(bitPattern: record.end.offsetMinutes)))
        f.add(optional: record.value)
        return f
    }

    /// Notes the next record in file order.
    @inline(__always)
    package func add(_ record: DecodedRecord, of type: RecordType) {
        let id = ObjectIdentifier(type)
        let index: Int
        if let last = lastType, last.id == id {
            index = last.index
        } else {
            index =
                typeIndices[id]
                ?? {
                    typeIdentifiers.append(type.identifier)
                    typeIndices[id] = typeIdentifiers.count - 1
                    return typeIdentifiers.count - 1
                }()
            lastType = (id, index)
        }
        let f = Self.fingerprint(record, typeIndex: index)
        entries.append(Entry(high: f.high, low: f.low, place: UInt32(truncatingIfNeeded: recordsSeen), type: UInt32(truncatingIfNeeded: index)))
        recordsSeen += 1
    }

    /// Merges the runs: every record that repeats an earlier one, by place.
    package func finish() throws -> RecordCopies {
        var copies = RecordCopies(records: records, typeIdentifiers: typeIdentifiers)
        var previous: Entry?
        try entries.drain { entry in
            if let p = previous, p.high == entry.high, p.low == entry.low {
                copies.insert(place: Int(entry.place), typeIndex: Int(entry.type))
            } else {
                previous = entry
            }
        }
        return copies
    }
}

/// The records of an export that copy an earlier one, by their place in export.xml (the n-th
/// record handed to the sink), with counts per record type.
package struct RecordCopies: Sendable {
    /// One bit per record: set for a copy.
    private var bits: [UInt64]
    /// Copies per record type identifier.
    package private(set) var countsByType: [String: Int] = [:]
    package private(set) var total = 0

    /// Records in the export: places run from 0 to `records - 1`.
    private let records: Int
    /// The record types, by the index `insert` is given.
    private let typeIdentifiers: [String]

    package init(records: Int, typeIdentifiers: [String]) {
        bits = []
        self.records = records
        self.typeIdentifiers = typeIdentifiers
    }

    package var isEmpty: Bool { total == 0 }

    mutating func insert(place: Int, typeIndex: Int) {
        if bits.isEmpty { bits = [UInt64](repeating: 0, count: (records + 63) / 64) }
        bits[place >> 6] |= 1 << UInt64(place & 63)
        countsByType[typeIdentifiers[typeIndex], default: 0] += 1
        total += 1
    }

    /// Whether the record at `place` is a copy.
    @inline(__always)
    package func contains(_ place: Int) -> Bool {
        guard !bits.isEmpty, place < records else { return false }
        return bits[place >> 6] & (1 << UInt64(place & 63)) != 0
    }
}
