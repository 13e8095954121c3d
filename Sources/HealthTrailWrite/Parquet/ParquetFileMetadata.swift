/// The footer: the Thrift `FileMetaData` with the schema (a root and one OPTIONAL leaf per
/// column), the row groups, the writer's name and a type-defined sort order per column.
struct ParquetFileMetadata {
    /// The table's columns, in order.
    var columns: [ParquetColumn]
    var rowGroups: [ParquetRowGroupMetadata]
    /// Rows in the file.
    var rowCount: Int64
    /// `created_by`: "<application> version <version>" by parquet.thrift's convention.
    var createdBy: String

    /// The footer's bytes, in the compact protocol.
    func encoded() -> [UInt8] {
        var encoder = ThriftCompactEncoder()
        // 1, as parquet.thrift advises writers for the widest compatibility.
        encoder.field(1, i32: 1)
        encoder.beginList(2, elementType: ThriftCompactEncoder.FieldType.structure, count: columns.count + 1)
        encoder.beginListStruct()   // the root: a group of every column
        encoder.field(4, string: "schema")
        encoder.field(5, i32: Int32(columns.count))
        encoder.endStruct()
        for column in columns { encodeLeaf(column, into: &encoder) }
        encoder.field(3, i64: rowCount)
        encoder.beginList(4, elementType: ThriftCompactEncoder.FieldType.structure, count: rowGroups.count)
        for rowGroup in rowGroups { rowGroup.encode(into: &encoder) }
        encoder.field(6, string: createdBy)
        // Without column_orders readers may not trust min_value / max_value.
        encoder.beginList(7, elementType: ThriftCompactEncoder.FieldType.structure, count: columns.count)
        for _ in columns {
            encoder.beginListStruct()   // ColumnOrder (a union)
            encoder.emptyStruct(1)   // TYPE_ORDER: TypeDefinedOrder
            encoder.endStruct()
        }
        encoder.endStruct()
        return encoder.bytes
    }

    /// A leaf `SchemaElement`: physical type, OPTIONAL, name, ConvertedType and LogicalType.
    private func encodeLeaf(_ column: ParquetColumn, into encoder: inout ThriftCompactEncoder) {
        encoder.beginListStruct()
        encoder.field(1, i32: column.type.physicalType)
        encoder.field(3, i32: ParquetFormat.Repetition.optional)
        encoder.field(4, string: column.name)
        if let converted = column.type.convertedType { encoder.field(6, i32: converted) }
        switch column.type {
        case .string:
            encoder.beginStruct(10)   // LogicalType (a union)
            encoder.emptyStruct(1)   // STRING
            encoder.endStruct()
        case .date:
            encoder.beginStruct(10)
            encoder.emptyStruct(6)   // DATE
            encoder.endStruct()
        case .timestampMicrosUTC:
            encoder.beginStruct(10)
            encoder.beginStruct(8)   // TIMESTAMP: TimestampType
            encoder.field(1, bool: true)   // isAdjustedToUTC
            encoder.beginStruct(2)   // unit: TimeUnit (a union)
            encoder.emptyStruct(2)   // MICROS
            encoder.endStruct()
            encoder.endStruct()
            encoder.endStruct()
        case .int64, .double, .boolean:
            break
        }
        encoder.endStruct()
    }
}
