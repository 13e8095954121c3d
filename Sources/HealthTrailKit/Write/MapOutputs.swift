/// The SVG maps of a run: one per workout with a route, all routes together, the route density,
/// and a calendar per daily metric, under `svg/`.
public struct MapOutputs: Sendable {
    /// Drawing options (size, colour scale, density area, minimum points).
    public var options = SVGOptions()
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
    static func writeOverviewAndDensity(_ tracks: MapTracks, options: SVGOptions, staging: OutputStaging) throws {
        let usable = tracks.tracks.filter { $0.coordinates.count / 2 >= options.minimumPoints }
        guard !usable.isEmpty else { return }
        let points = usable.map(MapTracks.points(of:))
        // Simplify each track to half a pixel of the whole map before drawing the overview.
        let bounds = options.densityBoundingBox ?? GeoBoundingBox(tracks: points)
        var routes: [MapRoute] = []
        for (track, trackPoints) in zip(usable, points) {
            var kept = trackPoints
            if let b = bounds {
                let tolerance = 0.5 * pixelSize(of: b, size: options.size)
                let projected = trackPoints.map { WebMercator.project(lat: $0.latitude, lon: $0.longitude) }
                kept = PolylineSimplification.douglasPeucker(projected, tolerance: tolerance).map { trackPoints[$0] }
            }
            routes.append(MapRoute(workoutID: track.workoutID, activity: track.activity, start: track.start, end: track.start,
                                   distanceMeters: 0, meanBPM: nil, points: kept))
        }
        try OutputFile.write(RoutesOverviewSVG.render(routes, options: options), to: staging.path("svg/routes.svg"))
        try OutputFile.write(DensityMapSVG.render(tracks: points, options: options), to: staging.path("svg/density.svg"))
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
