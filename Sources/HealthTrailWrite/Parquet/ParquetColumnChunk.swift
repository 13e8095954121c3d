import HealthTrailArchive
import HealthTrailBase

/// The values of one column in the row group being buffered, typed, ready to be cut into
/// pages: a definition level per row (1 for a value, 0 for null) and the non-null values in
/// the array of the column's type (the others stay empty).
///
/// Strings are numbered by the chunk's `ParquetDictionary` and only the numbers kept; once the
/// dictionary is full, the chunk turns to PLAIN: the numbers so far become the strings they
/// stand for, and later strings are appended as they come. The choice is per chunk (per row
/// group): the next row group starts with a dictionary again.
///
/// A struct kept in the writer's array, so that an append is one access to that array rather
/// than several to a class's stored properties, each of which Swift checks for exclusive
/// access at run time.
struct ParquetColumnChunk {
    let column: ParquetColumn
    /// 1 for each row with a value, 0 for each null: the column's definition levels
    /// (max level 1: a flat, optional column).
    var definitionLevels: [UInt8] = []
    /// Values of an `.int64` or `.timestampMicrosUTC` column.
    var int64Values: [Int64] = []
    /// Days of a `.date` column.
    var int32Values: [Int32] = []
    /// Values of a `.double` column.
    var doubleValues: [Double] = []
    /// Values of a `.boolean` column.
    var boolValues: [Bool] = []
    /// The distinct strings of a `.string` column, while it is dictionary-encoded.
    var dictionary = ParquetDictionary()
    /// Each string's number in `dictionary`, while the chunk is dictionary-encoded.
    var dictionaryIndices: [UInt32] = []
    /// Once the dictionary has overflowed: every string of the chunk, PLAIN-encoded.
    var plainStrings: [UInt8] = []
    /// Whether the chunk's strings are in `plainStrings` (not in the dictionary).
    private(set) var stringsArePlain = false
    /// An estimate of the memory the buffered values take, which decides when the row group
    /// is flushed: the encoded values' size plus a level byte per row.
    private(set) var bufferedBytes = 0

    init(_ column: ParquetColumn) {
        self.column = column
    }

    /// Rows buffered (values and nulls).
    var rowCount: Int { definitionLevels.count }

    /// Rows that are null.
    var nullCount: Int { definitionLevels.count - definitionLevels.reduce(0) { $0 + Int($1) } }

    /// Whether the chunk will be written with a dictionary page and RLE_DICTIONARY data pages.
    var usesDictionary: Bool { column.type == .string && !stringsArePlain && dictionary.count > 0 }

    // MARK: Appending

    @inline(__always) mutating func appendNull() {
        definitionLevels.append(0)
        bufferedBytes &+= 1
    }

    @inline(__always) mutating func append(int64 value: Int64) {
        definitionLevels.append(1)
        int64Values.append(value)
        bufferedBytes &+= 9
    }

    @inline(__always) mutating func append(int32 value: Int32) {
        definitionLevels.append(1)
        int32Values.append(value)
        bufferedBytes &+= 5
    }

    @inline(__always) mutating func append(double value: Double) {
        definitionLevels.append(1)
        doubleValues.append(value)
        bufferedBytes &+= 9
    }

    @inline(__always) mutating func append(bool value: Bool) {
        definitionLevels.append(1)
        boolValues.append(value)
        bufferedBytes &+= 2
    }

    /// Appends a string: its dictionary number, or, once the dictionary is full, its bytes.
    @inline(__always) mutating func append(string value: ByteSpan) {
        definitionLevels.append(1)
        if !stringsArePlain {
            let entryBytes = dictionary.entryBytes.count
            if let index = dictionary.index(of: value) {
                dictionaryIndices.append(UInt32(index))
                bufferedBytes &+= 5 &+ (dictionary.entryBytes.count &- entryBytes)
                return
            }
            switchToPlainStrings()
        }
        ParquetPlainEncoding.appendLength(value.count, to: &plainStrings)
        value.append(to: &plainStrings)
        bufferedBytes &+= 5 &+ value.count
    }

    /// The dictionary is full: rewrite the chunk's strings so far PLAIN and drop it.
    private mutating func switchToPlainStrings() {
        plainStrings.reserveCapacity(dictionaryIndices.count * 4 + dictionary.entryBytes.count)
        for index in dictionaryIndices {
            let entry = dictionary.entry(Int(index))
            ParquetPlainEncoding.appendLength(entry.count, to: &plainStrings)
            plainStrings.append(contentsOf: entry)
        }
        dictionary.removeAll()
        dictionaryIndices.removeAll()
        stringsArePlain = true
        bufferedBytes = definitionLevels.count + plainStrings.count
    }

    /// Empties the chunk for the next row group, keeping the arrays' memory.
    mutating func removeAll() {
        definitionLevels.removeAll(keepingCapacity: true)
        int64Values.removeAll(keepingCapacity: true)
        int32Values.removeAll(keepingCapacity: true)
        doubleValues.removeAll(keepingCapacity: true)
        boolValues.removeAll(keepingCapacity: true)
        dictionary.removeAll()
        dictionaryIndices.removeAll(keepingCapacity: true)
        plainStrings.removeAll(keepingCapacity: true)
        stringsArePlain = false
        bufferedBytes = 0
    }
}
