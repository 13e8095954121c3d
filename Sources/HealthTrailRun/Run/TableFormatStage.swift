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
/// The staged CSV files are read back once each through `CSVTableReader`, typed by
/// `OutputSchema`: a value is formatted once, so the formats agree on every row. The rows go to
/// the Parquet file on the reading thread and, in bounded batches (`TypedRowQueue`), to the
/// database on a thread of its own, so neither holds a table whole (Parquet keeps one bounded
/// row group).
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
        // Each staged CSV file is read once, here: its rows go to the Parquet file on this thread
        // and, in batches, to the database on a thread of its own.
        let queue = formats.contains(.sqlite) ? TypedRowQueue() : nil
        let database = queue.map { queue in
            BackgroundTask { () throws -> (SQLiteConnection, Int) in
                do {
                    return try SQLiteOutputs.write(
                        tables.map { ($0.csv, $0.schema) }, from: queue, to: staging.path(SQLiteOutputs.fileName),
                        pageSize: tables.reduce(0) { $0 + $1.rows } > 100_000 ? 65536 : 4096)
                } catch {
                    queue.cancel()
                    throw error
                }
            }
        }
        let tableFiles = Set(tables.map(\.csv))
        var files = formats.contains(.csv) ? written : written.filter { !tableFiles.contains($0.name) }
        let label = [formats.contains(.sqlite) ? SQLiteOutputs.fileName : nil, formats.contains(.parquet) ? "parquet/" : nil]
            .compactMap { $0 }.joined(separator: ", ")
        run.progress.status("\(label)  \(tables.count) tables")
        do {
            for (index, table) in tables.enumerated() {
                run.progress.status("\(label)  \(index + 1) / \(tables.count) tables")
                let name = "parquet/" + table.csv.dropLast(4) + ".parquet"
                let parquet =
                    formats.contains(.parquet)
                    ? try ParquetTableWriter(
                        path: staging.path(name), schema: table.schema, createdBy: "healthtrail version \(HealthTrailVersion.current)")
                    : nil
                let rows: Int
                if let queue {
                    try queue.send(.begin(table: index))
                    let tee = TypedRowTee(local: parquet, queue: queue, columns: table.schema.columns.count)
                    rows = try CSVTableReader.copy(table.path, named: table.csv, as: table.schema, into: tee)
                    try tee.flush()
                    try queue.send(.end(table: index, rows: rows))
                } else if let parquet {
                    rows = try CSVTableReader.copy(table.path, named: table.csv, as: table.schema, into: parquet)
                } else {
                    continue
                }
                guard rows == table.rows else { throw TableFormats.rowCountMismatch(table.csv, rows, table.rows) }
                if let parquet {
                    try parquet.close()
                    files.append((name, rows))
                }
            }
            queue?.finish()
        } catch {
            queue?.finish(throwing: error)
            // The database thread ends before the staging folder goes; its connection is closed.
            // When this thread's `send` gave up because that thread had stopped, its error says why.
            var databaseError: Error?
            do {
                if let (connection, _) = try database?.value() { try? connection.close() }
            } catch {
                databaseError = error
            }
            if error is TypedRowQueue.Cancelled, let databaseError { throw databaseError }
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
