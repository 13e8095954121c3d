/// Writes Thrift structs in the compact protocol, the encoding of every Parquet header and of
/// the footer: varints, zigzag integers and field ids sent as deltas from the previous field.
///
/// Only what Parquet's metadata uses: i32, i64, bool, binary and string fields, nested structs
/// and unions, and lists of i32, strings and structs. The caller writes each struct's fields in
/// increasing id order (as parquet.thrift numbers them), then `endStruct()`.
struct ThriftCompactEncoder {
    /// The compact protocol's type codes (field headers and list element types).
    enum FieldType {
        static let booleanTrue: UInt8 = 1
        static let booleanFalse: UInt8 = 2
        static let i32: UInt8 = 5
        static let i64: UInt8 = 6
        static let binary: UInt8 = 8
        static let list: UInt8 = 9
        static let structure: UInt8 = 12
    }

    /// The encoded bytes so far.
    private(set) var bytes: [UInt8] = []
    /// The id of the last field written in the struct being written: a field header holds the
    /// difference when it is 1...15.
    private var lastFieldId: Int16 = 0
    /// The enclosing structs' `lastFieldId`s, restored when a nested struct ends.
    private var enclosing: [Int16] = []

    init() { bytes.reserveCapacity(256) }

    // MARK: Fields

    /// An i32 (or enum) field.
    mutating func field(_ id: Int16, i32 value: Int32) {
        fieldHeader(id, FieldType.i32)
        varint(zigzag(Int64(value)))
    }

    /// An i64 field.
    mutating func field(_ id: Int16, i64 value: Int64) {
        fieldHeader(id, FieldType.i64)
        varint(zigzag(value))
    }

    /// A bool field: the compact protocol folds the value into the field's type code.
    mutating func field(_ id: Int16, bool value: Bool) {
        fieldHeader(id, value ? FieldType.booleanTrue : FieldType.booleanFalse)
    }

    /// A binary field: a varint length, then the bytes.
    mutating func field(_ id: Int16, binary value: [UInt8]) {
        fieldHeader(id, FieldType.binary)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A string field (binary holding UTF-8).
    mutating func field(_ id: Int16, string value: String) {
        field(id, binary: Array(value.utf8))
    }

    /// Opens a struct (or union) field; its own fields follow, then `endStruct()`.
    mutating func beginStruct(_ id: Int16) {
        fieldHeader(id, FieldType.structure)
        enclosing.append(lastFieldId)
        lastFieldId = 0
    }

    /// An empty struct field, such as a union's member that carries no data (`StringType`).
    mutating func emptyStruct(_ id: Int16) {
        beginStruct(id)
        endStruct()
    }

    /// Ends the struct being written (a stop byte); at the outermost level, ends the message.
    mutating func endStruct() {
        bytes.append(0)
        lastFieldId = enclosing.popLast() ?? 0
    }

    // MARK: Lists

    /// Opens a list field of `count` elements of `elementType` (a `FieldType` code); write
    /// the elements with the `listElement` functions or, for structs, `beginListStruct()`.
    mutating func beginList(_ id: Int16, elementType: UInt8, count: Int) {
        fieldHeader(id, FieldType.list)
        if count < 15 {
            bytes.append(UInt8(count) << 4 | elementType)
        } else {
            bytes.append(0xF0 | elementType)
            varint(UInt64(count))
        }
    }

    /// An i32 (or enum) element of a list.
    mutating func listElement(i32 value: Int32) { varint(zigzag(Int64(value))) }

    /// A string element of a list.
    mutating func listElement(string value: String) {
        let utf8 = Array(value.utf8)
        varint(UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// Opens a struct element of a list (no field header); end it with `endStruct()`.
    mutating func beginListStruct() {
        enclosing.append(lastFieldId)
        lastFieldId = 0
    }

    // MARK: Encoding

    /// A field header: the id as a delta in the high nibble when it is 1...15 after the last
    /// one, otherwise the type alone followed by the id as a zigzag varint.
    private mutating func fieldHeader(_ id: Int16, _ type: UInt8) {
        let delta = Int(id) - Int(lastFieldId)
        if delta > 0 && delta <= 15 {
            bytes.append(UInt8(delta) << 4 | type)
        } else {
            bytes.append(type)
            varint(zigzag(Int64(id)))
        }
        lastFieldId = id
    }

    /// ULEB-128: seven bits a byte, low bits first, the high bit set on all but the last.
    private mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Zigzag: small magnitudes of either sign become small unsigned numbers.
    private func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }
}
