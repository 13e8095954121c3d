/// The numbers parquet.thrift gives its enums, by the names it gives them, so that the
/// encoders below say which value they write rather than a bare integer.
enum ParquetFormat {
    /// The four bytes that open and close every Parquet file.
    static let magic: [UInt8] = Array("PAR1".utf8)

    /// `enum Type`.
    enum PhysicalType {
        static let boolean: Int32 = 0
        static let int32: Int32 = 1
        static let int64: Int32 = 2
        static let double: Int32 = 5
        static let byteArray: Int32 = 6
    }

    /// `enum ConvertedType`.
    enum ConvertedType {
        static let utf8: Int32 = 0
        static let date: Int32 = 6
        static let timestampMicros: Int32 = 10
    }

    /// `enum FieldRepetitionType`.
    enum Repetition {
        static let optional: Int32 = 1
    }

    /// `enum Encoding`.
    enum Encoding {
        static let plain: Int32 = 0
        static let rle: Int32 = 3
        static let rleDictionary: Int32 = 8
    }

    /// `enum CompressionCodec`.
    enum Codec {
        static let gzip: Int32 = 2
    }

    /// `enum PageType`.
    enum PageType {
        static let dataPage: Int32 = 0
        static let dictionaryPage: Int32 = 2
    }
}
