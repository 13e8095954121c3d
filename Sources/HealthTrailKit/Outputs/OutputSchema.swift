import HealthTrailAnalysis

/// The files a run writes and the columns of each CSV: the one list the writers take their
/// header rows from, the table of docs/outputs.md is generated from (`markdownTable`), and the
/// output contract test checks column by column. A column added here and never filled, or
/// filled and not documented, fails that test.
public enum OutputSchema {
    /// One column of a CSV file.
    public struct Column: Sendable, Equatable {
        /// The name in the header row; for `perZone` columns, the pattern `zone_<zone>_s`.
        public var name: String
        /// What a user needs to read the value (units, convention); nil when the name says it.
        public var note: String?
        /// One column per heart-rate zone in use, named by `zoneColumn(_:)`.
        public var perZone = false

        init(_ name: String, _ note: String? = nil, perZone: Bool = false) {
            self.name = name
            self.note = note
            self.perZone = perZone
        }
    }

    /// A CSV file: its name (or name pattern), what one row is, and its columns in order.
    public struct CSVFile: Sendable {
        public var name: String
        public var rowIs: String
        public var columns: [Column]

        /// The header row (per-zone columns left out: see `header(zones:)`).
        public var names: [String] { columns.filter { !$0.perZone }.map(\.name) }

        /// The header row of a run with these zones.
        public func header(zones: HeartRateZones) -> [String] {
            columns.flatMap { $0.perZone ? zones.zones.map { OutputSchema.zoneColumn($0.name) } : [$0.name] }
        }
    }

    /// A file that is not a CSV (maps, GeoJSON, the manifest), described in prose.
    public struct OtherFile: Sendable {
        public var name: String
        public var rowIs: String
        public var description: String
    }

    /// `resting` → `zone_resting_s`, `zone3` → `zone_3_s`: the column of seconds in a zone.
    public static func zoneColumn(_ zoneName: String) -> String {
        let number = zoneName.hasPrefix("zone") ? zoneName.dropFirst(4) : ""
        let label = !number.isEmpty && number.allSatisfy(\.isNumber) ? String(number) : zoneName
        return "zone_\(label)_s"
    }

    public static let daily = CSVFile(
        name: "daily.csv", rowIs: "local date with any data",
        columns: [
            Column("date"), Column("steps"), Column("distance_m", "walking + running"), Column("active_kcal"),
            Column("exercise_min"), Column("stand_hours"), Column("resting_hr"), Column("avg_hr"), Column("hrv_sdnn_ms"),
            Column("sleep_asleep_min", "the night ending that morning"), Column("workouts"), Column("basal_kcal"),
            Column("flights"), Column("workout_min", "0 on a day without workouts, like `workouts`"),
        ])

    public static let sleepNights = CSVFile(
        name: "sleep_nights.csv",
        rowIs: "night, dated by the local date of the morning it ends",
        columns: [
            Column("date"), Column("bed_start_utc"), Column("wake_end_utc"), Column("utc_offset"), Column("in_bed_min"),
            Column("asleep_min"), Column("latency_min"), Column("efficiency", "asleep / in bed"), Column("awakenings"),
            Column("core_min", "empty on a night whose source recorded no stages"), Column("deep_min"), Column("rem_min"),
            Column("sources", "`;`-separated"),
        ])

    public static let sleepSamples = CSVFile(
        name: "sleep_samples.csv", rowIs: "sleep sample, every source",
        columns: [
            Column("start_utc"), Column("end_utc"), Column("utc_offset"),
            Column("stage", "`in_bed`, `asleep`, `core`, `deep`, `rem`, `awake`"), Column("source"),
        ])

    public static let heartRate = CSVFile(
        name: "heart_rate.csv",
        rowIs: "heart-rate sample (`HKQuantityTypeIdentifierHeartRate`)",
        columns: [
            Column("time_utc"), Column("utc_offset"), Column("bpm"), Column("source"),
            Column("motion_context", "`sedentary`, `active` or empty"),
        ])

    public static let workouts = CSVFile(
        name: "workouts.csv", rowIs: "workout, sorted by start",
        columns: [
            Column("workout_id"), Column("activity", "`running`, `traditional_strength_training`, …"), Column("start_utc"),
            Column("end_utc"), Column("utc_offset", "of the workout's own time zone when known"), Column("duration_s"),
            Column("source"), Column("route_files", "`;`-separated, relative to the export folder"), Column("distance_m"),
            Column("energy_kcal"), Column("avg_hr"), Column("max_hr"), Column("indoor", "`true`/`false`/empty"),
            Column("time_zone", "`Europe/Paris`"), Column("parts"), Column("min_hr"),
            Column(
                "hr_source",
                "`workout` when the heart-rate figures are the export's own, `route` when they come from the "
                    + "samples joined to the route's points, empty when there are none"),
            Column("elevation_ascended_m"), Column("weather_temp_c"), Column("weather_humidity_pct"),
            Column("route_distance_m", "this and the next columns from the route's points"), Column("moving_time_s"),
            Column("pace_s_per_km"), Column("elevation_gain_m"),
            Column(
                "zone_<zone>_s",
                "seconds in each heart-rate zone in use, named after it: `zone_resting_s` … "
                    + "`zone_maximum_s` with the default zones, `zone_1_s` … `zone_5_s` with `--max-hr`; empty "
                    + "when no route point has a heart rate", perZone: true),
        ])

    public static let routePoints = CSVFile(
        name: "route_points.csv",
        rowIs: "GPS point of a route file (GPX) or of an old inline `WorkoutRoute/Location`",
        columns: [
            Column("workout_id"), Column("time_utc"), Column("lat", "WGS84 degrees"), Column("lon"), Column("ele_m"),
            Column("speed_mps"), Column("h_acc_m"), Column("course_deg"), Column("v_acc_m"),
            Column("hr_bpm", "heart rate at that moment"), Column("hr_zone"), Column("distance_m", "along the route file"),
        ])

    public static let hrvBeats = CSVFile(
        name: "hrv_beats.csv", rowIs: "instantaneous beat of an HRV record",
        columns: [
            Column("time_utc"), Column("utc_offset"), Column("bpm"), Column("source"),
        ])

    public static let activitySummaries = CSVFile(
        name: "activity_summaries.csv", rowIs: "day of Activity rings, as exported",
        columns: [
            Column("date", "local"), Column("active_energy"), Column("active_energy_goal"), Column("active_energy_unit"),
            Column("move_time_min"), Column("move_time_goal_min"), Column("exercise_min"), Column("exercise_goal_min"),
            Column("stand_hours"), Column("stand_hours_goal"),
        ])

    public static let records = CSVFile(
        name: "records/<type>.csv",
        rowIs: "record of every other type, every source (`step_count.csv`, "
            + "`sleep_analysis.csv`, `body_mass.csv`, …)",
        columns: [
            Column("start_utc"), Column("end_utc"), Column("utc_offset"), Column("value"), Column("unit", "canonical"),
            Column("source"), Column("original_value"),
            Column("original_unit", "the export's, where normalisation changed either"),
        ])

    /// Every CSV file, in the order docs/outputs.md lists them.
    public static let csvFiles = [
        daily, sleepNights, sleepSamples, heartRate, workouts, routePoints, hrvBeats,
        activitySummaries, records,
    ]

    /// The other files, after the CSV files in the table of docs/outputs.md.
    public static let otherFiles = [
        OtherFile(
            name: "`svg/workouts/<workout_id>.svg`, `svg/routes.svg`, `svg/density.svg`, `svg/calendar-<metric>.svg`",
            rowIs: "map or calendar",
            description: "standalone SVG for a browser, Inkscape or a report: see \"Maps\""),
        OtherFile(
            name: "`routes.geojson`", rowIs: "route, segment, start, end",
            description: "an RFC 7946 FeatureCollection (WGS84, `[lon, lat]`, 6 decimals) for QGIS, kepler.gl and "
                + "geojson.io: see \"Routes and heart rate\""),
        OtherFile(name: "`manifest.json`", rowIs: "run", description: "see below"),
    ]

    /// The table of docs/outputs.md, row for row (`make docs` writes it there).
    public static var markdownTable: String {
        var lines = ["| file | one row per | columns |", "|---|---|---|"]
        for file in csvFiles {
            let columns = file.columns.map { c in "`\(c.name)`" + (c.note.map { " (\($0))" } ?? "") }
            lines.append("| `\(file.name)` | \(file.rowIs) | \(columns.joined(separator: ", ")) |")
        }
        for file in otherFiles { lines.append("| \(file.name) | \(file.rowIs) | \(file.description) |") }
        return lines.joined(separator: "\n") + "\n"
    }
}
