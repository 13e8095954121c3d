import HealthTrailArchive
import HealthTrailBase

/// Writes typed rows to a Parquet file: the `TableRowSink` in front of `ParquetWriter`.
public final class ParquetTableWriter: TableRowSink {
    /// The Parquet file.
    public let writer: ParquetWriter

    /// Creates the file at `path` with the table's columns; `createdBy` names the writing
    /// application and its version in the footer.
    public init(path: String, schema: TableSchema, createdBy: String, rowGroupBytes: Int = 16 << 20) throws {
        writer = try ParquetWriter(
            path: path, columns: schema.columns.map { ParquetColumn($0.name, Self.parquetType($0.type)) }, rowGroupBytes: rowGroupBytes,
            createdBy: createdBy)
    }

    /// The Parquet type a column is stored as.
    public static func parquetType(_ type: ColumnType) -> ParquetColumnType {
        switch type {
        case .text: return .string
        case .integer: return .int64
        case .real: return .double
        case .boolean: return .boolean
        case .date: return .date
        case .timestamp: return .timestampMicrosUTC
        }
    }

    /// A null (no definition level 1).
    public func null(_ column: Int) { writer.appendNull(column) }
    /// A STRING value.
    public func text(_ column: Int, _ value: ByteSpan) { writer.append(column, string: value) }
    /// An INT64 value.
    public func integer(_ column: Int, _ value: Int64) { writer.append(column, int64: value) }
    /// A DOUBLE value.
    public func real(_ column: Int, _ value: Double) { writer.append(column, double: value) }
    /// A BOOLEAN value.
    public func boolean(_ column: Int, _ value: Bool) { writer.append(column, bool: value) }
    /// A DATE: the days; the text is SQLite's, not needed here.
    public func date(_ column: Int, days: Int32, text: ByteSpan) { writer.append(column, date: days) }
    /// A TIMESTAMP in microseconds.
    public func timestamp(_ column: Int, seconds: Int64, text: ByteSpan) { writer.append(column, int64: seconds * 1_000_000) }
    /// Ends the row; a full row group is written out.
    public func endRow() throws { try writer.endRow() }

    /// Writes the footer and closes the file.
    public func close() throws { try writer.close() }
}
