/// A column chunk's `Statistics`: how many nulls, and the least and greatest values in the
/// column's type-defined order (the file's `column_orders` say so, which is what lets readers
/// skip row groups by them).
///
/// Only the `min_value` / `max_value` fields are written, not the deprecated `min` / `max`,
/// whose signed byte order is wrong for UTF-8 strings.
struct ParquetStatistics {
    /// Rows whose value is null.
    var nullCount: Int64
    /// The least value, PLAIN-encoded (for a string, its bytes without a length); nil when
    /// every value is null (or, for doubles, NaN).
    var minimum: [UInt8]?
    /// The greatest value, encoded as `minimum` is.
    var maximum: [UInt8]?
    /// NaNs among a double column's values: parquet.thrift asks writers of a floating-point
    /// column with the type-defined order to set it, zero included, so readers know the
    /// bounds exclude NaN. Nil for other types.
    var nanCount: Int64?

    /// Writes the `Statistics` struct's fields (the caller opens and ends the struct).
    func encodeFields(into encoder: inout ThriftCompactEncoder) {
        encoder.field(3, i64: nullCount)
        if let maximum { encoder.field(5, binary: maximum) }
        if let minimum { encoder.field(6, binary: minimum) }
        if let nanCount { encoder.field(9, i64: nanCount) }
    }
}
