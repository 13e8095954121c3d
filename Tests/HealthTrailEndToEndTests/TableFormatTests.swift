import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailDecode
@testable import HealthTrailKit
@testable import HealthTrailRun
@testable import HealthTrailSynth
@testable import HealthTrailWrite

/// `--format csv,sqlite,parquet`: every table in every format, read back by independent
/// readers (Python's csv and sqlite3 modules, the sqlite3 shell, pyarrow, DuckDB) and compared
/// value by value with the CSV files (`table_check.py`).
@Suite struct TableFormatTests {
    /// Whether python3 can import pyarrow and duckdb here (`make test` installs them from PyPI).
    static let readersAvailable: Bool = {
        (try? Support.runProgram("/usr/bin/env", ["python3", "-c", "import pyarrow, duckdb"]).status) == 0
    }()

    static let checker = Support.packageRoot.appendingPathComponent("Tests/HealthTrailEndToEndTests/table_check.py").path

    /// The record files of quantity types among what the generator wrote (numbers, not words).
    static func quantityFiles(_ summary: SynthSummary?) -> Set<String> {
        let identifiers = (summary?.recordsByType ?? [:]).keys.filter { $0.hasPrefix("HKQuantityTypeIdentifier") }
        return Set(identifiers.compactMap { RecordType.fileName(for: $0).map { "records/\($0).csv" } })
    }

    /// The typed tables of the CSV files in `folder`, as `table_check.py` reads them.
    static func schemaFile(
        for folder: String, summary: SynthSummary? = nil, zones: HeartRateZones = .fromMaximum(HeartRateZones.fixedMaximum), in dir: String
    ) throws -> String {
        var tables: [String: Any] = [:]
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        let quantities = quantityFiles(summary)
        for name in files where name.hasSuffix(".csv") {
            let table = try #require(
                try TableFormatStage.table(forCSV: name, at: folder + "/" + name, quantity: quantities.contains(name), zones: zones),
                "\(name) has no table")
            tables[name] = ["table": table.name, "columns": table.columns.map { [$0.name, $0.type.rawValue] }]
        }
        let path = dir + "/schema.json"
        try JSONSerialization.data(withJSONObject: tables).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Runs `table_check.py`; its report.
    static func check(_ out: String, formats: String, reference: String? = nil, schema: String) throws -> [String: Any] {
        let result = try Support.runProgram("/usr/bin/env", ["python3", checker, out, schema, formats] + (reference.map { [$0] } ?? []))
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
    }

    static func sqlite(_ db: String, _ sql: String) throws -> String {
        let result = try Support.runProgram("/usr/bin/env", ["sqlite3", "-readonly", db, sql])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.enabled(if: readersAvailable, "python3 cannot import pyarrow and duckdb (PyPI unreachable when make test installed them)"))
    func everyFormatHoldsTheCSVValues() throws {
        let dir = Support.temporaryDirectory()
        let summary = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 9, seed: 23))
        let out = dir + "/out"
        let run = try Support.runCLI(["run", dir + "/export.zip", "--out", out, "--format", "csv,sqlite,parquet", "--ecg-samples", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")

        let report = try Self.check(out, formats: "sqlite,parquet", schema: try Self.schemaFile(for: out, summary: summary, in: dir))
        #expect(report["mismatches"] as? [String] == [], "\(report["mismatches"] ?? "")")
        let tables = try #require(report["tables"] as? [String: [String: Int]])
        // Every table, each format with the CSV's rows; the largest with the generator's counts.
        let csvFiles = FileManager.default.enumerator(atPath: out)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".csv") } ?? []
        #expect(tables.count == csvFiles.count && tables.count > 20)
        for (name, rows) in tables {
            #expect(rows["sqlite"] == rows["csv"] && rows["parquet"] == rows["csv"] && rows["duckdb"] == rows["csv"], "\(name): \(rows)")
        }
        #expect(tables["heart_rate.csv"]?["parquet"] == summary.heartRateRecords)
        #expect(tables["route_points.csv"]?["sqlite"] == summary.routePoints)
        #expect(tables["hrv_beats.csv"]?["duckdb"] == summary.hrvBeats)
        #expect(tables["ecg.csv"]?["parquet"] == summary.ecgRecordings.count)
        #expect(tables["ecg_samples.csv"]?["sqlite"] == summary.ecgRecordings.reduce(0) { $0 + $1.samples })
        #expect((report["values"] as? Int ?? 0) > 3 * summary.routePoints * 12)

        // The sqlite3 shell: a sound file, every route point's workout there, the views and meta.
        let db = out + "/healthtrail.db"
        #expect(try Self.sqlite(db, "PRAGMA integrity_check") == "ok")
        #expect(try Self.sqlite(db, "PRAGMA foreign_key_check") == "")
        #expect(try Self.sqlite(db, "SELECT count(*) FROM heart_rate") == "\(summary.heartRateRecords)")
        // Types stated here, not taken from the schema under test, and whether SQLite generates
        // the column when read (`hidden` 2 in table_xinfo; table_info leaves such columns out).
        let declared = [
            ("daily", "date", "TEXT|0"), ("daily", "steps", "INTEGER|0"), ("daily", "distance_m", "REAL|0"),
            ("heart_rate", "time_utc", "TEXT|2"), ("heart_rate", "time_unix", "INTEGER|0"), ("heart_rate", "bpm", "REAL|0"),
            ("workouts", "indoor", "INTEGER|0"), ("workouts", "parts", "INTEGER|0"), ("route_points", "lat", "REAL|0"),
            ("workouts", "start_local", "TEXT|2"),
        ]
        for (table, column, type) in declared {
            #expect(
                try Self.sqlite(db, "SELECT type, hidden FROM pragma_table_xinfo('\(table)') WHERE name = '\(column)'") == type,
                "\(table).\(column)")
        }
        let parquetTypes = try Support.runProgram(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import sys, pyarrow.parquet as pq; s = pq.read_schema(sys.argv[1]); print(s.field('time_utc').type, s.field('bpm').type, s.field('source').type)",
                out + "/parquet/heart_rate.parquet",
            ])
        #expect(parquetTypes.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "timestamp[us, tz=UTC] double string", "\(parquetTypes)")
        // A quantity's values are numbers, a category's words.
        #expect(try Self.sqlite(db, "SELECT DISTINCT typeof(value) FROM records_step_count") == "real")
        #expect(try Self.sqlite(db, "SELECT DISTINCT typeof(value) FROM records_sleep_analysis") == "text")
        let manifest = try CohortRunTests.json(out + "/manifest.json")
        let counts = try #require(manifest["counts"] as? [String: Any])
        #expect(try Self.sqlite(db, "SELECT value FROM meta WHERE key = 'counts.route_points'") == "\(counts["route_points"] ?? "")")
        #expect(try Self.sqlite(db, "SELECT count(*) FROM sleep_by_night") == "\(try Support.readCSV(out + "/sleep_nights.csv").rows.count)")
        // weekly_running_distance against a reference sum from workouts.csv.
        let workouts = try Support.readCSV(out + "/workouts.csv")
        let column = { (name: String) in workouts.header.firstIndex(of: name)! }
        let runs = workouts.rows.filter { $0[column("activity")] == "running" }
        let metres = runs.map { Double($0[column("distance_m")]) ?? Double($0[column("route_distance_m")]) ?? 0 }.reduce(0, +)
        let weekly = try Self.sqlite(db, "SELECT sum(runs), round(sum(distance_km), 1) FROM weekly_running_distance").split(separator: "|")
        #expect(weekly.first.map(String.init) == "\(runs.count)")
        #expect(abs((Double(weekly.last ?? "") ?? -1) - (metres / 1000)) < 0.1)
        #expect(try Self.sqlite(db, "SELECT count(*) FROM workouts_with_routes") == "\(summary.workoutsWithRoutes)")

        // Owner-only, like every output.
        for path in [db, out + "/parquet", out + "/parquet/heart_rate.parquet", out + "/parquet/records"] {
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0, "\(path): \(String(mode, radix: 8))")
        }
        // The manifest lists the new files with their rows.
        let outputs = try #require(manifest["outputs"] as? [String: Int])
        #expect(outputs["parquet/heart_rate.parquet"] == summary.heartRateRecords)
        #expect(outputs["healthtrail.db"] != nil)
    }

    /// Unicode and a comma in a source name (a quoted CSV field), an empty motion context, and
    /// a file of each format with the same values.
    @Test(.enabled(if: readersAvailable, "python3 cannot import pyarrow and duckdb"))
    func quotedUnicodeFieldsAndEmptyOnesAgree() throws {
        let dir = Support.temporaryDirectory()
        let source = "Zoë’s Watch, \"série\" 💓"
        var body = ""
        for i in 0..<30 {
            let context = i % 3 == 0 ? "" : "<MetadataEntry key=\"HKMetadataKeyHeartRateMotionContext\" value=\"\(i % 3)\"/>"
            body += """
                <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="\(source.replacingOccurrences(of: "\"", with: "&quot;"))" unit="count/min" \
                creationDate="2024-03-0\(1 + i / 10) 08:00:00 +0100" startDate="2024-03-0\(1 + i / 10) 08:0\(i % 10):00 +0100" \
                endDate="2024-03-0\(1 + i / 10) 08:0\(i % 10):00 +0100" value="\(60 + i).5">\(context)</Record>

                """
        }
        try Support.makeZip(dir + "/export.zip", [("apple_health_export/export.xml", Support.exportXML(body))])
        let out = dir + "/out"
        let run = try Support.runCLI(["run", dir + "/export.zip", "--out", out, "--format", "sqlite,parquet,csv", "--quiet", "--no-svg"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try Self.check(out, formats: "sqlite,parquet", schema: try Self.schemaFile(for: out, in: dir))
        #expect(report["mismatches"] as? [String] == [], "\(report["mismatches"] ?? "")")
        #expect((report["tables"] as? [String: [String: Int]])?["heart_rate.csv"]?["parquet"] == 30)
        #expect(try Self.sqlite(out + "/healthtrail.db", "SELECT DISTINCT source FROM heart_rate") == source)
        #expect(try Self.sqlite(out + "/healthtrail.db", "SELECT count(*) FROM heart_rate WHERE motion_context IS NULL") == "10")
    }

    /// `--format parquet` alone: the Parquet files hold what a CSV run of the same archive
    /// writes, and no CSV file is left behind; a later CSV run removes the Parquet files.
    @Test(.enabled(if: readersAvailable, "python3 cannot import pyarrow and duckdb"))
    func parquetAloneWritesNoCSV() throws {
        let dir = Support.temporaryDirectory()
        let summary = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 3, seed: 5))
        let csvRun = try Support.runCLI(["run", dir + "/export.zip", "--out", dir + "/csv", "--quiet", "--no-svg"])
        #expect(csvRun.status == 0, "\(csvRun.stderr)")
        let out = dir + "/out"
        let run = try Support.runCLI(["run", dir + "/export.zip", "--out", out, "--format", "parquet", "--quiet", "--no-svg"])
        #expect(run.status == 0, "\(run.stderr)")
        let files = FileManager.default.enumerator(atPath: out)?.compactMap { $0 as? String } ?? []
        #expect(!files.contains { $0.hasSuffix(".csv") }, "\(files)")
        #expect(!files.contains("records"), "\(files)")
        #expect(!files.contains("healthtrail.db"))
        let report = try Self.check(
            out, formats: "parquet", reference: dir + "/csv", schema: try Self.schemaFile(for: dir + "/csv", summary: summary, in: dir))
        #expect(report["mismatches"] as? [String] == [], "\(report["mismatches"] ?? "")")
        let tables = try #require(report["tables"] as? [String: [String: Int]])
        #expect(tables.count >= 9)
        for (name, rows) in tables { #expect(rows["parquet"] == rows["csv"], "\(name): \(rows)") }

        let again = try Support.runCLI(["run", dir + "/export.zip", "--out", out, "--quiet", "--no-svg", "--force"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/parquet"))
        #expect(FileManager.default.fileExists(atPath: out + "/heart_rate.csv"))
    }

    /// Values at the edges of what each type holds: UTC times just outside the years the
    /// decoder reads (a local time in 1900 or 2200 made UTC), 19-digit daily step totals, a
    /// converted unit, a record type whose table name is another's plus `_by_start_unix` (an
    /// index's name once), and Activity days that are no calendar date (a fault, not a row).
    @Test(.enabled(if: readersAvailable, "python3 cannot import pyarrow and duckdb"))
    func edgeValuesAgreeInEveryFormat() throws {
        let dir = Support.temporaryDirectory()
        func record(_ type: String, _ unit: String, _ start: String, _ value: String) -> String {
            "<Record type=\"\(type)\" sourceName=\"Phone\" unit=\"\(unit)\" creationDate=\"\(start)\" startDate=\"\(start)\" "
                + "endDate=\"\(start)\" value=\"\(value)\"/>\n"
        }
        var body = record("HKQuantityTypeIdentifierHeartRate", "count/min", "1900-01-01 00:30:00 +1400", "61")
        body += record("HKQuantityTypeIdentifierHeartRate", "count/min", "2200-12-31 23:30:00 -0100", "62")
        body += record("HKQuantityTypeIdentifierStepCount", "count", "2024-03-01 09:00:00 +0000", "5000000000000000000")
        body += record("HKQuantityTypeIdentifierStepCount", "count", "2024-03-01 10:00:00 +0000", "3")
        body += record("HKQuantityTypeIdentifierBodyMass", "lb", "2024-03-01 07:00:00 +0000", "150")
        body += record("HKQuantityTypeIdentifierBodyTemperature", "degC", "2024-03-01 07:00:00 +0000", "36.6")
        body += record("HKQuantityTypeIdentifierBodyTemperatureByStartUnix", "degC", "2024-03-01 07:00:00 +0000", "36.7")
        for date in ["2024-03-01", "2024-02-30", "2024-13-01", "0000-01-01"] {
            body +=
                "<ActivitySummary dateComponents=\"\(date)\" activeEnergyBurned=\"100\" activeEnergyBurnedGoal=\"400\" "
                + "activeEnergyBurnedUnit=\"Cal\" appleExerciseTime=\"1e400\" appleStandHours=\"5\"/>\n"
        }
        try Support.makeZip(dir + "/export.zip", [("apple_health_export/export.xml", Support.exportXML(body))])
        let out = dir + "/out"
        let run = try Support.runCLI(["run", dir + "/export.zip", "--out", out, "--format", "csv", "--format", "sqlite,parquet", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        var quantities = SynthSummary()
        for type in ["StepCount", "BodyMass", "BodyTemperature", "BodyTemperatureByStartUnix"] {
            quantities.recordsByType["HKQuantityTypeIdentifier" + type] = 1
        }
        let report = try Self.check(out, formats: "sqlite,parquet", schema: try Self.schemaFile(for: out, summary: quantities, in: dir))
        #expect(report["mismatches"] as? [String] == [], "\(report["mismatches"] ?? "")")
        let tables = try #require(report["tables"] as? [String: [String: Int]])
        #expect(tables["heart_rate.csv"] == ["csv": 2, "sqlite": 2, "parquet": 2, "duckdb": 2])
        #expect(tables["activity_summaries.csv"]?["parquet"] == 1)
        let db = out + "/healthtrail.db"
        #expect(try Self.sqlite(db, "SELECT min(time_utc), max(time_utc) FROM heart_rate") == "1899-12-31T10:30:00Z|2201-01-01T00:30:00Z")
        #expect(try Self.sqlite(db, "SELECT typeof(steps), length(steps) FROM daily WHERE date = '2024-03-01'") == "integer|19")
        #expect(try Self.sqlite(db, "SELECT typeof(value), typeof(original_value) FROM records_body_mass") == "real|real")
        #expect(try Self.sqlite(db, "SELECT count(*) FROM records_body_temperature_by_start_unix") == "1")
        #expect(try Self.sqlite(db, "SELECT exercise_min FROM activity_summaries") == "")
        let manifest = try CohortRunTests.json(out + "/manifest.json")
        #expect(((manifest["faults"] as? [String: Any])?["by_kind"] as? [String: Int])?["bad_date"] == 3, "\(manifest["faults"] ?? "")")
        // meta: the manifest's figures, never the input's path or name.
        #expect(try Self.sqlite(db, "SELECT count(*) FROM meta WHERE key LIKE 'input%' OR value LIKE '%export.zip%'") == "0")
        #expect(try Self.sqlite(db, "SELECT value FROM meta WHERE key = 'counts.heart_rate'") == "2")
    }

    /// Whether the sqlite3 shell is here (`make test` installs Debian's).
    static let sqliteShell: Bool = (try? Support.runProgram("/usr/bin/env", ["sqlite3", "-version"]).status) == 0

    /// `--format sqlite` alone, checked by the sqlite3 shell only (no PyPI reader needed): the
    /// generator's counts in the tables, typed values, a sound file, and no CSV or Parquet file.
    @Test(.enabled(if: sqliteShell, "no sqlite3 shell on PATH"))
    func sqliteAloneHoldsTheGeneratorsCounts() throws {
        let dir = Support.temporaryDirectory()
        let summary = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 4, seed: 31))
        let out = dir + "/out"
        let run = try Support.runCLI(["run", dir + "/export.zip", "--out", out, "--format", "sqlite", "--quiet", "--no-svg"])
        #expect(run.status == 0, "\(run.stderr)")
        let files = FileManager.default.enumerator(atPath: out)?.compactMap { $0 as? String } ?? []
        #expect(!files.contains { $0.hasSuffix(".csv") || $0.hasPrefix("parquet") }, "\(files)")
        let db = out + "/healthtrail.db"
        #expect(try Self.sqlite(db, "PRAGMA integrity_check") == "ok")
        #expect(try Self.sqlite(db, "SELECT count(*) FROM heart_rate") == "\(summary.heartRateRecords)")
        #expect(try Self.sqlite(db, "SELECT count(*) FROM route_points") == "\(summary.routePoints)")
        #expect(try Self.sqlite(db, "SELECT count(*) FROM workouts") == "\(summary.workouts)")
        #expect(try Self.sqlite(db, "SELECT count(*) FROM hrv_beats") == "\(summary.hrvBeats)")
        #expect(try Self.sqlite(db, "SELECT count(*) FROM activity_summaries") == "\(summary.activitySummaries)")
        // Typed: numbers are numbers, and each Unix time is its text's instant.
        #expect(try Self.sqlite(db, "SELECT DISTINCT typeof(bpm) FROM heart_rate") == "real")
        #expect(
            try Self.sqlite(db, "SELECT count(*) FROM heart_rate WHERE time_unix != CAST(strftime('%s', time_utc) AS INTEGER)") == "0")
        #expect(try Self.sqlite(db, "SELECT count(*) FROM route_points WHERE typeof(lat) != 'real' OR lat NOT BETWEEN -90 AND 90") == "0")
        let manifest = try CohortRunTests.json(out + "/manifest.json")
        let outputs = try #require(manifest["outputs"] as? [String: Int])
        // The manifest counts the database's rows: every table's but meta's.
        #expect(outputs["healthtrail.db"] == Int(try Self.sqlite(db, try Self.rowsQuery(db))))
        #expect(!outputs.keys.contains { $0.hasSuffix(".csv") }, "\(outputs.keys.sorted())")
    }

    /// A range of times asked of the text column (`time_utc >= '…'`, which SQLite generates
    /// from the Unix seconds when read) and of `time_unix` (which the index serves) gives the
    /// same rows, those the CSV file holds in that range: for heart rate, and for one
    /// workout's route points. The Unix bounds come from Python, the rows from the CSV.
    @Test(.enabled(if: sqliteShell, "no sqlite3 shell on PATH"))
    func aTimeRangeByTextAndByUnixSecondsGivesTheSameRows() throws {
        let dir = Support.temporaryDirectory()
        _ = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 4, seed: 37))
        let out = dir + "/out"
        let run = try Support.runCLI(["run", dir + "/export.zip", "--out", out, "--format", "csv,sqlite", "--quiet", "--no-svg", "--no-report"])
        #expect(run.status == 0, "\(run.stderr)")
        let db = out + "/healthtrail.db"
        func unixSeconds(_ text: String) throws -> String {
            let python = try Support.runProgram(
                "/usr/bin/env",
                [
                    "python3", "-c",
                    "import calendar, datetime, sys; print(calendar.timegm(datetime.datetime.strptime(sys.argv[1], '%Y-%m-%dT%H:%M:%SZ').timetuple()))",
                    text,
                ])
            #expect(python.status == 0, "\(python.stderr)")
            return python.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // CSV rows are the table's rows in order: rowid n is the CSV's n-th row.
        func check(_ csv: String, table: String, workout: String?) throws {
            let file = try Support.readCSV(out + "/" + csv)
            let time = try #require(file.header.firstIndex(of: "time_utc"))
            let id = file.header.firstIndex(of: "workout_id")
            let rows = file.rows.enumerated().filter { workout == nil || $0.element[id!] == workout }
            try #require(rows.count > 20, "\(table): \(rows.count) rows")
            // From the time a third of the way up to the one two thirds up, the second excluded.
            let times = rows.map { $0.element[time] }.sorted()
            let (from, to) = (times[times.count / 3], times[2 * times.count / 3])
            #expect(from < to, "\(table): \(from) \(to)")
            let expected = rows.filter { $0.element[time] >= from && $0.element[time] < to }.map { String($0.offset + 1) }
            let scope = workout.map { "workout_id = '\($0)' AND " } ?? ""
            let byText = "SELECT rowid FROM \(table) WHERE \(scope)time_utc >= '\(from)' AND time_utc < '\(to)' ORDER BY rowid"
            let byUnix =
                "SELECT rowid FROM \(table) WHERE \(scope)time_unix >= \(try unixSeconds(from)) AND time_unix < \(try unixSeconds(to)) ORDER BY rowid"
            #expect(try Self.sqlite(db, byText) == expected.joined(separator: "\n"), "\(table) by text")
            #expect(try Self.sqlite(db, byUnix) == expected.joined(separator: "\n"), "\(table) by Unix seconds")
            let plan = try Self.sqlite(db, "EXPLAIN QUERY PLAN " + byUnix)
            #expect(plan.contains("USING INDEX") || plan.contains("USING COVERING INDEX"), "\(table): \(plan)")
        }
        try check("heart_rate.csv", table: "heart_rate", workout: nil)
        let workout = try Self.sqlite(db, "SELECT workout_id FROM route_points GROUP BY workout_id ORDER BY count(*) DESC LIMIT 1")
        try check("route_points.csv", table: "route_points", workout: workout)
    }

    /// The database's keys, local times and weekly view, checked by the sqlite3 shell against
    /// the CSV files: splits and best efforts reference their workouts through an index, each
    /// workout and night has its local wall-clock times (the UTC instant plus the row's own
    /// offset), and the weekly view has every week from the first run's to the last's, the
    /// weeks without a run among them.
    @Test(.enabled(if: sqliteShell, "no sqlite3 shell on PATH"))
    func keysLocalTimesAndWeeksWithoutRuns() throws {
        let dir = Support.temporaryDirectory()
        _ = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: Self.weeksDays, seed: Self.weeksSeed))
        let out = dir + "/out"
        let run = try Support.runCLI(["run", dir + "/export.zip", "--out", out, "--format", "csv,sqlite", "--quiet", "--no-svg"])
        #expect(run.status == 0, "\(run.stderr)")
        let db = out + "/healthtrail.db"
        #expect(try Self.sqlite(db, "PRAGMA foreign_key_check") == "")
        for table in ["splits", "best_efforts"] {
            #expect(
                try Self.sqlite(db, "SELECT \"table\", \"from\", \"to\" FROM pragma_foreign_key_list('\(table)')")
                    == "workouts|workout_id|workout_id",
                "\(table)")
            let plan = try Self.sqlite(db, "EXPLAIN QUERY PLAN SELECT * FROM \(table) WHERE workout_id = 'w'")
            #expect(plan.contains("USING INDEX") || plan.contains("USING COVERING INDEX"), "\(table): \(plan)")
        }
        #expect(Int(try Self.sqlite(db, "SELECT count(*) FROM splits")) ?? 0 > 0)

        // Local times, computed here from each row's UTC text and offset.
        let parse = ISO8601DateFormatter()
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        local.timeZone = TimeZone(identifier: "UTC")
        local.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        func offsetSeconds(_ text: String) -> Int {
            let parts = text.dropFirst().split(separator: ":").compactMap { Int($0) }
            return (text.hasPrefix("-") ? -1 : 1) * (parts[0] * 3600 + parts[1] * 60)
        }
        func localTexts(_ csv: String, _ columns: [String]) throws -> [String] {
            let table = try Support.readCSV(out + "/" + csv)
            let offset = try #require(table.header.firstIndex(of: "utc_offset"))
            return try table.rows.map { row in
                try columns.map { name in
                    let column = try #require(table.header.firstIndex(of: name))
                    let instant = try #require(parse.date(from: row[column]))
                    return local.string(from: instant.addingTimeInterval(Double(offsetSeconds(row[offset]))))
                }.joined(separator: "|")
            }
        }
        let workoutTimes = try localTexts("workouts.csv", ["start_utc", "end_utc"])
        #expect(!workoutTimes.isEmpty)
        #expect(try Self.sqlite(db, "SELECT start_local, end_local FROM workouts ORDER BY rowid") == workoutTimes.joined(separator: "\n"))
        let nightTimes = try localTexts("sleep_nights.csv", ["bed_start_utc", "wake_end_utc"])
        #expect(!nightTimes.isEmpty)
        #expect(
            try Self.sqlite(db, "SELECT bed_start_local, wake_end_local FROM sleep_nights ORDER BY rowid") == nightTimes.joined(separator: "\n"))

        // Weeks: Monday of each run's local date, every week between the first and the last.
        let workouts = try Support.readCSV(out + "/workouts.csv")
        let activity = try #require(workouts.header.firstIndex(of: "activity"))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.timeZone = TimeZone(identifier: "UTC")
        day.dateFormat = "yyyy-MM-dd"
        var runsPerWeek: [Date: Int] = [:]
        for (row, times) in zip(workouts.rows, workoutTimes) where row[activity] == "running" {
            let date = try #require(day.date(from: String(times.prefix(10))))
            let monday = calendar.date(byAdding: .day, value: -((calendar.component(.weekday, from: date) + 5) % 7), to: date)!
            runsPerWeek[monday, default: 0] += 1
        }
        let first = try #require(runsPerWeek.keys.min()), last = try #require(runsPerWeek.keys.max())
        var expected: [String] = []
        var week = first
        while week <= last {
            expected.append("\(day.string(from: week))|\(runsPerWeek[week] ?? 0)")
            week = calendar.date(byAdding: .day, value: 7, to: week)!
        }
        #expect(expected.contains { $0.hasSuffix("|0") }, "this archive has no week without a run: \(expected)")
        #expect(try Self.sqlite(db, "SELECT week_start, runs FROM weekly_running_distance") == expected.joined(separator: "\n"))
        #expect(try Self.sqlite(db, "SELECT count(*) FROM weekly_running_distance WHERE runs = 0 AND (distance_km != 0 OR duration_min != 0)") == "0")
    }

    /// `weekly_running_distance` on rows written by hand: a run whose offset is unknown (no
    /// `start_local`) counts in the week of its UTC start instead of vanishing, and the weeks
    /// between runs are there with 0.
    @Test func weeklyRunningDistanceCountsARunWithoutOffsetByItsUTCWeek() throws {
        let view = try #require(SQLiteOutputs.views.first { $0.name == "weekly_running_distance" })
        let db = Support.temporaryDirectory() + "/weeks.db"
        let setup = """
            CREATE TABLE workouts (activity TEXT, start_utc TEXT, start_local TEXT, distance_m REAL, route_distance_m REAL, duration_s REAL);
            INSERT INTO workouts VALUES ('running', '2024-01-01T06:00:00Z', '2024-01-01T07:00:00', 5000, NULL, 1800);
            INSERT INTO workouts VALUES ('running', '2024-01-21T23:30:00Z', NULL, NULL, 8000, 3000);
            INSERT INTO workouts VALUES ('cycling', '2024-01-09T10:00:00Z', '2024-01-09T11:00:00', 20000, NULL, 3600);
            CREATE VIEW weekly_running_distance AS \(view.sql);
            """
        let created = try Support.runProgram("/usr/bin/env", ["sqlite3", db, setup])
        #expect(created.status == 0, "\(created.stderr)")
        // Mondays 2024-01-01, 01-08, 01-15; 2024-01-21 (a Sunday, UTC) belongs to the week of 01-15.
        #expect(
            try Self.sqlite(db, "SELECT week_start, runs, distance_km, duration_min FROM weekly_running_distance")
                == "2024-01-01|1|5.0|30.0\n2024-01-08|0|0.0|0.0\n2024-01-15|1|8.0|50.0")
    }

    /// A generated archive with a week without a run between two with runs.
    static let weeksDays = 60
    static let weeksSeed: UInt64 = 3

    /// SQL adding up the rows of every table of `db` but `meta`.
    static func rowsQuery(_ db: String) throws -> String {
        let tables = try sqlite(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'meta'").split(separator: "\n")
        return "SELECT " + (tables.map { "(SELECT count(*) FROM \"\($0)\")" } + ["0"]).joined(separator: " + ")
    }

    /// A cohort reads each person's partial totals from CSV files: formats without csv are
    /// refused before any person runs, in the pipeline file and on the command line.
    @Test func aCohortWithoutCSVIsRefused() throws {
        let (root, pipeline) = try CohortRunTests.study(persons: 1, days: 2, broken: false)
        let text = try String(contentsOfFile: pipeline, encoding: .utf8)
        let withoutCSV = root + "/parquet-only.yaml"
        try (text + "\nformats: [parquet]\n").write(toFile: withoutCSV, atomically: true, encoding: .utf8)
        let validate = try Support.runCLI(["validate", withoutCSV])
        #expect(validate.status == 2 && validate.stderr.contains("must include csv in a cohort"), "\(validate.stderr)")
        let run = try Support.runCLI(["run", "--pipeline", pipeline, "--format", "parquet", "--quiet"])
        #expect(run.status == 2 && run.stderr.contains("--format must include csv"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root + "/study/out/persons"))
    }

    @Test func anUnknownFormatIsRefused() throws {
        let run = try Support.runCLI(["run", "nowhere.zip", "--out", Support.temporaryDirectory(), "--format", "csv,xlsx"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("--format"), "\(run.stderr)")
    }
}
