/// What the footer says about one row group: the Thrift `RowGroup`.
struct ParquetRowGroupMetadata {
    /// One chunk per column, in schema order.
    var columns: [ParquetColumnChunkMetadata]
    /// Rows in the group.
    var rowCount: Int64

    /// Writes a `RowGroup` struct as an element of the footer's list of row groups.
    func encode(into encoder: inout ThriftCompactEncoder) {
        encoder.beginListStruct()
        encoder.beginList(1, elementType: ThriftCompactEncoder.FieldType.structure, count: columns.count)
        for column in columns { column.encode(into: &encoder) }
        encoder.field(2, i64: columns.reduce(0) { $0 + $1.totalUncompressedSize })   // total_byte_size
        encoder.field(3, i64: rowCount)
        if let first = columns.first { encoder.field(5, i64: first.firstPageOffset) }   // file_offset
        encoder.field(6, i64: columns.reduce(0) { $0 + $1.totalCompressedSize })
        encoder.endStruct()
    }
}
