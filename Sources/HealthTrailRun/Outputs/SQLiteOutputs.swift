import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailWrite

/// `healthtrail.db`: a SQLite database with a table per CSV file, the same columns and values,
/// typed, plus keys, indexes on the time columns, a few views and a `meta` table.
///
/// What goes where is `TableFormatStage`'s; this type knows the database's shape: which key
/// each table has, which index speeds its range queries, and the views.
enum SQLiteOutputs {
    /// The database's name in the output folder.
    static let fileName = "healthtrail.db"

    /// The keys of a table beyond its typed columns.
    static func constraints(of table: String) -> [String] {
        switch table {
        case "workouts": return ["PRIMARY KEY (workout_id)"]
        case "daily": return ["PRIMARY KEY (date)"]
        case "ecg": return ["PRIMARY KEY (recording_id)"]
        case "heart_rate_zones": return ["PRIMARY KEY (zone)"]
        case "ecg_samples": return ["FOREIGN KEY (recording_id) REFERENCES ecg (recording_id)"]
        // Declared, not enforced: the points and splits of an orphan route file (one no workout
        // names, listed in manifest.json) carry an id of their own that workouts lacks.
        case "route_points", "splits", "best_efforts": return ["FOREIGN KEY (workout_id) REFERENCES workouts (workout_id)"]
        default: return []
        }
    }

    /// The columns a table's range queries go through, indexed once its rows are in.
    static func indexedColumns(of table: String) -> [String]? {
        switch table {
        case "heart_rate", "hrv_beats": return ["time_unix"]
        case "route_points": return ["workout_id", "time_unix"]
        case "sleep_samples", "workouts": return ["start_unix"]
        case "sleep_nights": return ["date"]
        case "ecg": return ["recorded_unix"]
        case "ecg_samples": return ["recording_id", "sample_index"]
        case "splits": return ["workout_id", "split"]
        case "best_efforts": return ["workout_id"]
        default: return table.hasPrefix("records_") ? ["start_unix"] : nil
        }
    }

    /// The local wall-clock columns a table gets beyond its CSV's, each from an instant's Unix
    /// seconds and the table's `utc_offset`: the time as the person lived it, by the time-zone
    /// dating `daily.csv` uses (a workout's own zone, else the person's; a night's offset at
    /// waking), to group by the person's own day. The tables whose `utc_offset` is the one the
    /// export stamped (`heart_rate`, `hrv_beats`, `sleep_samples`, `records_…`) get none: their local time would be the
    /// phone's at export, not the person's.
    static func localColumns(of table: String) -> [(name: String, unixSeconds: String)] {
        switch table {
        case "workouts": return [("start_local", "start_unix"), ("end_local", "end_unix")]
        case "sleep_nights": return [("bed_start_local", "bed_start_unix"), ("wake_end_local", "wake_end_unix")]
        default: return []
        }
    }

    /// A table's local columns as generated ones, computed when read like its timestamps' text.
    static func generatedColumns(of table: String) -> [(name: String, type: String, expression: String)] {
        localColumns(of: table).map {
            ($0.name, "TEXT", "strftime('%Y-%m-%dT%H:%M:%S', \(SQLiteTableWriter.quoted($0.unixSeconds)), 'unixepoch', utc_offset)")
        }
    }

    /// The views, each with the tables it reads.
    static let views: [(name: String, tables: [String], sql: String)] = [
        (
            "weekly_running_distance", ["workouts"],
            """
            WITH RECURSIVE runs AS (
                SELECT date(coalesce(start_local, start_utc), 'weekday 0', '-6 days') AS week_start, distance_m, route_distance_m, duration_s
                FROM workouts WHERE activity = 'running'
            ), weeks (week_start) AS (
                SELECT first FROM (SELECT min(week_start) AS first FROM runs) WHERE first IS NOT NULL
                UNION ALL
                SELECT date(week_start, '+7 days') FROM weeks WHERE week_start < (SELECT max(week_start) FROM runs)
            )
            SELECT weeks.week_start, count(runs.week_start) AS runs,
                   round(coalesce(sum(coalesce(distance_m, route_distance_m, 0)), 0) / 1000.0, 3) AS distance_km,
                   round(coalesce(sum(duration_s), 0) / 60.0, 1) AS duration_min
            FROM weeks LEFT JOIN runs USING (week_start)
            GROUP BY weeks.week_start ORDER BY weeks.week_start
            """
        ),
        (
            "sleep_by_night", ["sleep_nights"],
            """
            SELECT date, bed_start_utc, wake_end_utc, in_bed_min, asleep_min, efficiency,
                   round(asleep_min / 60.0, 2) AS asleep_h, latency_min, awakenings, core_min, deep_min, rem_min
            FROM sleep_nights ORDER BY date
            """
        ),
        (
            "workouts_with_routes", ["workouts", "route_points"],
            """
            SELECT w.workout_id, w.activity, w.start_utc, w.end_utc, w.duration_s, w.distance_m, w.route_distance_m,
                   w.moving_time_s, w.pace_s_per_km, w.elevation_gain_m, w.avg_hr, w.max_hr,
                   r.points, r.first_point_utc, r.last_point_utc, r.points_with_hr
            FROM workouts AS w
            JOIN (SELECT workout_id, count(*) AS points, \(SQLiteTableWriter.utcText(ofUnixSeconds: "min(time_unix)")) AS first_point_utc,
                         \(SQLiteTableWriter.utcText(ofUnixSeconds: "max(time_unix)")) AS last_point_utc, count(hr_bpm) AS points_with_hr
                  FROM route_points GROUP BY workout_id) AS r USING (workout_id)
            ORDER BY w.start_utc
            """
        ),
    ]

    /// Creates the database at `path` and loads the tables `queue` brings, their rows in
    /// batches, in one transaction; returns it open (for `writeMeta`) with the number of rows
    /// loaded.
    /// `pageSize`: 64 KiB pages load large tables faster into fewer, fuller pages, but every
    /// table and index takes at least one, which would make a small export's database mostly
    /// empty pages.
    static func write(from queue: TypedRowQueue, to path: String, pageSize: Int) throws -> (SQLiteConnection, Int) {
        let db = try SQLiteConnection(creating: path, pageSize: pageSize)
        var rows = 0
        // The generated columns (timestamps' text, local times) added once the rows are in, so
        // that no insert computes them.
        let deferringGenerated = SQLiteTableWriter.canAddGeneratedColumns(db)
        try db.execute("BEGIN")
        var writers: [SQLiteTableWriter] = []
        var writer: SQLiteTableWriter?
        var file = ""
        while let message = try queue.receive() {
            switch message {
            case .begin(let schema, let name):
                let table = try SQLiteTableWriter(
                    db, schema: schema, generated: generatedColumns(of: schema.name), constraints: constraints(of: schema.name),
                    deferringGenerated: deferringGenerated)
                writers.append(table)
                writer = table
                file = name
            case .rows(let batch):
                guard let writer else { throw InputError(file: fileName, "rows before their table (a bug: please report it)") }
                try batch.replay(into: writer)
                queue.recycle(batch)
            case .end(let read):
                guard let written = writer?.rows, read == written else { throw TableFormats.rowCountMismatch(file, writer?.rows ?? 0, read) }
                rows += written
                writer = nil
            }
        }
        if deferringGenerated { try SQLiteTableWriter.addGeneratedColumns(of: writers, on: db) }
        let names = Set(writers.map(\.schema.name))
        for name in names.sorted() {
            guard let columns = indexedColumns(of: name) else { continue }
            let quoted = columns.map(SQLiteTableWriter.quoted).joined(separator: ", ")
            // `heart_rate(time_unix)`: a parenthesis no table name has, so no record type's
            // table can take an index's name.
            try db.execute(
                "CREATE INDEX \(SQLiteTableWriter.quoted(name + "(" + columns.joined(separator: ",") + ")")) "
                    + "ON \(SQLiteTableWriter.quoted(name)) (\(quoted))")
        }
        for view in views where view.tables.allSatisfy(names.contains) {
            try db.execute("CREATE VIEW \(view.name) AS \(view.sql)")
        }
        try db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value)")
        try db.execute("COMMIT")
        return (db, rows)
    }

    /// The parts of manifest.json `meta` copies: counts, rows per output file and timings; no
    /// unit, source or input path.
    static let metaSections: Set<String> = ["counts", "outputs", "timings"]

    /// Fills `meta` with manifest.json's numbers under `metaSections`, keys joined by dots
    /// (`counts.heart_rate`, `outputs.heart_rate.csv`, `timings.total_s`), and its tool
    /// version: the manifest's own figures, never a value from the data.
    static func writeMeta(manifestAt path: String, to db: SQLiteConnection) throws {
        let manifest = try JSONDecoder().decode(ManifestValue.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        var entries: [(key: String, value: ManifestValue)] = []
        func flatten(_ value: ManifestValue, _ key: String) {
            switch value {
            case .object(let members): for (k, v) in members { flatten(v, key.isEmpty ? k : key + "." + k) }
            case .integer, .real: entries.append((key, value))
            case .array, .null, .bool, .text: break
            }
        }
        guard case .object(let top) = manifest else { throw InputError(file: path, "manifest.json is not an object") }
        for (section, value) in top where metaSections.contains(section) { flatten(value, section) }
        if case .text(let version)? = top["tool_version"] { entries.append(("tool_version", .text(version))) }
        let insert = try db.prepare("INSERT INTO meta VALUES (?, ?)")
        try db.execute("BEGIN")
        for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
            insert.bind(1, copying: key)
            switch value {
            case .bool(let b): insert.bind(2, b ? 1 as Int64 : 0)
            case .integer(let i): insert.bind(2, i)
            case .real(let r): insert.bind(2, r)
            case .text(let t): insert.bind(2, copying: t)
            case .object, .array, .null: continue
            }
            try insert.step()
        }
        try db.execute("COMMIT")
    }
}

/// A JSON value of manifest.json, as `meta` stores it.
private indirect enum ManifestValue: Decodable {
    case bool(Bool), integer(Int64), real(Double), text(String)
    case object([String: ManifestValue]), array([ManifestValue]), null

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .integer(i)
        } else if let r = try? c.decode(Double.self) {
            self = .real(r)
        } else if let t = try? c.decode(String.self) {
            self = .text(t)
        } else if let o = try? c.decode([String: ManifestValue].self) {
            self = .object(o)
        } else {
            self = .array(try c.decode([ManifestValue].self))
        }
    }
}
