/// A column's physical and logical type in a `ParquetWriter`'s file. Every column is OPTIONAL
/// (nullable) and flat (no nesting), which is all HealthTrail's tables need.
package enum ParquetColumnType: Sendable, Equatable {
    /// INT64, no logical type.
    case int64
    /// DOUBLE.
    case double
    /// BYTE_ARRAY with logical type STRING (UTF-8) and ConvertedType UTF8.
    case string
    /// BOOLEAN.
    case boolean
    /// INT32 with logical type DATE (days since 1970-01-01) and ConvertedType DATE.
    case date
    /// INT64 with logical type TIMESTAMP(isAdjustedToUTC: true, unit: MICROS) and ConvertedType
    /// TIMESTAMP_MICROS.
    case timestampMicrosUTC
}

extension ParquetColumnType {
    /// The Parquet physical type (`Type` in parquet.thrift).
    var physicalType: Int32 {
        switch self {
        case .boolean: ParquetFormat.PhysicalType.boolean
        case .date: ParquetFormat.PhysicalType.int32
        case .int64, .timestampMicrosUTC: ParquetFormat.PhysicalType.int64
        case .double: ParquetFormat.PhysicalType.double
        case .string: ParquetFormat.PhysicalType.byteArray
        }
    }

    /// The legacy ConvertedType readers that predate logical types understand, if any.
    var convertedType: Int32? {
        switch self {
        case .string: ParquetFormat.ConvertedType.utf8
        case .date: ParquetFormat.ConvertedType.date
        case .timestampMicrosUTC: ParquetFormat.ConvertedType.timestampMicros
        case .int64, .double, .boolean: nil
        }
    }
}
