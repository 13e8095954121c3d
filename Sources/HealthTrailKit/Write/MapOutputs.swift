/// The SVG maps of a run: one per workout with a route, all routes together, the route density,
/// and a calendar per daily metric, under `svg/`.
public struct MapOutputs: Sendable {
    /// Drawing options (size, colour scale, density area, minimum points).
    public var options = SVGOptions()
    /// Which maps to draw.
    public var kinds: Set<Kind> = Set(Kind.allCases)

    /// The kinds of map, as `--maps` names them.
    public enum Kind: String, CaseIterable, Sendable {
        case workouts, routes, density, calendars
    }
    /// Daily metrics drawn as calendars: `daily.csv` column → (file name part, unit).
    static let calendars: [(column: String, metric: String, unit: String)] = [
        ("steps", "steps", "steps"), ("sleep_asleep_min", "sleep", "min asleep"),
        ("resting_hr", "resting-hr", "bpm"), ("workout_min", "workout-minutes", "min"),
    ]

    public init() {}

    /// Writes a workout's map: `svg/workouts/<id>.svg`.
    static func writeWorkout(_ route: MapRoute, zones: HeartRateZones, options: SVGOptions, staging: OutputStaging) throws {
        guard route.points.count >= options.minimumPoints else { return }
        let path = try staging.path("svg/workouts/\(route.workoutID).svg")
        try OutputFile.write(WorkoutMapSVG.render(route, zones: zones, options: options), to: path)
    }

    /// Writes `svg/routes.svg` and `svg/density.svg` from every route's track.
    ///
    /// Tracks are turned back into points one at a time: the density map keeps them as 8-byte
    /// grid coordinates, the overview only their simplified shape, so memory stays near the
    /// tracks' own size however long the history.
    static func writeOverviewAndDensity(_ tracks: MapTracks, options given: SVGOptions, kinds: Set<Kind>,
                                        staging: OutputStaging) throws {
        guard kinds.contains(.routes) || kinds.contains(.density) else { return }
        var options = given
        // One trip abroad would otherwise shrink home to a dot: unless an area is given, the maps
        // cover where the central 98 % of points lie.
        if options.densityBoundingBox == nil { options.densityBoundingBox = coreArea(of: tracks) }
        let area = options.densityBoundingBox
        let usable = tracks.tracks.filter { track in
            guard track.coordinates.count / 2 >= options.minimumPoints else { return false }
            guard let a = area else { return true }
            let lat = Double(track.coordinates[0]), lon = Double(track.coordinates[1])
            return lat >= a.minLatitude && lat <= a.maxLatitude && lon >= a.minLongitude && lon <= a.maxLongitude
        }
        guard !tracks.tracks.isEmpty else { return }
        var density = DensityTracks()
        for track in tracks.tracks where track.coordinates.count / 2 >= options.minimumPoints {
            density.add(track: MapTracks.points(of: track))   // outside the area, cells are clipped
        }
        if kinds.contains(.density) {
            try OutputFile.write(DensityMapSVG.render(grid: density.grid(options: options), options: options),
                                 to: staging.path("svg/density.svg"))
        }
        guard kinds.contains(.routes), !usable.isEmpty else { return }

        // Simplify each track to half a pixel of the whole map before drawing the overview.
        let bounds = area ?? density.bounds
        let tolerance = bounds.map { 0.5 * pixelSize(of: $0, size: options.size) }
        let routes: [MapRoute] = usable.map { track in
            let points = MapTracks.points(of: track)
            var kept = points
            if let tolerance {
                let projected = points.map { WebMercator.project(lat: $0.latitude, lon: $0.longitude) }
                kept = PolylineSimplification.douglasPeucker(projected, tolerance: tolerance).map { points[$0] }
            }
            return MapRoute(workoutID: track.workoutID, activity: track.activity, start: track.start, end: track.start,
                            distanceMeters: 0, meanBPM: nil, points: kept)
        }
        try OutputFile.write(RoutesOverviewSVG.render(routes, options: options), to: staging.path("svg/routes.svg"))
    }

    /// Where someone's routes are, without the odd trip stretching the map: the busiest 1° cell
    /// (home) and its eight neighbours keep their points, and the box runs from the 1st to the
    /// 99th percentile of their latitude and of their longitude, padded by 5 %.
    ///
    /// Percentiles alone are not enough: once trips abroad hold more than 1 % of the points (a
    /// long history with a yearly holiday), the box spans an ocean and home is one cell.
    static func coreArea(of tracks: MapTracks) -> GeoBoundingBox? {
        func cell(_ lat: Float, _ lon: Float) -> (Int, Int) { (Int(lat.rounded(.down)), Int(lon.rounded(.down))) }
        var counts: [Int: Int] = [:]
        for t in tracks.tracks {
            for i in stride(from: 0, to: t.coordinates.count, by: 2) {
                let (y, x) = cell(t.coordinates[i], t.coordinates[i + 1])
                counts[y * 1000 + x, default: 0] += 1
            }
        }
        guard let busiest = counts.max(by: { ($0.value, $1.key) < ($1.value, $0.key) })?.key else { return nil }
        let homeY = Int((Double(busiest) / 1000).rounded()), homeX = busiest - homeY * 1000
        var lats: [Float] = [], lons: [Float] = []
        lats.reserveCapacity(tracks.pointCount); lons.reserveCapacity(tracks.pointCount)
        for t in tracks.tracks {
            for i in stride(from: 0, to: t.coordinates.count, by: 2) {
                let (y, x) = cell(t.coordinates[i], t.coordinates[i + 1])
                guard abs(y - homeY) <= 1, abs(x - homeX) <= 1 else { continue }
                lats.append(t.coordinates[i]); lons.append(t.coordinates[i + 1])
            }
        }
        guard lats.count >= 2 else { return nil }
        lats.sort(); lons.sort()
        func at(_ sorted: [Float], _ q: Double) -> Double { Double(sorted[Int(Double(sorted.count - 1) * q)]) }
        var box = (at(lats, 0.01), at(lons, 0.01), at(lats, 0.99), at(lons, 0.99))
        let padLat = max(0.002, (box.2 - box.0) * 0.05), padLon = max(0.002, (box.3 - box.1) * 0.05)
        box = (box.0 - padLat, box.1 - padLon, box.2 + padLat, box.3 + padLon)
        return GeoBoundingBox(minLatitude: max(-85, box.0), minLongitude: max(-180, box.1),
                              maxLatitude: min(85, box.2), maxLongitude: min(180, box.3))
    }

    /// Web Mercator world units per pixel of a map of `size` pixels over `bounds`.
    static func pixelSize(of bounds: GeoBoundingBox, size: Int) -> Double {
        let a = WebMercator.project(lat: bounds.minLatitude, lon: bounds.minLongitude)
        let b = WebMercator.project(lat: bounds.maxLatitude, lon: bounds.maxLongitude)
        return max(abs(b.x - a.x), abs(b.y - a.y)) / Double(max(1, size))
    }

    /// Writes `svg/calendar-<metric>.svg` for each daily metric that has values.
    static func writeCalendars(_ daily: DailySummary, options: SVGOptions, staging: OutputStaging) throws {
        let days = daily.days
        for (column, metric, unit) in calendars {
            let values: [(date: String, value: Double)] = days.compactMap { day, f in
                guard let v = DailySummary.value(of: column, in: f) else { return nil }
                return (Timestamp(utcSeconds: day * 86_400).localDateString, v)
            }
            guard !values.isEmpty else { continue }
            try OutputFile.write(CalendarHeatmapSVG.render(metric: metric, unit: unit, values: values, options: options),
                                 to: staging.path("svg/calendar-\(metric).svg"))
        }
    }
}
