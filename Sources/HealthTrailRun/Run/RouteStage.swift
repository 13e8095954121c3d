import Foundation
import HealthTrailAnalysis
import HealthTrailDecode
import HealthTrailWrite

/// The second stage: route files linked to workouts, heart rate joined to every point, and
/// `route_points.csv`, `routes.geojson` and the workout maps written; the overview and density
/// maps start drawing in the background.
enum RouteStage {
    struct Result {
        let routes: RouteLinker.Result
        /// Every source ranked once, export.xml being read: for all later outputs.
        let sourceRanking: SourceRanking
        /// The zones, with the maximum heart rate behind them and where it came from.
        let zoneChoice: ZoneChoice.Resolved
        var zones: HeartRateZones { zoneChoice.zones }
        /// Heart-rate samples inside the routes' windows.
        let joinSampleCount: Int
        /// Features of routes.geojson (0 without it).
        let geojsonFeatures: Int
        /// The overview and density maps, drawing in the background: the seconds they took and
        /// the routes left outside the overview's area; nil without maps.
        let overview: BackgroundTask<(seconds: Double, outsideArea: Int?)>?
    }

    static func run(_ run: RunContext, xml: ExportXMLStage.Result) throws -> Result {
        let (options, staging) = (run.options, run.staging)
        let (decoder, sink, predecoded) = (xml.decoder, xml.sink, xml.routeFiles)
        try run.timed("routes_wait_s") { try predecoded.wait() }

        let (plan, sourceRanking, join, zoneChoice) = try run.timed("join_s") {
            let plan = try RouteLinker.plan(
                routeFiles: run.layout.routeFiles, mainXML: run.layout.mainXML, routes: predecoded, workouts: decoder.workouts)
            let sourceRanking = sink.daily.sourceRanking(decoder.sourceNames)
            let spill = xml.heartRateSpill
            let join = try HeartRateJoin(
                spill: spill, windows: plan.windows, tolerance: options.joinTolerance,
                sourceOrder: sourceRanking.order,
                sortSpillPath: staging.path(".heart-rate-join.spill"),
                runLength: options.spillRunLength)
            spill.remove()
            // The maximum heart rate comes from every workout before any point is zoned: the
            // workouts are decoded and the join built by now, the route files not yet read.
            let zoneChoice = options.zones.resolve(
                dateOfBirth: decoder.me?.dateOfBirth, on: decoder.exportDate,
                workoutMaximum: WorkoutMaximumHeartRate.estimate(WorkoutMaximumHeartRate.workoutMaxima(decoder.workouts, join: join)))
            return (plan, sourceRanking, join, zoneChoice)
        }
        let zones = zoneChoice.zones

        let (routes, geojsonFeatures) = try run.timed("routes_s") {
            let geojson = options.geojson ? try GeoJSONWriter(path: staging.path("routes.geojson"), includeTimes: options.geojsonTimes) : nil
            if options.maps?.kinds.contains(.workouts) == true { _ = try staging.path("svg/workouts/.") }   // before two threads write there
            // Each workout's UTC offset: its map's local times, and its best efforts' local year.
            let offsets = Dictionary(
                decoder.workouts.map { ($0.id, WorkoutFigures($0).offsetMinutes) }, uniquingKeysWith: { a, _ in a })
            let mapContext = options.maps.map { maps in
                MapContext(
                    spillFolder: staging.stagingDirectory, drawWorkouts: maps.kinds.contains(.workouts),
                    drawWorkout: { route in
                        try MapOutputs.writeWorkout(route, zones: zones, options: maps.options, staging: staging)
                    },
                    filesPerWorkout: plan.files.reduce(into: [:]) { $0[$1.workoutID, default: 0] += 1 },
                    offsets: offsets)
            }
            let routes = try RouteLinker.run(
                plan, routes: predecoded, inlineRoutes: decoder.inlineRoutes, join: join,
                zones: zones, csv: run.outputs.routePoints, geojson: geojson, maps: mapContext,
                splitUnit: options.splitUnit, faults: run.faults)
            predecoded.remove()
            try geojson?.close()
            EffortRows.writeSplits(
                routes.efforts, unit: options.splitUnit, zones: zones,
                to: try run.outputs.addWriter(OutputSchema.splits.name, header: OutputSchema.splits.names))
            EffortRows.writeBestEfforts(
                routes.efforts, offsets: offsets, to: try run.outputs.addWriter(OutputSchema.bestEfforts.name, header: OutputSchema.bestEfforts.names)
            )
            return (routes, geojson?.features ?? 0)
        }

        // The overview and density maps need only the route tracks: drawn meanwhile.
        let overview = options.maps.map { maps in
            BackgroundTask { () throws -> (seconds: Double, outsideArea: Int?) in
                let clock = Date()
                defer { routes.tracks.discard() }   // spill files must not be committed
                let outsideArea = try MapOutputs.writeOverviewAndDensity(
                    routes.tracks, options: maps.options,
                    kinds: maps.kinds, staging: staging)
                return (Date().timeIntervalSince(clock), outsideArea)
            }
        }
        if let overview { run.waitBeforeDiscard { _ = try? overview.value() } }
        return Result(
            routes: routes, sourceRanking: sourceRanking, zoneChoice: zoneChoice, joinSampleCount: join.sampleCount,
            geojsonFeatures: geojsonFeatures, overview: overview)
    }
}
