import Foundation

/// The CSV files one run writes while export.xml and the route files stream through.
///
/// Column lists are the contract documented in the README; change both together.
public final class ExportOutputs {
    public static let heartRateColumns = ["time_utc", "utc_offset", "bpm", "source", "motion_context"]
    public static let recordColumns = ["start_utc", "end_utc", "utc_offset", "value", "unit", "source",
                                       "original_value", "original_unit"]
    public static let routePointColumns = ["workout_id", "time_utc", "lat", "lon", "ele_m", "speed_mps", "h_acc_m",
                                           "course_deg", "v_acc_m", "hr_bpm", "hr_zone", "distance_m"]
    public static let hrvBeatColumns = ["time_utc", "utc_offset", "bpm", "source"]
    public static let activitySummaryColumns = ["date", "active_energy", "active_energy_goal", "active_energy_unit",
                                                "move_time_min", "move_time_goal_min", "exercise_min",
                                                "exercise_goal_min", "stand_hours", "stand_hours_goal"]
    public static let workoutColumns = ["workout_id", "activity", "start_utc", "end_utc", "utc_offset", "duration_s",
                                        "source", "route_files", "distance_m", "energy_kcal", "avg_hr", "max_hr",
                                        "indoor", "time_zone", "parts", "min_hr", "elevation_ascended_m",
                                        "weather_temp_c", "weather_humidity_pct", "route_distance_m", "moving_time_s",
                                        "pace_s_per_km", "elevation_gain_m", "zone_1_s", "zone_2_s", "zone_3_s", "zone_4_s",
                                        "zone_5_s"]

    let staging: OutputStaging
    public let heartRate: CSVWriter
    public let routePoints: CSVWriter
    public let hrvBeats: CSVWriter
    public let activitySummaries: CSVWriter
    private var writers: [(name: String, writer: CSVWriter)] = []

    public init(staging: OutputStaging) throws {
        self.staging = staging
        // Files written while export.xml is parsed hand their writes to another thread (write-behind).
        heartRate = try CSVWriter(path: staging.path("heart_rate.csv"), header: Self.heartRateColumns, bufferSize: 1 << 20,
                                  writeBehind: true)
        routePoints = try CSVWriter(path: staging.path("route_points.csv"), header: Self.routePointColumns, bufferSize: 1 << 20,
                                    writeBehind: true)
        hrvBeats = try CSVWriter(path: staging.path("hrv_beats.csv"), header: Self.hrvBeatColumns, writeBehind: true)
        activitySummaries = try CSVWriter(path: staging.path("activity_summaries.csv"), header: Self.activitySummaryColumns,
                                          writeBehind: true)
        writers = [("heart_rate.csv", heartRate), ("route_points.csv", routePoints), ("hrv_beats.csv", hrvBeats),
                   ("activity_summaries.csv", activitySummaries)]
    }

    /// Record-type file names already taken (`StepCount` of two identifier families, or `FooBar`
    /// and `Foo_Bar`, would otherwise share a file and overwrite each other).
    private var takenNames: Set<String> = []

    /// The `records/<name>.csv` writer of a record type, created on first use.
    func recordWriter(for type: RecordType) throws -> CSVWriter {
        if let w = type.writer { return w.takeUnretainedValue() }
        var base = type.fileName, n = 2
        while takenNames.contains(base) { base = "\(type.fileName)-\(n)"; n += 1 }
        takenNames.insert(base)
        let name = "records/\(base).csv"
        // Large buffers only where the data is large: dozens of types would otherwise cost RSS.
        let w = try CSVWriter(path: staging.path(name), header: Self.recordColumns, bufferSize: 64 * 1024, writeBehind: true)
        type.writer = Unmanaged.passUnretained(w)   // `writers` below keeps it
        writers.append((name, w))
        return w
    }

    /// A further CSV in the staging folder (e.g. `workouts.csv`), closed with the others.
    public func addWriter(_ name: String, header: [String]) throws -> CSVWriter {
        let w = try CSVWriter(path: staging.path(name), header: header)
        writers.append((name, w))
        return w
    }

    /// Syncs and closes every file; returns each output's name and row count.
    ///
    /// Each file must be on disk before it is renamed into place. One fsync after another costs
    /// a journal commit each (≈3 ms on a VM disk, dozens of files); issued concurrently they
    /// share commits, so each file gets its own thread for the wait.
    public func closeAll() throws -> [(name: String, rows: Int)] {
        let group = DispatchGroup()
        for (_, w) in writers {
            w.flush()
            group.enter()
            Thread { w.sync(); group.leave() }.start()
        }
        group.wait()
        for (_, w) in writers { try w.close() }
        return writers.map { ($0.name, $0.writer.rows) }.sorted { $0.name < $1.name }
    }
}
