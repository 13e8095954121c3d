import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailCommit
import HealthTrailDecode
import HealthTrailWrite

/// `report.html`: the page `ReportPage` draws, from the tables the run has just staged.
///
/// The tables are read back from the staging folder, as `TableFormatStage` reads them for the
/// other formats, rather than kept from the stages that wrote them: the route points (the maps'
/// heart rate, times and elevations) stream through the run and are never held whole, so the
/// staged `route_points.csv` is the one place they all are, whatever maps the run draws; and
/// the page then shows exactly the values of the files beside it. Only the page's own
/// simplified shapes are kept, one route at a time.
package enum ReportOutputs {
    /// The page's file name in the output folder.
    package static let fileName = "report.html"

    /// Reads the staged CSV files in `staging` and writes `report.html` there.
    static func write(staging: OutputStaging) throws {
        let content = try gather(staging: staging)
        try staging.writeFile(ReportPage.render(content), to: staging.path(fileName))
    }

    /// The page's content from the staged tables; a table that is missing is left empty.
    static func gather(staging: OutputStaging) throws -> ReportContent {
        var content = ReportContent()
        func path(_ name: String) throws -> String? {
            let p = try staging.path(name)
            return FileManager.default.fileExists(atPath: p) ? p : nil
        }
        if let p = try path(OutputSchema.daily.name) { content.days = try days(p) }
        if let name = RecordType.fileName(for: "HKQuantityTypeIdentifierVO2Max"), let p = try path("records/\(name).csv") {
            try addVO2Max(p, to: &content.days)
        }
        if let p = try path(OutputSchema.workouts.name) { content.workouts = try workouts(p) }
        if let p = try path(OutputSchema.splits.name) { content.splits = try splits(p) }
        if let p = try path(OutputSchema.bestEfforts.name) { content.efforts = try efforts(p) }
        if let p = try path(OutputSchema.sleepNights.name) { content.nights = try nights(p) }
        if let p = try path(OutputSchema.ecg.name) { content.ecg = try ecg(p) }
        if let p = try path(OutputSchema.routePoints.name) { content.routes = try routes(p) }
        return content
    }

    // MARK: Tables

    /// Calls `body` with each record of a CSV file after its header, and the header's columns.
    private static func forEachRow(_ path: String, _ body: (CSVRecordReader.Record, Columns) throws -> Void) throws {
        var columns = Columns()
        try CSVRecordReader.forEachRecord(path: path) { record in
            if record.number == 1 {
                for i in 0..<record.count { columns.index[record.field(i).string] = i }
                return
            }
            try body(record, columns)
        }
    }

    /// A file's columns by name, and its fields read by column name.
    private struct Columns {
        var index: [String: Int] = [:]

        func text(_ record: CSVRecordReader.Record, _ name: String) -> String {
            guard let i = index[name], i < record.count else { return "" }
            return record.field(i).string
        }

        func number(_ record: CSVRecordReader.Record, _ name: String) -> Double? {
            guard let i = index[name], i < record.count else { return nil }
            let span = record.field(i)
            guard span.count > 0, let v = NumberText.fastDouble(span), v.isFinite else { return nil }
            return v
        }

        func time(_ record: CSVRecordReader.Record, _ name: String) -> Int64? {
            guard let i = index[name], i < record.count else { return nil }
            return Timestamp.parse(record.field(i))?.utcSeconds
        }

        func offset(_ record: CSVRecordReader.Record, _ name: String) -> Int32 { ReportOutputs.offsetMinutes(text(record, name)) }

        /// Days since 1970-01-01 of a `2024-01-02` field, read in place (a `String` per row would
        /// be an allocation per day).
        func day(_ record: CSVRecordReader.Record, _ name: String) -> Int64? {
            guard let i = index[name], i < record.count else { return nil }
            let s = record.field(i)
            guard s.count == 10, let y = Timestamp.digits(s, 0, 4), s[4] == 0x2D, let m = Timestamp.digits(s, 5, 2), s[7] == 0x2D,
                let d = Timestamp.digits(s, 8, 2), (1...12).contains(m), (1...Timestamp.daysIn(month: m, year: y)).contains(d)
            else { return nil }
            return Timestamp.daysFromCivil(year: y, month: m, day: d)
        }
    }

    /// `+01:00` → 60, `-05:30` → −330; 0 for anything else.
    static func offsetMinutes(_ text: String) -> Int32 {
        let b = Array(text.utf8)
        guard b.count == 6, b[0] == 0x2B || b[0] == 0x2D, b[3] == 0x3A,
            let h = Int32(String(decoding: b[1..<3], as: UTF8.self)), let m = Int32(String(decoding: b[4..<6], as: UTF8.self))
        else { return 0 }
        return (b[0] == 0x2D ? -1 : 1) * (h * 60 + m)
    }

    private static func days(_ path: String) throws -> [ReportDay] {
        var days: [ReportDay] = []
        try forEachRow(path) { r, c in
            guard let day = c.day(r, "date") else { return }
            days.append(
                ReportDay(
                    day: day, steps: c.number(r, "steps"), distanceMeters: c.number(r, "distance_m"), activeKcal: c.number(r, "active_kcal"),
                    restingHR: c.number(r, "resting_hr"), hrvMS: c.number(r, "hrv_sdnn_ms"), sleepMinutes: c.number(r, "sleep_asleep_min"),
                    timeZone: c.text(r, "time_zone")))
        }
        return days.sorted { $0.day < $1.day }
    }

    /// Each day's last VO2 max, on the days of `daily.csv` (a day with only VO2 max is added).
    private static func addVO2Max(_ path: String, to days: inout [ReportDay]) throws {
        var latest: [Int64: (time: Int64, value: Double)] = [:]
        try forEachRow(path) { r, c in
            guard let start = c.time(r, "start_utc"), let value = c.number(r, "value") else { return }
            let day = Timestamp.day(ofLocalSeconds: start + Int64(c.offset(r, "utc_offset")) * 60)
            if let seen = latest[day], seen.time > start { return }
            latest[day] = (start, value)
        }
        guard !latest.isEmpty else { return }
        var index = Dictionary(days.enumerated().map { ($1.day, $0) }, uniquingKeysWith: { a, _ in a })
        for (day, v) in latest {
            if let i = index[day] {
                days[i].vo2Max = v.value
            } else {
                days.append(ReportDay(day: day, vo2Max: v.value))
                index[day] = days.count - 1
            }
        }
        days.sort { $0.day < $1.day }
    }

    private static func workouts(_ path: String) throws -> [ReportWorkout] {
        var out: [ReportWorkout] = []
        try forEachRow(path) { r, c in
            guard let start = c.time(r, "start_utc") else { return }
            out.append(
                ReportWorkout(
                    id: c.text(r, "workout_id"), activity: c.text(r, "activity"), start: start, offsetMinutes: c.offset(r, "utc_offset"),
                    duration: c.number(r, "duration_s") ?? 0,
                    distanceMeters: (c.number(r, "distance_m") ?? c.number(r, "route_distance_m")).flatMap { $0 > 0 ? $0 : nil },
                    avgHR: c.number(r, "avg_hr"), maxHR: c.number(r, "max_hr"), paceSecondsPerKm: c.number(r, "pace_s_per_km"),
                    energyKcal: c.number(r, "energy_kcal"), elevationGainMeters: c.number(r, "elevation_gain_m"), source: c.text(r, "source")))
        }
        return out
    }

    private static func splits(_ path: String) throws -> [String: [ReportSplit]] {
        var out: [String: [ReportSplit]] = [:]
        try forEachRow(path) { r, c in
            out[c.text(r, "workout_id"), default: []].append(
                ReportSplit(
                    number: Int(c.number(r, "split") ?? 0), unit: c.text(r, "unit"), distanceMeters: c.number(r, "distance_m") ?? 0,
                    movingSeconds: c.number(r, "moving_s") ?? 0, paceSecondsPerKm: c.number(r, "pace_s_per_km"), avgHR: c.number(r, "avg_hr"),
                    elevationGainMeters: c.number(r, "elevation_gain_m")))
        }
        return out
    }

    private static func efforts(_ path: String) throws -> [ReportEffort] {
        var out: [ReportEffort] = []
        try forEachRow(path) { r, c in
            guard let elapsed = c.number(r, "elapsed_s"), let pace = c.number(r, "pace_s_per_km") else { return }
            out.append(
                ReportEffort(
                    scope: c.text(r, "scope"), year: c.number(r, "year").map { Int($0) }, workoutID: c.text(r, "workout_id"),
                    activity: c.text(r, "activity"), effort: c.text(r, "effort"), distanceMeters: c.number(r, "distance_m") ?? 0,
                    elapsedSeconds: elapsed, paceSecondsPerKm: pace, start: c.time(r, "start_utc") ?? 0))
        }
        return out
    }

    private static func nights(_ path: String) throws -> [ReportNight] {
        var out: [ReportNight] = []
        try forEachRow(path) { r, c in
            guard let day = c.day(r, "date") else { return }
            out.append(
                ReportNight(
                    day: day, inBedMinutes: c.number(r, "in_bed_min") ?? 0, asleepMinutes: c.number(r, "asleep_min") ?? 0,
                    coreMinutes: c.number(r, "core_min"), deepMinutes: c.number(r, "deep_min"), remMinutes: c.number(r, "rem_min")))
        }
        return out.sorted { $0.day < $1.day }
    }

    private static func ecg(_ path: String) throws -> [ReportECG] {
        var out: [ReportECG] = []
        try forEachRow(path) { r, c in
            guard let recorded = c.time(r, "recorded_utc") else { return }
            out.append(
                ReportECG(
                    recorded: recorded, offsetMinutes: c.offset(r, "utc_offset"), classification: c.text(r, "classification"),
                    symptoms: c.text(r, "symptoms"), durationSeconds: c.number(r, "duration_s")))
        }
        return out
    }

    /// Each workout's route from its active points (the file holds a workout's points together;
    /// a workout met again later is drawn from its last stretch of rows).
    private static func routes(_ path: String) throws -> [String: ReportRoute] {
        var out: [String: ReportRoute] = [:]
        var current: [UInt8] = []
        var points: [ReportRoute.Point] = []
        func finish() {
            if let route = ReportRoute(points) { out[String(decoding: current, as: UTF8.self)] = route }
            points.removeAll(keepingCapacity: true)
        }
        // The columns' indices, found in the header once: nil until then, or when one is missing.
        var at: (id: Int, time: Int, lat: Int, lon: Int, ele: Int, bpm: Int, distance: Int, state: Int, count: Int)?
        try CSVRecordReader.forEachRecord(path: path) { record in
            if record.number == 1 {
                var columns: [String: Int] = [:]
                for i in 0..<record.count { columns[record.field(i).string] = i }
                if let id = columns["workout_id"], let time = columns["time_utc"], let lat = columns["lat"], let lon = columns["lon"],
                    let ele = columns["ele_m"], let bpm = columns["hr_bpm"], let distance = columns["distance_m"], let state = columns["state"]
                {
                    at = (id, time, lat, lon, ele, bpm, distance, state, record.count)
                }
                return
            }
            guard let (id, time, lat, lon, ele, bpm, distance, state, count) = at, record.count == count else { return }
            let workout = record.field(id)
            if !workout.equals(current) {
                finish()
                current = workout.bytes
            }
            guard record.field(state).equals("active"), let t = Timestamp.parse(record.field(time)),
                let la = NumberText.fastDouble(record.field(lat)), let lo = NumberText.fastDouble(record.field(lon))
            else { return }
            let e = record.field(ele), b = record.field(bpm), d = record.field(distance)
            points.append(
                ReportRoute.Point(
                    time: t.utcSeconds, latitude: la, longitude: lo, elevation: e.count > 0 ? NumberText.fastDouble(e) : nil,
                    bpm: b.count > 0 ? NumberText.fastDouble(b) : nil, distance: d.count > 0 ? NumberText.fastDouble(d) : nil))
        }
        finish()
        return out
    }
}
