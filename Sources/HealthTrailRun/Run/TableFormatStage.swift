import Foundation
import HealthTrailAnalysis
import HealthTrailArchive
import HealthTrailBase
import HealthTrailCommit
import HealthTrailWrite

/// The last writing stage: every table the run wrote as CSV, written again in the other formats
/// the run asks for (`healthtrail.db`, `parquet/<table>.parquet`), then the CSV files removed
/// from the staging folder when CSV is not one of them.
///
/// Each format reads the staged CSV files back through `CSVTableReader`, typed by
/// `OutputSchema`: a value is formatted once, so the formats agree on every row. The database
/// and the Parquet files are written at the same time, on two threads, a table at a time,
/// neither holding a table whole (Parquet keeps one bounded row group).
enum TableFormatStage {
    /// The files now in the staging folder with their rows, and the database, still open for
    /// `finish` to record the manifest's counts in.
    struct Result {
        var written: [(name: String, rows: Int)]
        var database: SQLiteConnection?

        /// Writes the `meta` table from the staged manifest.json and closes the database.
        func finish(manifestAt path: String) throws {
            guard let database else { return }
            do {
                try SQLiteOutputs.writeMeta(manifestAt: path, to: database)
            } catch {
                try? database.close()
                throw error
            }
            try database.close()
        }
    }

    /// A staged CSV file's table: its SQLite name and typed columns, nil for a file that is
    /// not one of `OutputSchema`'s. A record file's `value` and `original_value` are real
    /// numbers for a quantity type and text (words) for a category, whatever the data, so a
    /// folder of many runs has one schema per table; the decoder accepts only numbers for a
    /// quantity, and should a file still hold something else (the file at `path` is read to
    /// check) the column stays text rather than lose it.
    static func table(forCSV name: String, at path: String, quantity: Bool, zones: HeartRateZones) throws -> TableSchema? {
        guard name.hasSuffix(".csv") else { return nil }
        let stem = String(name.dropLast(4))
        if stem.hasPrefix("records/") {
            var table = OutputSchema.records.table(named: "records_" + stem.dropFirst("records/".count), zones: zones)
            guard quantity else { return table }
            let numbers = ["value", "original_value"]
            let notNumbers = Set(numbers).subtracting(try CSVTableReader.numericColumns(path, among: numbers))
            for i in table.columns.indices where numbers.contains(table.columns[i].name) && !notNumbers.contains(table.columns[i].name) {
                table.columns[i].type = .real
            }
            return table
        }
        guard let file = OutputSchema.csvFiles.first(where: { $0.name == name }) else { return nil }
        return file.table(named: stem, zones: zones)
    }

    /// Writes the formats `run` asks for beyond CSV from the staged CSV files in `written`;
    /// returns the files the staging folder then holds, and the database still open.
    static func run(_ run: RunContext, written: [(name: String, rows: Int)], zones: HeartRateZones) throws -> Result {
        let formats = run.options.formats
        guard formats != [.csv] else { return Result(written: written, database: nil) }
        let staging = run.staging
        let tables = try written.compactMap { file -> (csv: String, path: String, schema: TableSchema, rows: Int)? in
            let path = try staging.path(file.name)
            let quantity = run.outputs.quantityFiles.contains(file.name)
            guard let schema = try table(forCSV: file.name, at: path, quantity: quantity, zones: zones) else { return nil }
            return (file.name, path, schema, file.rows)
        }
        // SQLite on a thread of its own while this one writes the Parquet files.
        let database =
            formats.contains(.sqlite)
            ? BackgroundTask { () throws -> (SQLiteConnection, Int) in
                try SQLiteOutputs.write(
                    tables.map { ($0.path, $0.csv, $0.schema, $0.rows) }, to: staging.path(SQLiteOutputs.fileName),
                    pageSize: tables.reduce(0) { $0 + $1.rows } > 100_000 ? 65536 : 4096)
            } : nil
        let tableFiles = Set(tables.map(\.csv))
        var files = formats.contains(.csv) ? written : written.filter { !tableFiles.contains($0.name) }
        let label = [formats.contains(.sqlite) ? SQLiteOutputs.fileName : nil, formats.contains(.parquet) ? "parquet/" : nil]
            .compactMap { $0 }.joined(separator: ", ")
        run.progress.status("\(label)  \(tables.count) tables")
        do {
            if formats.contains(.parquet) {
                for (index, table) in tables.enumerated() {
                    run.progress.status("\(label)  \(index + 1) / \(tables.count) tables")
                    let name = "parquet/" + table.csv.dropLast(4) + ".parquet"
                    let writer = try ParquetTableWriter(
                        path: staging.path(name), schema: table.schema, createdBy: "healthtrail version \(HealthTrailVersion.current)")
                    let rows = try CSVTableReader.copy(table.path, named: table.csv, as: table.schema, into: writer)
                    try writer.close()
                    guard rows == table.rows else { throw TableFormats.rowCountMismatch(table.csv, rows, table.rows) }
                    files.append((name, rows))
                }
            }
        } catch {
            // The database thread ends before the staging folder goes; its connection is closed.
            if let (connection, _) = try? database?.value() { try? connection.close() }
            throw error
        }
        var result = Result(written: files, database: nil)
        if let database {
            let (connection, rows) = try database.value()
            // SQLite writes its file itself: it counts against the staging budget once written.
            let path = try staging.path(SQLiteOutputs.fileName)
            var status = stat()
            if stat(path, &status) == 0, let refusal = StagingBudget.covering(path)?.charge(Int(status.st_size), path: path) {
                try? connection.close()
                throw refusal
            }
            result.database = connection
            result.written.append((SQLiteOutputs.fileName, rows))
        }
        if !formats.contains(.csv) {
            for table in tables { unlink(table.path) }
            // The folder of records/*.csv, now empty.
            if let record = tables.first(where: { $0.csv.hasPrefix("records/") }) {
                rmdir((record.path as NSString).deletingLastPathComponent)
            }
        }
        result.written.sort { $0.name < $1.name }
        return result
    }
}
