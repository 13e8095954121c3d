import HealthTrailAnalysis
import HealthTrailBase
import HealthTrailCommit
import HealthTrailDecode
import HealthTrailWrite

/// The SVG maps of a run: one per workout with a route, all routes together, the route density,
/// and a calendar per daily metric, under `svg/`.
package struct MapOutputs: Sendable {
    /// Drawing options (size, colour scale, density area, minimum points).
    package var options = SVGOptions()
    /// Which maps to draw.
    package var kinds: Set<Kind> = Set(Kind.allCases)

    /// The kinds of map, as `--maps` names them.
    package enum Kind: String, CaseIterable, Sendable {
        case workouts, routes, density, calendars
    }
    /// Daily metrics drawn as calendars: `daily.csv` column → (file name part, title, unit of
    /// the tooltips and legend, how values are written). Titles name the quantity, "per day"
    /// when it is a day's total, and the unit in parentheses unless it is a count. Sleep, a
    /// duration of hours, reads as `h:mm` (7:32) rather than minutes (452).
    static let calendars: [(column: String, metric: String, title: String, unit: String, format: CalendarValueFormat)] = [
        ("steps", "steps", "Steps per day", "steps", .number),
        ("sleep_asleep_min", "sleep", "Time asleep per night (h:mm)", "asleep", .hoursMinutes),
        ("resting_hr", "resting-hr", "Resting heart rate (bpm)", "bpm", .number),
        ("workout_min", "workout-minutes", "Workout time per day (min)", "min", .number),
    ]

    package init() {}

    /// Writes a workout's map: `svg/workouts/<id>.svg`.
    static func writeWorkout(_ route: MapRoute, zones: HeartRateZones, options: SVGOptions, staging: OutputStaging) throws {
        guard route.points.count >= options.minimumPoints else { return }
        let path = try staging.path("svg/workouts/\(route.workoutID).svg")
        try staging.writeFile(WorkoutMapSVG.render(route, zones: zones, options: options), to: path)
    }

    /// Writes `svg/routes.svg` and `svg/density.svg` from every route's track; returns how many
    /// routes the overview left out because they start outside its area (nil: no overview).
    ///
    /// Tracks are read back one at a time (from their spill file): the density grid counts them
    /// as they come, and the overview keeps only their shape simplified to half a pixel, so
    /// memory is the grid's and the simplified shapes', however long the history.
    static func writeOverviewAndDensity(
        _ tracks: MapTracks, options given: SVGOptions, kinds: Set<Kind>,
        staging: OutputStaging
    ) throws -> Int? {
        guard kinds.contains(.routes) || kinds.contains(.density) else { return nil }
        guard !tracks.tracks.isEmpty else { return nil }
        var options = given
        // One trip abroad would otherwise shrink home to a dot: unless an area is given, the maps
        // cover where most points lie (see `coreArea`).
        if options.densityBoundingBox == nil { options.densityBoundingBox = try coreArea(of: tracks) }
        let area = options.densityBoundingBox
        let drawable = tracks.tracks.filter { $0.pointCount >= options.minimumPoints }

        var bounds = area
        var densityMap: BackgroundTask<Void>?
        // Waited for on every way out: it writes into the staging folder.
        defer { _ = try? densityMap?.value() }
        if let area {
            if kinds.contains(.density) {
                // With the area known, the density map is drawn on a thread of its own while this
                // one draws the overview: the two are the last work of a run, and one core would
                // otherwise wait.
                let path = try staging.path("svg/density.svg")
                try tracks.prepareForConcurrentReads()
                densityMap = BackgroundTask { [options] in
                    var grid = DensityGrid(bounds: area, options: options)
                    for track in drawable { grid.add(track: try MapTracks.points(of: track)) }   // outside the area, cells are clipped
                    try staging.writeFile(DensityMapSVG.render(grid: grid, options: options), to: path)
                }
            }
        } else {
            // No area (fewer than two points near home): the few points decide it.
            var density = DensityTracks()
            for track in drawable { density.add(track: try MapTracks.points(of: track)) }
            bounds = density.bounds
            if kinds.contains(.density) {
                try staging.writeFile(
                    DensityMapSVG.render(grid: density.grid(options: options), options: options),
                    to: staging.path("svg/density.svg"))
            }
        }
        let outsideArea = try drawOverview(drawable, area: area, bounds: bounds, options: options, kinds: kinds, staging: staging)
        try densityMap?.value()
        return outsideArea
    }

    /// Writes `svg/routes.svg`: the routes starting inside `area` (all when there is none),
    /// simplified to half a pixel of a map of `bounds`; returns how many started outside it (nil:
    /// no overview drawn). A trip abroad would shrink home to a dot; leaving it out is said in
    /// the map and the manifest, never done silently.
    private static func drawOverview(
        _ drawable: [MapTracks.Track], area: GeoBoundingBox?, bounds: GeoBoundingBox?,
        options: SVGOptions, kinds: Set<Kind>, staging: OutputStaging
    ) throws -> Int? {
        guard kinds.contains(.routes) else { return nil }

        // Routes starting inside the area, simplified to half a pixel of the whole map.
        let tolerance = bounds.map { 0.5 * pixelSize(of: $0, size: options.size) }
        var routes: [RoutesOverviewSVG.OverviewRoute] = []
        var outsideArea = 0
        for track in drawable {
            let coordinates = try MapTracks.coordinates(of: track)
            if let a = area {
                let lat = Double(coordinates[0]), lon = Double(coordinates[1])
                guard lat >= a.minLatitude && lat <= a.maxLatitude && lon >= a.minLongitude && lon <= a.maxLongitude else {
                    outsideArea += 1
                    continue
                }
            }
            var kept = coordinates
            if let tolerance {
                let projected = stride(from: 0, to: coordinates.count, by: 2).map {
                    WebMercator.project(lat: Double(coordinates[$0]), lon: Double(coordinates[$0 + 1]))
                }
                kept = []
                for i in PolylineSimplification.douglasPeucker(projected, tolerance: tolerance) {
                    kept.append(coordinates[2 * i]); kept.append(coordinates[2 * i + 1])
                }
            }
            routes.append(.init(workoutID: track.workoutID, activity: track.activity, start: track.start, coordinates: kept))
        }
        guard !routes.isEmpty || outsideArea > 0 else { return nil }
        try staging.writeFile(
            RoutesOverviewSVG.render(routes, options: options, outsideArea: outsideArea),
            to: staging.path("svg/routes.svg"))
        return outsideArea
    }

    /// Where someone's routes are, without the odd trip stretching the map: the busiest 1° cell
    /// (home) and its eight neighbours keep their points, and the box runs from the 1st to the
    /// 99th percentile of their latitude and of their longitude, padded by 5 %.
    ///
    /// Percentiles alone are not enough: once trips abroad hold more than 1 % of the points (a
    /// long history with a yearly holiday), the box spans an ocean and home is one cell. The
    /// percentiles come from histograms of 1/10 000° bins (about 11 m, a fraction of a pixel),
    /// widened to the bins' outer edges, so memory does not grow with the points.
    static func coreArea(of tracks: MapTracks) throws -> GeoBoundingBox? {
        func cell(_ lat: Float, _ lon: Float) -> (Int, Int) { (Int(lat.rounded(.down)), Int(lon.rounded(.down))) }
        var counts: [Int: Int] = [:]
        for t in tracks.tracks {
            let c = try MapTracks.coordinates(of: t)
            // Counted by runs: consecutive points nearly always share their cell, and a
            // dictionary update per point was most of this pass.
            var key = Int.min, run = 0
            for i in stride(from: 0, to: c.count, by: 2) {
                let (y, x) = cell(c[i], c[i + 1])
                let k = y * 1000 + x
                if k == key { run += 1; continue }
                if run > 0 { counts[key, default: 0] += run }
                key = k
                run = 1
            }
            if run > 0 { counts[key, default: 0] += run }
        }
        guard let busiest = counts.max(by: { ($0.value, $1.key) < ($1.value, $0.key) })?.key else { return nil }
        let homeY = Int((Double(busiest) / 1000).rounded()), homeX = busiest - homeY * 1000

        let binsPerDegree = 10_000, binCount = 3 * binsPerDegree
        var latBins = [Int32](repeating: 0, count: binCount), lonBins = [Int32](repeating: 0, count: binCount)
        let latOrigin = Double(homeY - 1), lonOrigin = Double(homeX - 1)
        func bin(_ v: Float, _ origin: Double) -> Int {
            min(binCount - 1, max(0, Int(((Double(v) - origin) * Double(binsPerDegree)).rounded(.down))))
        }
        var n = 0
        for t in tracks.tracks {
            let c = try MapTracks.coordinates(of: t)
            for i in stride(from: 0, to: c.count, by: 2) {
                let (y, x) = cell(c[i], c[i + 1])
                guard abs(y - homeY) <= 1, abs(x - homeX) <= 1 else { continue }
                latBins[bin(c[i], latOrigin)] += 1
                lonBins[bin(c[i + 1], lonOrigin)] += 1
                n += 1
            }
        }
        guard n >= 2 else { return nil }
        /// The edge of the bin holding the value at rank `q` of the sorted values.
        func at(_ bins: [Int32], _ origin: Double, _ q: Double, upperEdge: Bool) -> Double {
            let rank = Int(Double(n - 1) * q)
            var seen = 0
            for (b, count) in bins.enumerated() {
                seen += Int(count)
                if seen > rank { return origin + Double(b + (upperEdge ? 1 : 0)) / Double(binsPerDegree) }
            }
            return origin + 3
        }
        var box = (
            at(latBins, latOrigin, 0.01, upperEdge: false), at(lonBins, lonOrigin, 0.01, upperEdge: false),
            at(latBins, latOrigin, 0.99, upperEdge: true), at(lonBins, lonOrigin, 0.99, upperEdge: true)
        )
        let padLat = max(0.002, (box.2 - box.0) * 0.05), padLon = max(0.002, (box.3 - box.1) * 0.05)
        box = (box.0 - padLat, box.1 - padLon, box.2 + padLat, box.3 + padLon)
        return GeoBoundingBox(
            minLatitude: max(-85, box.0), minLongitude: max(-180, box.1),
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
        for (column, metric, title, unit, format) in calendars {
            let values: [(date: String, value: Double)] = days.compactMap { day, f in
                guard let v = DailySummary.value(of: column, in: f) else { return nil }
                return (Timestamp(utcSeconds: day * 86_400).localDateString, v)
            }
            guard !values.isEmpty else { continue }
            try staging.writeFile(
                CalendarHeatmapSVG.render(
                    metric: metric, unit: unit, values: values, options: options, title: title, format: format),
                to: staging.path("svg/calendar-\(metric).svg"))
        }
    }
}
