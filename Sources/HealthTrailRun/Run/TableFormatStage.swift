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
///
/// The stage starts early: once export.xml has been read, the tables its records fill
/// (`ExportOutputs.closeExportXMLTables`) are written on a thread of their own while the routes
/// and the analysis run (`start`); the rest follow once every CSV file is closed (`finish`).
final class TableFormatStage {
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
    static func table(forCSV name: String, at path: String, quantity: Bool, zones: HeartRateZones?) throws -> TableSchema? {
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

    private let formats: TableFormats
    /// The database's rows, nil without `sqlite`.
    private let queue: TypedRowQueue?
    private let database: BackgroundTask<(SQLiteConnection, Int)>?
    /// The early tables' writing, with the tables and the Parquet files it wrote.
    private let early: BackgroundTask<(tables: [StagedTable], parquet: [(name: String, rows: Int)])>
    /// Set once `finish` has the database: a failure after it leaves the connection to `Result`.
    private var finished = false

    /// A staged CSV file with its table.
    struct StagedTable {
        var csv: String
        var path: String
        var schema: TableSchema
        var rows: Int
    }

    /// Starts writing the formats `run` asks for beyond CSV, with `first` (closed CSV files and
    /// their rows) on a thread of its own; nil when CSV is the only format.
    static func start(_ run: RunContext, first: [(name: String, rows: Int)]) throws -> TableFormatStage? {
        guard run.options.formats != [.csv] else { return nil }
        return try TableFormatStage(run, first: first)
    }

    private init(_ run: RunContext, first: [(name: String, rows: Int)]) throws {
        formats = run.options.formats
        let staging = run.staging
        let queue = formats.contains(.sqlite) ? TypedRowQueue() : nil
        self.queue = queue
        // The tables export.xml filled are most of an export's rows: a database of more than
        // 100,000 of them gets large pages.
        let pageSize = first.reduce(0) { $0 + $1.rows } > 100_000 ? 65536 : 4096
        database = queue.map { queue in
            BackgroundTask { () throws -> (SQLiteConnection, Int) in
                do {
                    return try SQLiteOutputs.write(from: queue, to: staging.path(SQLiteOutputs.fileName), pageSize: pageSize)
                } catch {
                    queue.cancel()
                    throw error
                }
            }
        }
        let tables = try Self.tables(first, run: run, zones: nil)
        let formats = formats
        early = BackgroundTask { () throws -> (tables: [StagedTable], parquet: [(name: String, rows: Int)]) in
            (tables, try Self.write(tables, formats: formats, queue: queue, staging: staging, progress: nil))
        }
        // Held by the run until it ends (the stage keeps no reference to the run: no cycle).
        run.waitBeforeDiscard { [self] in abandon() }
    }

    /// Writes the tables of `written` (every staged CSV file and its rows) not written yet, waits
    /// for all of them, and returns the files the staging folder then holds, with the database
    /// still open.
    func finish(_ run: RunContext, written: [(name: String, rows: Int)], zones: HeartRateZones) throws -> Result {
        let staging = run.staging
        var parquet: [(name: String, rows: Int)] = []
        var tables: [StagedTable] = []
        do {
            let first = try early.value()
            let done = Set(first.tables.map(\.csv))
            let rest = try Self.tables(written.filter { !done.contains($0.name) }, run: run, zones: zones)
            tables = first.tables + rest
            parquet = first.parquet + (try Self.write(rest, formats: formats, queue: queue, staging: staging, progress: run.progress))
            queue?.finish()
        } catch {
            queue?.finish(throwing: error)
            // The database thread ends before the staging folder goes; its connection is closed.
            // When a `send` gave up because that thread had stopped, its error says why.
            var databaseError: Error?
            do {
                if let (connection, _) = try database?.value() { try? connection.close() }
            } catch {
                databaseError = error
            }
            if error is TypedRowQueue.Cancelled, let databaseError { throw databaseError }
            throw error
        }
        let tableFiles = Set(tables.map(\.csv))
        var result = Result(written: (formats.contains(.csv) ? written : written.filter { !tableFiles.contains($0.name) }) + parquet, database: nil)
        if let database {
            let (connection, rows) = try database.value()
            finished = true
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

    /// After a failure, before the staging folder goes: stops both threads and closes the
    /// database, unless `finish` handed it over.
    private func abandon() {
        queue?.cancel()
        queue?.finish(throwing: TypedRowQueue.Cancelled())
        _ = try? early.value()
        if !finished, let (connection, _) = try? database?.value() { try? connection.close() }
    }

    /// The tables of the staged CSV files in `files` (those `OutputSchema` types), in order.
    /// `zones`: the run's, for the per-zone columns; nil for tables that have none.
    private static func tables(_ files: [(name: String, rows: Int)], run: RunContext, zones: HeartRateZones?) throws -> [StagedTable] {
        try files.compactMap { file in
            let path = try run.staging.path(file.name)
            let quantity = run.outputs.quantityFiles.contains(file.name)
            guard let schema = try table(forCSV: file.name, at: path, quantity: quantity, zones: zones) else { return nil }
            return StagedTable(csv: file.name, path: path, schema: schema, rows: file.rows)
        }
    }

    /// Reads each table's CSV file once: its rows go to its Parquet file (with `parquet`) and to
    /// `queue` (with `sqlite`). Returns the Parquet files written.
    private static func write(
        _ tables: [StagedTable], formats: TableFormats, queue: TypedRowQueue?, staging: OutputStaging, progress: ProgressLine?
    ) throws -> [(name: String, rows: Int)] {
        var files: [(name: String, rows: Int)] = []
        let label = [formats.contains(.sqlite) ? SQLiteOutputs.fileName : nil, formats.contains(.parquet) ? "parquet/" : nil]
            .compactMap { $0 }.joined(separator: ", ")
        for (index, table) in tables.enumerated() {
            progress?.status("\(label)  \(index + 1) / \(tables.count) tables")
            let name = "parquet/" + table.csv.dropLast(4) + ".parquet"
            let parquet =
                formats.contains(.parquet)
                ? try ParquetTableWriter(
                    path: staging.path(name), schema: table.schema, createdBy: "healthtrail version \(HealthTrailVersion.current)")
                : nil
            let rows: Int
            if let queue {
                try queue.send(.begin(table.schema, file: table.csv))
                let tee = TypedRowTee(local: parquet, queue: queue, columns: table.schema.columns.count)
                rows = try CSVTableReader.copy(table.path, named: table.csv, as: table.schema, into: tee)
                try tee.flush()
                try queue.send(.end(rows: rows))
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
        return files
    }
}
