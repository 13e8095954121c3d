import Foundation
import HealthTrailBase
import HealthTrailTestSupport
import HealthTrailWrite
import Testing

/// The SQLite table writer's two ways to a table with generated columns (created with them, or
/// with its stored columns alone and given them once the rows are in), read back by the sqlite3
/// shell: the same columns in the same places, the same values, a sound file.
@Suite struct SQLiteTableWriterTests {
    static let sqliteShell: Bool = (try? Support.runProgram("/usr/bin/env", ["sqlite3", "-version"]).status) == 0

    /// Writes two rows, one with every value and one with empty fields, to a new database.
    static func write(_ path: String, deferring: Bool) throws {
        let schema = TableSchema(
            name: "visits",
            columns: [
                TableColumn("place", .text), TableColumn("start_utc", .timestamp), TableColumn("utc_offset", .text),
                TableColumn("end_utc", .timestamp), TableColumn("steps", .integer),
            ])
        let db = try SQLiteConnection(creating: path)
        if deferring { #expect(SQLiteTableWriter.canAddGeneratedColumns(db)) }
        try db.execute("BEGIN")
        let writer = try SQLiteTableWriter(
            db, schema: schema,
            generated: [("start_local", "TEXT", "strftime('%Y-%m-%dT%H:%M:%S', start_unix, 'unixepoch', utc_offset)")],
            constraints: ["PRIMARY KEY (place)"], deferringGenerated: deferring)
        // A text's bytes stay valid until its row ends (`TableRowSink`): the row ends inside
        // the closures that lend them. 2024-01-02T15:31:22Z and 2024-01-02T16:00:00Z, as the
        // CSV writes them.
        try ByteSpan.withUTF8("Café") { place in
            try ByteSpan.withUTF8("+01:00") { offset in
                writer.text(0, place)
                writer.timestamp(1, seconds: 1_704_209_482)   // 2024-01-02T15:31:22Z
                writer.text(2, offset)
                writer.timestamp(3, seconds: 1_704_211_200)   // 2024-01-02T16:00:00Z
                writer.integer(4, 1200)
                try writer.endRow()
            }
        }
        try ByteSpan.withUTF8("Park") { place in
            writer.text(0, place)
            writer.timestamp(1, seconds: -2_208_988_800)   // 1900-01-01T00:00:00Z
            writer.null(2)
            writer.null(3)
            writer.null(4)
            try writer.endRow()
        }
        if deferring { try SQLiteTableWriter.addGeneratedColumns(of: [writer], on: db) }
        try db.execute("CREATE INDEX \"visits(start_unix)\" ON visits (start_unix)")
        try db.execute("COMMIT")
        try db.close()
    }

    static func sqlite(_ db: String, _ sql: String) throws -> String {
        let result = try Support.runProgram("/usr/bin/env", ["sqlite3", "-readonly", db, sql])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.enabled(if: sqliteShell, "no sqlite3 shell on PATH"), arguments: [false, true])
    func generatedColumnsReadAsTheCSVText(deferring: Bool) throws {
        let db = Support.temporaryDirectory("generated-\(deferring)") + "/t.db"
        try Self.write(db, deferring: deferring)
        #expect(try Self.sqlite(db, "PRAGMA integrity_check") == "ok")
        // name, type, hidden (2: a virtual generated column), in SELECT *'s order.
        #expect(
            try Self.sqlite(db, "SELECT name, type, hidden FROM pragma_table_xinfo('visits')")
                == """
                place|TEXT|0
                start_utc|TEXT|2
                start_unix|INTEGER|0
                utc_offset|TEXT|0
                end_utc|TEXT|2
                end_unix|INTEGER|0
                steps|INTEGER|0
                start_local|TEXT|2
                """)
        #expect(
            try Self.sqlite(db, "SELECT *, typeof(start_utc), typeof(end_utc) FROM visits ORDER BY rowid")
                == """
                Café|2024-01-02T15:31:22Z|1704209482|+01:00|2024-01-02T16:00:00Z|1704211200|1200|2024-01-02T16:31:22|text|text
                Park|1900-01-01T00:00:00Z|-2208988800||||||text|null
                """)
        #expect(try Self.sqlite(db, "SELECT place FROM visits WHERE start_utc >= '2024-01-02T15:31:22Z'") == "Café")
        let plan = try Self.sqlite(db, "EXPLAIN QUERY PLAN SELECT place FROM visits WHERE start_unix >= 1704209482")
        #expect(plan.contains("USING INDEX visits(start_unix)"), "\(plan)")
        #expect(try Self.sqlite(db, "SELECT count(*) FROM pragma_index_list('visits') WHERE origin = 'pk'") == "1")
    }
}
