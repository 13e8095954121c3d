import HealthTrailArchive
import HealthTrailBase

/// Inserts typed rows into one table of a `SQLiteConnection` with one prepared statement.
///
/// Types follow `ColumnType`: dates and timestamps are stored as the CSV's text, and each
/// timestamp also as Unix seconds in the column after it (`time_utc`, `time_unix`), which is
/// what range queries and indexes use.
package final class SQLiteTableWriter: TableRowSink {
    /// The table written.
    package let schema: TableSchema
    /// Rows inserted so far.
    package private(set) var rows = 0
    private let insert: SQLiteStatement
    /// The statement parameter of each column's value (1-based; a timestamp takes two).
    private let parameter: [Int32]

    /// Creates the table (`create` gives its column definitions and constraints beyond the
    /// plain typed columns) and prepares its insert.
    package init(_ connection: SQLiteConnection, schema: TableSchema, constraints: [String] = []) throws {
        self.schema = schema
        var definitions: [String] = []
        var parameter: [Int32] = []
        for column in schema.columns {
            parameter.append(Int32(definitions.count + 1))
            definitions.append("\(SQLiteTableWriter.quoted(column.name)) \(Self.sqlType(column.type))")
            if column.type == .timestamp { definitions.append("\(SQLiteTableWriter.quoted(column.unixSecondsName)) INTEGER") }
        }
        self.parameter = parameter
        let table = Self.quoted(schema.name)
        try connection.execute("CREATE TABLE \(table) (\((definitions + constraints).joined(separator: ", ")))")
        let placeholders = Array(repeating: "?", count: definitions.count).joined(separator: ", ")
        insert = try connection.prepare("INSERT INTO \(table) VALUES (\(placeholders))")
    }

    /// The SQLite type of a column: INTEGER, REAL or TEXT.
    package static func sqlType(_ type: ColumnType) -> String {
        switch type {
        case .integer, .boolean: return "INTEGER"
        case .real: return "REAL"
        case .text, .date, .timestamp: return "TEXT"
        }
    }

    /// `name` as an SQL identifier, quoted: `"records_step_count"`.
    package static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// NULL (and NULL Unix seconds for a timestamp).
    package func null(_ column: Int) {
        insert.bindNull(parameter[column])
        if schema.columns[column].type == .timestamp { insert.bindNull(parameter[column] + 1) }
    }

    /// TEXT, bound without a copy until the row is stepped.
    // SAFETY (the three text binds): `TableRowSink` text stays valid until the row's `endRow()`,
    // which steps the statement, so SQLite reads it while it is valid.
    package func text(_ column: Int, _ value: ByteSpan) { unsafe insert.bind(parameter[column], text: value) }

    /// INTEGER.
    package func integer(_ column: Int, _ value: Int64) { insert.bind(parameter[column], value) }

    /// REAL.
    package func real(_ column: Int, _ value: Double) { insert.bind(parameter[column], value) }

    /// INTEGER 1 or 0.
    package func boolean(_ column: Int, _ value: Bool) { insert.bind(parameter[column], value ? 1 as Int64 : 0) }

    /// The date's text, as in the CSV.
    package func date(_ column: Int, days: Int32, text: ByteSpan) { unsafe insert.bind(parameter[column], text: text) }

    /// The instant's text, and its Unix seconds in the column after it.
    package func timestamp(_ column: Int, seconds: Int64, text: ByteSpan) {
        unsafe insert.bind(parameter[column], text: text)
        insert.bind(parameter[column] + 1, seconds)
    }

    /// Inserts the row.
    package func endRow() throws {
        try insert.step()
        rows += 1
    }
}
