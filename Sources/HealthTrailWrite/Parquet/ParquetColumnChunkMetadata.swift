/// What the footer says about one column chunk: the Thrift `ColumnChunk` and the
/// `ColumnMetaData` inside it (where its pages are, their sizes and encodings, statistics).
struct ParquetColumnChunkMetadata {
    /// The column the chunk belongs to.
    var column: ParquetColumn
    /// Every encoding its pages use, values and levels alike.
    var encodings: [Int32]
    /// Rows in the chunk, nulls included.
    var valueCount: Int64
    /// All its pages' bytes before compression, page headers included.
    var totalUncompressedSize: Int64
    /// All its pages' bytes as stored, page headers included.
    var totalCompressedSize: Int64
    /// File offset of its first data page's header.
    var dataPageOffset: Int64
    /// File offset of its dictionary page's header, when it has one (it precedes the data pages).
    var dictionaryPageOffset: Int64?
    var statistics: ParquetStatistics

    /// The offset of the chunk's first page.
    var firstPageOffset: Int64 { dictionaryPageOffset ?? dataPageOffset }

    /// Writes a `ColumnChunk` struct as an element of a row group's list of columns.
    func encode(into encoder: inout ThriftCompactEncoder) {
        encoder.beginListStruct()
        // file_offset is deprecated: 0, as no ColumnMetaData is written outside the footer.
        encoder.field(2, i64: 0)
        encoder.beginStruct(3)   // ColumnMetaData
        encoder.field(1, i32: column.type.physicalType)
        encoder.beginList(2, elementType: ThriftCompactEncoder.FieldType.i32, count: encodings.count)
        for encoding in encodings { encoder.listElement(i32: encoding) }
        encoder.beginList(3, elementType: ThriftCompactEncoder.FieldType.binary, count: 1)
        encoder.listElement(string: column.name)
        encoder.field(4, i32: ParquetFormat.Codec.gzip)
        encoder.field(5, i64: valueCount)
        encoder.field(6, i64: totalUncompressedSize)
        encoder.field(7, i64: totalCompressedSize)
        encoder.field(9, i64: dataPageOffset)
        if let dictionaryPageOffset { encoder.field(11, i64: dictionaryPageOffset) }
        encoder.beginStruct(12)   // Statistics
        statistics.encodeFields(into: &encoder)
        encoder.endStruct()
        encoder.endStruct()   // ColumnMetaData
        encoder.endStruct()   // ColumnChunk
    }
}
