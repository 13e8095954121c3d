import HealthTrailArchive
import HealthTrailBase

/// Inserts typed rows into one table of a `SQLiteConnection` with one prepared statement.
///
/// Types follow `ColumnType`: dates are stored as the CSV's text; a timestamp is stored once, as
/// Unix seconds in the column after it (`time_unix`), which range queries and indexes use, and
/// its text column (`time_utc`) is a virtual generated column that SQLite formats from those
/// seconds when a query reads it: the CSV's text, since the CSV writes every instant from its
/// seconds in that one format (`Timestamp.writeUTC`), without its 20 bytes in every row.
package final class SQLiteTableWriter: TableRowSink {
    /// The table written.
    package let schema: TableSchema
    /// Rows inserted so far.
    package private(set) var rows = 0
    private let insert: SQLiteStatement
    /// The statement parameter of each column's value (1-based): a timestamp's is its Unix
    /// seconds'.
    private let parameter: [Int32]

    /// The table's definition, its generated columns in place: what `sqlite_master` holds, from
    /// the start or, for a table created `deferringGenerated`, once `addGeneratedColumns` ran.
    package let definition: String

    /// Creates the table and prepares its insert. `generated`: columns after the schema's, each
    /// SQLite's type and the expression it computes (virtual: stored in no row); `constraints`:
    /// the keys beyond the typed columns. `deferringGenerated`: the table is created with its
    /// stored columns alone, for `addGeneratedColumns` to add the generated ones once its rows
    /// are in (SQLite computes every generated column of a row it inserts, a virtual one too,
    /// only to drop it).
    package init(
        _ connection: SQLiteConnection, schema: TableSchema, generated: [(name: String, type: String, expression: String)] = [],
        constraints: [String] = [], deferringGenerated: Bool = false
    ) throws {
        self.schema = schema
        var definitions: [String] = []
        var stored: [String] = []
        var storedDefinitions: [String] = []
        var parameter: [Int32] = []
        for column in schema.columns {
            let name = Self.quoted(column.name)
            if column.type == .timestamp {
                let seconds = Self.quoted(column.unixSecondsName)
                definitions.append(Self.generatedDefinition(name, "TEXT", Self.utcText(ofUnixSeconds: seconds)))
                definitions.append("\(seconds) INTEGER")
                storedDefinitions.append("\(seconds) INTEGER")
                stored.append(seconds)
            } else {
                definitions.append("\(name) \(Self.sqlType(column.type))")
                storedDefinitions.append("\(name) \(Self.sqlType(column.type))")
                stored.append(name)
            }
            parameter.append(Int32(stored.count))
        }
        definitions += generated.map { Self.generatedDefinition(Self.quoted($0.name), $0.type, $0.expression) }
        self.parameter = parameter
        let table = Self.quoted(schema.name)
        definition = "CREATE TABLE \(table) (\((definitions + constraints).joined(separator: ", ")))"
        try connection.execute(
            deferringGenerated ? "CREATE TABLE \(table) (\((storedDefinitions + constraints).joined(separator: ", ")))" : definition)
        let placeholders = Array(repeating: "?", count: stored.count).joined(separator: ", ")
        insert = try connection.prepare("INSERT INTO \(table) (\(stored.joined(separator: ", "))) VALUES (\(placeholders))")
    }

    /// Whether `connection` lets `addGeneratedColumns` rewrite its schema: SQLite forbids it
    /// under `SQLITE_DBCONFIG_DEFENSIVE`, which a build of the library may turn on.
    package static func canAddGeneratedColumns(_ connection: SQLiteConnection) -> Bool {
        let writable = (try? connection.execute("PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = sql WHERE 0")) != nil
        return (try? connection.execute("PRAGMA writable_schema = OFF")) != nil && writable
    }

    /// Gives the tables of `writers`, created `deferringGenerated` and their rows in, their
    /// generated columns, each in its place, by writing their `definition` into `sqlite_master`:
    /// SQLite's own procedure for a change that leaves every stored row as it is
    /// (https://sqlite.org/lang_altertable.html#otheralter), as adding a virtual column does,
    /// which takes no room in a row. The connection then reads its schema again
    /// (`writable_schema = RESET`), so what follows sees the columns.
    package static func addGeneratedColumns(of writers: [SQLiteTableWriter], on connection: SQLiteConnection) throws {
        try connection.execute("PRAGMA writable_schema = ON")
        let update = try connection.prepare("UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?")
        for writer in writers {
            update.bind(1, copying: writer.definition)
            update.bind(2, copying: writer.schema.name)
            try update.step()
        }
        try connection.execute("PRAGMA writable_schema = RESET")
    }

    /// The SQL of an instant's text, `2024-01-02T15:31:22Z`, from the (quoted) column of its
    /// Unix seconds; NULL where they are.
    package static func utcText(ofUnixSeconds column: String) -> String {
        "strftime('%Y-%m-%dT%H:%M:%SZ', \(column), 'unixepoch')"
    }

    /// A virtual generated column's definition.
    private static func generatedDefinition(_ quotedName: String, _ type: String, _ expression: String) -> String {
        "\(quotedName) \(type) GENERATED ALWAYS AS (\(expression)) VIRTUAL"
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

    /// NULL (a timestamp's Unix seconds, and so its text).
    package func null(_ column: Int) { insert.bindNull(parameter[column]) }

    /// TEXT, bound without a copy until the row is stepped.
    // SAFETY (the two text binds): `TableRowSink` text stays valid until the row's `endRow()`,
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

    /// The instant's Unix seconds, in the column after its text (generated from them).
    package func timestamp(_ column: Int, seconds: Int64) { insert.bind(parameter[column], seconds) }

    /// Inserts the row.
    package func endRow() throws {
        try insert.step()
        rows += 1
    }
}
