import HealthTrailAnalysis
import HealthTrailWrite

/// The files a run writes and the columns of each CSV: the one list the writers take their
/// header rows from, the table of docs/outputs.md is generated from (`markdownTable`), and the
/// output contract test checks column by column. A column added here and never filled, or
/// filled and not documented, fails that test.
package enum OutputSchema {
    /// One column of a CSV file.
    package struct Column: Sendable, Equatable {
        /// The name in the header row; for `perZone` columns, the pattern `zone_<zone>_s`.
        package var name: String
        /// What its values are, which decides their type in SQLite and Parquet.
        package var type: ColumnType
        /// What a user needs to read the value (units, convention); nil when the name says it.
        package var note: String?
        /// One column per heart-rate zone in use, named by `zoneColumn(_:)`.
        package var perZone = false

        init(_ name: String, _ type: ColumnType, _ note: String? = nil, perZone: Bool = false) {
            self.name = name
            self.type = type
            self.note = note
            self.perZone = perZone
        }
    }

    /// A CSV file: its name (or name pattern), what one row is, and its columns in order.
    package struct CSVFile: Sendable {
        package var name: String
        package var rowIs: String
        package var columns: [Column]

        /// The header row (per-zone columns left out: see `header(zones:)`).
        package var names: [String] { columns.filter { !$0.perZone }.map(\.name) }

        /// The header row of a run with these zones.
        package func header(zones: HeartRateZones) -> [String] {
            columns.flatMap { $0.perZone ? zones.zones.map { OutputSchema.zoneColumn($0.name) } : [$0.name] }
        }

        /// The file's columns typed for SQLite and Parquet, per-zone columns expanded for `zones`
        /// (nil, known only once the routes are read, for a file that has none: should it have
        /// some, the header no longer matches, and reading the file fails with that).
        package func table(named name: String, zones: HeartRateZones?) -> TableSchema {
            TableSchema(
                name: name,
                columns: columns.flatMap { c in
                    c.perZone
                        ? (zones?.zones ?? []).map { TableColumn(OutputSchema.zoneColumn($0.name), c.type) } : [TableColumn(c.name, c.type)]
                })
        }
    }

    /// A file that is not a CSV (maps, GeoJSON, the manifest), described in prose.
    package struct OtherFile: Sendable {
        package var name: String
        package var rowIs: String
        package var description: String
    }

    /// `zone3` → `zone_3_s` (any other name `n` → `zone_n_s`): the column of seconds in a zone.
    package static func zoneColumn(_ zoneName: String) -> String {
        let number = zoneName.hasPrefix("zone") ? zoneName.dropFirst(4) : ""
        let label = !number.isEmpty && number.allSatisfy(\.isNumber) ? String(number) : zoneName
        return "zone_\(label)_s"
    }

    package static let daily = CSVFile(
        name: "daily.csv", rowIs: "local date with any data, in the person's own time zone",
        columns: [
            Column("date", .date), Column("steps", .integer), Column("distance_m", .real, "walking + running"), Column("active_kcal", .real),
            Column("exercise_min", .real), Column("stand_hours", .integer), Column("resting_hr", .real), Column("avg_hr", .real),
            Column("hrv_sdnn_ms", .real),
            Column("sleep_asleep_min", .real, "the night ending that morning"), Column("workouts", .integer), Column("basal_kcal", .real),
            Column("flights", .integer), Column("workout_min", .real, "0 on a day without workouts, like `workouts`"),
            Column(
                "time_zone", .text,
                "the first and last zone the day's samples were dated in (`Europe/Paris`; two, `;`-separated, on a travel day), or the stamped offset (`+01:00`) where the export names no zone"
            ),
        ])

    package static let sleepNights = CSVFile(
        name: "sleep_nights.csv",
        rowIs: "night, dated by the local date of the morning it ends",
        columns: [
            Column("date", .date), Column("bed_start_utc", .timestamp), Column("wake_end_utc", .timestamp),
            Column("utc_offset", .text, "the person's own at waking, not the stamped one: see Days and time zones"),
            Column("in_bed_min", .real),
            Column("asleep_min", .real), Column("latency_min", .real), Column("efficiency", .real, "asleep / in bed"), Column("awakenings", .integer),
            Column("core_min", .real, "empty on a night whose source recorded no stages"), Column("deep_min", .real), Column("rem_min", .real),
            Column("sources", .text, "`;`-separated"),
        ])

    package static let sleepSamples = CSVFile(
        name: "sleep_samples.csv", rowIs: "sleep sample, every source",
        columns: [
            Column("start_utc", .timestamp), Column("end_utc", .timestamp), Column("utc_offset", .text),
            Column("stage", .text, "`in_bed`, `asleep`, `core`, `deep`, `rem`, `awake`"), Column("source", .text),
        ])

    package static let heartRate = CSVFile(
        name: "heart_rate.csv",
        rowIs: "heart-rate sample (`HKQuantityTypeIdentifierHeartRate`)",
        columns: [
            Column("time_utc", .timestamp), Column("utc_offset", .text), Column("bpm", .real), Column("source", .text),
            Column("motion_context", .text, "`sedentary`, `active` or empty"),
        ])

    package static let workouts = CSVFile(
        name: "workouts.csv", rowIs: "workout, sorted by start",
        columns: [
            Column("workout_id", .text), Column("activity", .text, "`running`, `traditional_strength_training`, …"), Column("start_utc", .timestamp),
            Column("end_utc", .timestamp),
            Column("utc_offset", .text, "of the workout's own time zone when known, else the person's: see Days and time zones"),
            Column("duration_s", .real),
            Column("source", .text), Column("route_files", .text, "`;`-separated, relative to the export folder"), Column("distance_m", .real),
            Column("energy_kcal", .real), Column("avg_hr", .real), Column("max_hr", .real), Column("indoor", .boolean, "`true`/`false`/empty"),
            Column("time_zone", .text, "`Europe/Paris`"), Column("parts", .integer), Column("min_hr", .real),
            Column(
                "hr_source", .text,
                "`workout` when the heart-rate figures are the export's own, `route` when they come from the "
                    + "samples joined to the route's points, empty when there are none"),
            Column("elevation_ascended_m", .real), Column("weather_temp_c", .real), Column("weather_humidity_pct", .real),
            Column("route_distance_m", .real, "this and the next columns from the route's points"), Column("moving_time_s", .real),
            Column("pace_s_per_km", .real), Column("elevation_gain_m", .real),
            Column(
                "trimmed_distance_m", .real,
                "distance between the route's points that counts in no figure: pauses, gaps between parts, glitches, drives"),
            Column("flags", .text, "`;`-separated: `glitch` (fixes rejected or a jump stepped over), `vehicle` (a stretch at vehicle speed)"),
            Column(
                "zone_<zone>_s", .real,
                "seconds in each of the five heart-rate zones, `zone_1_s` … `zone_5_s` whichever way the "
                    + "zones were chosen (see Heart-rate zones); empty when no route point has a heart rate", perZone: true),
        ])

    /// The zones behind every zone column and `hr_zone`, with their maximum heart rate: health
    /// values, so here and never in the manifest (`HeartRateZoneRows`).
    package static let heartRateZones = CSVFile(
        name: "heart_rate_zones.csv", rowIs: "heart-rate zone the run used, 1 to 5",
        columns: [
            Column("zone", .integer, "1 … 5, the `zone_<n>_s` column of workouts.csv and the `zone<n>` of `hr_zone`"),
            Column("lower_bpm", .real, "zone 1 also takes every rate below it"),
            Column("upper_bpm", .real, "not included: the next zone's `lower_bpm`; empty for zone 5"),
            Column("maximum_bpm", .real, "the maximum heart rate the zones were split from (see Heart-rate zones)"),
            Column("basis", .text, "where that maximum came from: `workout_maximum`, `max_hr`, `date_of_birth` or `fixed`"),
        ])

    package static let routePoints = CSVFile(
        name: "route_points.csv",
        rowIs: "GPS point of a route file (GPX) or of an old inline `WorkoutRoute/Location`",
        columns: [
            Column("workout_id", .text), Column("time_utc", .timestamp), Column("lat", .real, "WGS84 degrees"), Column("lon", .real),
            Column("ele_m", .real),
            Column("speed_mps", .real), Column("h_acc_m", .real), Column("course_deg", .real), Column("v_acc_m", .real),
            Column("hr_bpm", .real, "heart rate at that moment"), Column("hr_zone", .text),
            Column("distance_m", .real, "counted along the route file: active points only"),
            Column(
                "state", .text,
                "`active`, or why the point counts in no figure: `paused`, `outside` (the workout's span or its parts' "
                    + "windows), `glitch`, `vehicle`; see \"Routes and heart rate\""),
        ])

    package static let splits = CSVFile(
        name: "splits.csv", rowIs: "kilometre (or mile, `--split-unit mi`) of a workout with a route",
        columns: [
            Column("workout_id", .text), Column("activity", .text), Column("unit", .text, "`km` or `mi`"),
            Column("split", .integer, "1, 2, …"),
            Column("distance_m", .real, "the unit, except in the last split"),
            Column("elapsed_s", .real, "active seconds"), Column("moving_s", .real),
            Column("pace_s_per_km", .real, "moving seconds per kilometre"), Column("pace_s_per_mi", .real),
            Column("avg_hr", .real, "weighted by active seconds"), Column("hr_zone", .text, "of `avg_hr`"),
            Column("elevation_gain_m", .real),
            Column("end_utc", .timestamp, "when the split's distance was reached, to the second"),
            Column("partial", .boolean, "`true` for a last split shorter than the unit"),
        ])

    package static let bestEfforts = CSVFile(
        name: "best_efforts.csv",
        rowIs: "fastest stretch of a running or cycling workout over a distance, of a year's workouts, and of all of them",
        columns: [
            Column("scope", .text, "`workout`; `year` for the fastest of a calendar year's workouts; `all_time` for the fastest of every workout"),
            Column("year", .integer, "of a `year` row: the local calendar year of the effort's start; empty otherwise"),
            Column("workout_id", .text, "where it was run or ridden"), Column("activity", .text, "`running` or `cycling`"),
            Column("effort", .text, "`400 m`, `1 km`, `1 mile`, `5 km`, `10 km`, `half marathon`, `marathon`; cycling `5 km` … `40 km`"),
            Column("distance_m", .real), Column("elapsed_s", .real, "wall-clock seconds, pauses included: what efforts are ranked by"),
            Column("active_s", .real, "active seconds: pauses and gaps between parts left out"),
            Column("pace_s_per_km", .real, "from `elapsed_s`"),
            Column("start_utc", .timestamp, "to the second"), Column("end_utc", .timestamp),
        ])

    package static let hrvBeats = CSVFile(
        name: "hrv_beats.csv", rowIs: "instantaneous beat of an HRV record",
        columns: [
            Column("time_utc", .timestamp), Column("utc_offset", .text), Column("bpm", .real), Column("source", .text),
        ])

    package static let activitySummaries = CSVFile(
        name: "activity_summaries.csv", rowIs: "day of Activity rings, as exported",
        columns: [
            Column("date", .date, "local"), Column("active_energy", .real), Column("active_energy_goal", .real), Column("active_energy_unit", .text),
            Column("move_time_min", .real), Column("move_time_goal_min", .real), Column("exercise_min", .real), Column("exercise_goal_min", .real),
            Column("stand_hours", .real), Column("stand_hours_goal", .real),
        ])

    package static let records = CSVFile(
        name: "records/<type>.csv",
        rowIs: "record of every other type, every source (`step_count.csv`, "
            + "`sleep_analysis.csv`, `body_mass.csv`, …)",
        columns: [
            Column("start_utc", .timestamp), Column("end_utc", .timestamp), Column("utc_offset", .text),
            Column(
                "value", .text,
                "the number of a quantity, the word of a category; in SQLite and Parquet real for a quantity type, "
                    + "text for a category"), Column("unit", .text, "canonical"),
            Column("source", .text), Column("original_value", .text, "likewise"),
            Column("original_unit", .text, "the export's, where normalisation changed either"),
        ])

    package static let ecg = CSVFile(
        name: "ecg.csv", rowIs: "Apple Watch ECG recording (`electrocardiograms/*.csv`), sorted by time",
        columns: [
            Column("recording_id", .text, "`20230305T015507Z`, the recorded instant; `-2` on a clash"),
            Column("recorded_utc", .timestamp), Column("utc_offset", .text, "as the file states it"),
            Column("classification", .text, "as written: `Sinus Rhythm`, `Atrial Fibrillation`, `Inconclusive`, `Poor Recording`, …"),
            Column("symptoms", .text, "as written, empty for none"), Column("samples", .integer),
            Column("sample_rate_hz", .real), Column("duration_s", .real, "samples / rate"), Column("lead", .text, "`Lead I`"),
            Column("unit", .text, "of the samples, `µV`"), Column("device", .text, "the Watch model, `Watch6,7`"),
            Column("software_version", .text, "of the ECG app"),
            Column("file", .text, "relative to the export folder"),
        ])

    package static let ecgSamples = CSVFile(
        name: "ecg_samples.csv", rowIs: "sample of an ECG recording (`--ecg-samples`)",
        columns: [
            Column("recording_id", .text, "of ecg.csv"), Column("sample_index", .integer, "from 0"),
            Column("time_offset_s", .real, "since the recording's start: index / rate"),
            Column("microvolts", .real, "as written"),
        ])

    /// Every CSV file, in the order docs/outputs.md lists them.
    package static let csvFiles = [
        daily, sleepNights, sleepSamples, heartRate, workouts, heartRateZones, routePoints, splits, bestEfforts, hrvBeats,
        activitySummaries, ecg, ecgSamples, records,
    ]

    /// The other files, after the CSV files in the table of docs/outputs.md.
    package static let otherFiles = [
        OtherFile(
            name: "`svg/workouts/<workout_id>.svg`, `svg/routes.svg`, `svg/density.svg`, `svg/calendar-<metric>.svg`",
            rowIs: "map or calendar",
            description: "standalone SVG for a browser, Inkscape or a report: see \"Maps\""),
        OtherFile(
            name: "`report.html`", rowIs: "run",
            description: "one self-contained page for a browser, opened from disk with no network: trends, workouts "
                + "with their maps, best efforts, sleep, ECG; see \"Report\""),
        OtherFile(
            name: "`routes.geojson`", rowIs: "route, segment, start, end",
            description: "an RFC 7946 FeatureCollection (WGS84, `[lon, lat]`, 6 decimals) for QGIS, kepler.gl and "
                + "geojson.io: see \"Routes and heart rate\""),
        OtherFile(
            name: "`healthtrail.db`", rowIs: "run (`--format sqlite`)",
            description: "a SQLite table per CSV file above, with keys, time indexes and views: see \"Formats\""),
        OtherFile(
            name: "`parquet/<table>.parquet`", rowIs: "CSV file above (`--format parquet`)",
            description: "the same rows and columns as Parquet: see \"Formats\""),
        OtherFile(name: "`manifest.json`", rowIs: "run", description: "see below"),
    ]

    /// Every file and folder a run writes, in the order docs/outputs.md lists them, each with
    /// the option that asks for it where it is not always written: the list `healthtrail run
    /// --help` (and so the man page) gives, made from `csvFiles` and `otherFiles`.
    package static var writtenFiles: [String] {
        let optional = [ecgSamples.name: "with --ecg-samples", "`healthtrail.db`": "with --format sqlite"]
        let csv = csvFiles.map { file in optional[file.name].map { "\(file.name) (\($0))" } ?? file.name }
        let others = otherFiles.map { file -> String in
            let name = file.name.replacingOccurrences(of: "`", with: "")
            if file.name.hasPrefix("`svg/") { return "svg/ (\(name); not with --no-svg)" }
            if file.name.hasPrefix("`parquet/") { return "\(name) (with --format parquet)" }
            if file.name == "`report.html`" { return "\(name) (not with --no-report)" }
            return optional[file.name].map { "\(name) (\($0))" } ?? name
        }
        return csv + others
    }

    /// The table of docs/outputs.md, row for row (`make docs` writes it there).
    package static var markdownTable: String {
        var lines = ["| file | one row per | columns |", "|---|---|---|"]
        for file in csvFiles {
            let columns = file.columns.map { c in "`\(c.name)` *\(c.type.rawValue)*" + (c.note.map { " (\($0))" } ?? "") }
            lines.append("| `\(file.name)` | \(file.rowIs) | \(columns.joined(separator: ", ")) |")
        }
        for file in otherFiles { lines.append("| \(file.name) | \(file.rowIs) | \(file.description) |") }
        return lines.joined(separator: "\n") + "\n"
    }
}
