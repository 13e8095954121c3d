/// Turns one thread's routes into `route_points.csv` rows, GeoJSON features and route figures.
///
/// For each route (a GPX file, or a workout's inline locations): every point gets its heart
/// rate from the join, its zone and its distance along the route; the row is written at once;
/// the points are kept until the route ends, to cut it into coloured segments for the map.
final class RouteProcessor {
    let join: HeartRateJoin?
    let zones: HeartRateZones
    let csv: CSVWriter?
    let geojson: GeoJSONWriter?
    /// Route figures per workout id, summed over its route files.
    private(set) var statsByWorkout: [String: RouteStats] = [:]

    private var cursor: HeartRateJoin.Cursor?
    private var points: [RoutePoint] = []
    private var stats: RouteStats
    private var workoutID: [UInt8] = []
    private var current: (id: String, activity: String, file: String?)?

    init(join: HeartRateJoin?, zones: HeartRateZones, csv: CSVWriter?, geojson: GeoJSONWriter?) {
        self.join = join
        self.zones = zones
        self.csv = csv
        self.geojson = geojson
        stats = RouteStats(zoneCount: zones.zones.count)
    }

    func begin(workoutID id: String, activity: String, routeFile: String?) {
        current = (id, activity, routeFile)
        workoutID = Array(id.utf8)
        cursor = join.map { HeartRateJoin.Cursor($0) }
        points.removeAll(keepingCapacity: true)
        stats = RouteStats(zoneCount: zones.zones.count)
    }

    /// One point; `raw` carries the file's own text for the numbers (GPX), nil for inline points.
    func add(_ p: RoutePoint, raw: GPXRawFields?, extra: (hAcc: Double?, course: Double?, vAcc: Double?) = (nil, nil, nil)) {
        var point = p
        point.bpm = cursor?.bpm(at: p.time)
        stats.add(point, zones: zones)
        points.append(point)
        guard let w = csv else { return }
        workoutID.withUnsafeBufferPointer { w.field(ByteSpan(start: $0.baseAddress!, count: $0.count)) }
        w.comma()
        w.utc(point.time); w.comma()
        if let raw {
            w.raw(raw.latitude); w.comma()
            w.raw(raw.longitude)
            for field in [raw.elevation, raw.speed, raw.horizontalAccuracy, raw.course, raw.verticalAccuracy] {
                w.comma()
                if let field { w.raw(field) }
            }
        } else {
            w.decimal(point.latitude, digits: 6); w.comma()
            w.decimal(point.longitude, digits: 6)
            for value in [point.elevation, point.speed, extra.hAcc, extra.course, extra.vAcc] {
                w.comma()
                if let value { w.decimal(value, digits: 6) }
            }
        }
        w.comma()
        if let bpm = point.bpm {
            w.decimal(bpm, digits: 1); w.comma()
            w.field(zones.zones[zones.zoneIndex(for: bpm)].name)
        } else {
            w.comma()
        }
        w.comma()
        w.decimal(stats.distance, digits: 1)
        w.endRow()
    }

    /// Ends the route: its map feature, and its figures added to its workout's.
    func end() {
        guard let (id, activity, file) = current else { return }
        current = nil
        statsByWorkout[id, default: RouteStats(zoneCount: zones.zones.count)].merge(stats)
        guard let geojson, let first = points.first, let last = points.last else { return }
        let withBPM = points.compactMap(\.bpm)
        geojson.add(RouteFeature(
            workoutID: id, activity: activity, routeFile: file, start: first.time, end: last.time,
            distanceMeters: stats.distance, durationSeconds: Double(last.time - first.time),
            averageBPM: withBPM.isEmpty ? nil : withBPM.reduce(0, +) / Double(withBPM.count),
            points: points, segments: RouteGeometry.segments(points, zones: zones),
            zoneNames: zones.zones.map(\.name)))
    }
}
