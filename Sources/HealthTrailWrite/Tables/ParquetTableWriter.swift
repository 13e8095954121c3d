import HealthTrailArchive
import HealthTrailBase

/// Writes typed rows to a Parquet file: the `TableRowSink` in front of `ParquetWriter`.
package final class ParquetTableWriter: TableRowSink {
    /// The Parquet file.
    package let writer: ParquetWriter

    /// Creates the file at `path` with the table's columns; `createdBy` names the writing
    /// application and its version in the footer.
    package init(path: String, schema: TableSchema, createdBy: String, rowGroupBytes: Int = 16 << 20) throws {
        writer = try ParquetWriter(
            path: path, columns: schema.columns.map { ParquetColumn($0.name, Self.parquetType($0.type)) }, rowGroupBytes: rowGroupBytes,
            createdBy: createdBy)
    }

    /// The Parquet type a column is stored as.
    package static func parquetType(_ type: ColumnType) -> ParquetColumnType {
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
    package func null(_ column: Int) { writer.appendNull(column) }
    /// A STRING value.
    package func text(_ column: Int, _ value: ByteSpan) { writer.append(column, string: value) }
    /// An INT64 value.
    package func integer(_ column: Int, _ value: Int64) { writer.append(column, int64: value) }
    /// A DOUBLE value.
    package func real(_ column: Int, _ value: Double) { writer.append(column, double: value) }
    /// A BOOLEAN value.
    package func boolean(_ column: Int, _ value: Bool) { writer.append(column, bool: value) }
    /// A DATE: the days; the text is SQLite's, not needed here.
    package func date(_ column: Int, days: Int32, text: ByteSpan) { writer.append(column, date: days) }
    /// A TIMESTAMP in microseconds.
    package func timestamp(_ column: Int, seconds: Int64) { writer.append(column, int64: seconds * 1_000_000) }
    /// Ends the row; a full row group is written out.
    package func endRow() throws { try writer.endRow() }

    /// Writes the footer and closes the file.
    package func close() throws { try writer.close() }
}
