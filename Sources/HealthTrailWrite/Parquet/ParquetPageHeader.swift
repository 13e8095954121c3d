/// The Thrift `PageHeader` in front of every page: its kind, its sizes before and after
/// compression, and the kind's own header (a v1 data page's or a dictionary page's).
struct ParquetPageHeader {
    /// What the page holds.
    enum Kind {
        /// A data page (v1) of `valueCount` rows, nulls included, whose values use `encoding`;
        /// its definition and repetition levels use RLE.
        case data(valueCount: Int, encoding: Int32)
        /// The dictionary page of `entryCount` PLAIN-encoded entries.
        case dictionary(entryCount: Int)
    }

    var kind: Kind
    /// The page's bytes before compression (the header not included).
    var uncompressedSize: Int
    /// The page's bytes as stored (the header not included).
    var compressedSize: Int

    /// The header's bytes, in the compact protocol.
    func encoded() -> [UInt8] {
        var encoder = ThriftCompactEncoder()
        switch kind {
        case .data(let valueCount, let encoding):
            encoder.field(1, i32: ParquetFormat.PageType.dataPage)
            encoder.field(2, i32: Int32(uncompressedSize))
            encoder.field(3, i32: Int32(compressedSize))
            encoder.beginStruct(5)   // DataPageHeader
            encoder.field(1, i32: Int32(valueCount))
            encoder.field(2, i32: encoding)
            encoder.field(3, i32: ParquetFormat.Encoding.rle)   // definition levels
            encoder.field(4, i32: ParquetFormat.Encoding.rle)   // repetition levels (none: flat)
            encoder.endStruct()
        case .dictionary(let entryCount):
            encoder.field(1, i32: ParquetFormat.PageType.dictionaryPage)
            encoder.field(2, i32: Int32(uncompressedSize))
            encoder.field(3, i32: Int32(compressedSize))
            encoder.beginStruct(7)   // DictionaryPageHeader
            encoder.field(1, i32: Int32(entryCount))
            encoder.field(2, i32: ParquetFormat.Encoding.plain)
            encoder.endStruct()
        }
        encoder.endStruct()
        return encoder.bytes
    }
}
