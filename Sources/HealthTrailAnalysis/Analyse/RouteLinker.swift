import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailDecode
import HealthTrailWrite

/// Links route files to workouts, then streams their points through the heart-rate join into
/// `route_points.csv` and `routes.geojson`.
///
/// A route belongs to the workout whose `WorkoutRoute/FileReference` names it (one workout can
/// have many: multi-part workouts). Older exports have no references: a route is then linked to
/// the workout whose time span holds its first point. A route neither names nor time links is an
/// orphan, still exported under its own id (`route-<first point UTC>`). File names are never
/// used: they are only the local time of the route's last point. Old exports' inline
/// `WorkoutRoute/Location` points are routes of their workout too.
///
/// The files were decoded while export.xml was read (`PredecodedRoutes`); their points are
/// replayed here on two threads, each taking a contiguous half of the files (split by size) with
/// its own writers; the second half's rows and features are appended after the first's, so the
/// output is the same bytes as one thread would write.
package enum RouteLinker {
    package struct Result {
        /// Route files linked to each workout id, named relative to the export folder
        /// (`workout-routes/route_….gpx`) whatever the archive's top folder is.
        package var filesByWorkout: [String: [String]] = [:]
        package var linkedByReference = 0
        package var linkedByTime = 0
        package var orphans: [String] = []
        package var missingFiles: [String] = []
        package var points = 0
        /// Points left out as repeats of the previous part file's last point (not in `points`).
        package var duplicatePoints = 0
        /// Points left out of the drawn lines of routes and maps over the cap (`DrawnPoints`).
        package var thinnedPoints = 0
        /// Figures from the points, per workout id (all its routes).
        package var statsByWorkout: [String: RouteStats] = [:]
        /// Every route's shape, for the overview and density maps.
        package var tracks = MapTracks()
        /// Splits and best efforts per workout with a route, in the order the routes were read.
        package var efforts: [WorkoutEffortFigures] = []
    }

    /// Slack around a workout's span when linking by time (watch clocks and GPS fixes lag).
    package static let timeSlack: Int64 = 120
    /// How long after an orphan route's first point heart rate is kept for it: its end is not
    /// known before it is read, and the join must be built before.
    package static let orphanWindow: Int64 = 12 * 3600

    /// Which workout each route file belongs to, decided before any point is read.
    package struct Plan {
        package enum Link { case reference, time, orphan }
        package struct File {
            package var entry: ArchiveEntry
            /// Its position among the layout's route files (and `PredecodedRoutes`'s).
            package var index: Int
            /// Name relative to the export folder.
            package var name: String
            package var workoutID: String
            package var activity: String
            package var link: Link
            /// When its workout was active (unbounded for an orphan).
            package var windows = WorkoutWindows.unbounded
        }
        package var files: [File] = []
        package var missingFiles: [String] = []
        /// UTC spans whose heart rate the routes need.
        package var windows: [(Int64, Int64)] = []
    }

    /// Matches the export's route files to the workouts that reference them.
    ///
    /// - Parameters:
    ///   - routeFiles: the export's GPX entries; `mainXML`: its export.xml entry, whose folder
    ///     the workouts' `FileReference` paths are relative to.
    package static func plan(routeFiles: [ArchiveEntry], mainXML: ArchiveEntry, routes: PredecodedRoutes, workouts: [Workout]) throws -> Plan {
        var plan = Plan()
        // Every suffix of an entry path is a key, so `/workout-routes/x.gpx` finds
        // `apple_health_export/workout-routes/x.gpx` whatever the top folder is called.
        var entryBySuffix: [String: ArchiveEntry] = [:]
        for entry in routeFiles {
            var parts = entry.path.split(separator: "/")[...]
            while !parts.isEmpty {
                let key = parts.joined(separator: "/")
                if entryBySuffix[key] == nil { entryBySuffix[key] = entry }
                parts = parts.dropFirst()
            }
        }
        var workoutByEntry: [String: Workout] = [:]
        for w in workouts {
            plan.windows.append((w.start.utcSeconds, w.end.utcSeconds))
            for reference in w.routeFiles {
                let key = reference.split(separator: "/").joined(separator: "/")
                if let entry = entryBySuffix[key] { workoutByEntry[entry.path] = w } else { plan.missingFiles.append(reference) }
            }
        }
        let unreferenced = workouts.filter { $0.routeFiles.isEmpty }.sorted { $0.start < $1.start }
        // Orphan ids taken so far: two orphans starting in the same second are two routes, and
        // must not become one map (or one GeoJSON feature) of both.
        var orphanIDs = Set(workouts.map(\.id))
        // Names relative to the folder holding export.xml: the same for a zip and an unzipped folder.
        let base = mainXML.path.contains("/") ? String(mainXML.path[...mainXML.path.lastIndex(of: "/")!]) : ""
        for (index, entry) in routeFiles.enumerated() {
            let name = entry.path.hasPrefix(base) ? String(entry.path.dropFirst(base.count)) : entry.path
            if let w = workoutByEntry[entry.path] {
                plan.files.append(
                    .init(
                        entry: entry, index: index, name: name, workoutID: w.id, activity: w.activity,
                        link: .reference, windows: WorkoutWindows(w)))
                continue
            }
            let first = try routes.firstUTC(of: index)
            if let t = first,
                let w = unreferenced.first(where: {
                    $0.start.utcSeconds - timeSlack <= t && t <= $0.end.utcSeconds + timeSlack
                })
            {
                plan.files.append(
                    .init(
                        entry: entry, index: index, name: name, workoutID: w.id, activity: w.activity,
                        link: .time, windows: WorkoutWindows(w)))
                plan.windows.append((t - timeSlack, w.end.utcSeconds + timeSlack))
            } else {
                let stamp = first.map { Timestamp(utcSeconds: $0).utcString.filter { $0 != "-" && $0 != ":" } } ?? "unknown"
                var id = "route-\(stamp)", n = 2
                while !orphanIDs.insert(id).inserted {
                    id = "route-\(stamp)-\(n)"
                    n += 1
                }
                plan.files.append(
                    .init(
                        entry: entry, index: index, name: name, workoutID: id,
                        activity: "unknown", link: .orphan))
                if let t = first { plan.windows.append((t, t + orphanWindow)) }
            }
        }
        // A workout's files next to each other, in time order: its parts are then read one
        // after the other by one thread, so a point repeated at a part boundary is seen.
        var group: [String: Int] = [:]
        for (k, file) in plan.files.enumerated() where group[file.workoutID] == nil { group[file.workoutID] = k }
        // A file that failed sorts last; its error is thrown when its turn comes, as before.
        let firstUTC = plan.files.map { ((try? routes.firstUTC(of: $0.index)) ?? nil) ?? .max }
        let order = plan.files.indices.sorted {
            (group[plan.files[$0].workoutID]!, firstUTC[$0], $0) < (group[plan.files[$1].workoutID]!, firstUTC[$1], $1)
        }
        plan.files = order.map { plan.files[$0] }
        return plan
    }

    /// Sends every planned route file's points (and inline routes) through the join into the writers.
    package static func run(
        _ plan: Plan, routes: PredecodedRoutes, inlineRoutes: [(workout: Workout, points: [InlineLocation])],
        join: HeartRateJoin?, zones: HeartRateZones, csv: CSVWriter?, geojson: GeoJSONWriter?,
        maps: MapContext? = nil, splitUnit: SplitUnit = .km, faults: FaultLog
    ) throws -> Result {
        var result = Result()
        result.missingFiles = plan.missingFiles

        // Two contiguous halves of about equal bytes; the second writes part files.
        let files = plan.files
        let total = files.reduce(0) { $0 + $1.entry.uncompressedSize }
        var split = 0, bytes: UInt64 = 0
        while split < files.count && bytes * 2 < total { bytes += files[split].entry.uncompressedSize; split += 1 }
        // Never between two files of one workout (see `plan`).
        while split > 0 && split < files.count && files[split].workoutID == files[split - 1].workoutID { split += 1 }
        let halves = [Array(files[..<split]), Array(files[split...])]
        let csvPart = try csv.map { try CSVWriter(path: $0.path + ".part", header: [], bufferSize: 1 << 20) }
        let geojsonPart = try geojson.map { try GeoJSONWriter(path: $0.path + ".part", includeTimes: $0.includeTimes, part: true) }
        // Each thread's tracks spill to its own file in the staging folder (removed before commit).
        let spills = (0..<2).map { k in maps.map { $0.spillFolder + "/.map-tracks-\(k).spill" } }
        let processors = [
            RouteProcessor(join: join, zones: zones, csv: csv, geojson: geojson, maps: maps, tracksSpillPath: spills[0]),
            RouteProcessor(
                join: join, zones: zones, csv: csvPart, geojson: geojsonPart, maps: maps,
                tracksSpillPath: spills[1]),
        ]
        for processor in processors { processor.splitUnit = splitUnit }
        // One result object per worker: each thread writes only its own.
        let outcomes = [WorkerResult(), WorkerResult()]

        // Inline routes (old exports) go first, on this thread, into the first writers.
        for (workout, points) in inlineRoutes {
            processors[0].begin(
                workoutID: workout.id, activity: workout.activity, routeFile: nil, windows: WorkoutWindows(workout))
            for p in points { processors[0].add(p.point, hAcc: p.horizontalAccuracy, course: p.course, vAcc: p.verticalAccuracy) }
            try processors[0].end()
            result.points += points.count
        }
        processors[0].finishEfforts()

        let group = DispatchGroup()
        for k in 0..<2 where !halves[k].isEmpty {
            group.enter()
            let half = halves[k]
            let handOff = WorkerHandOff(processor: processors[k], outcome: outcomes[k])
            let worker = Thread {
                defer { group.leave() }
                let (processor, outcome) = (handOff.processor, handOff.outcome)
                do {
                    for file in half {
                        outcome.points.append(try replay(file, from: routes, into: processor))
                    }
                    processor.finishEfforts()
                } catch {
                    outcome.error = error
                }
            }
            worker.stackSize = 1 << 20
            worker.start()
        }
        group.wait()
        for file in files { faults.absorb(routes.faults(of: file.index)) }
        if let error = outcomes.compactMap(\.error).first {
            if let csvPart { try? csvPart.close(); unlink(csvPart.path) }
            if let geojsonPart { try? geojsonPart.close(); unlink(geojsonPart.path) }
            throw error
        }
        if let csv, let csvPart { try csv.append(rowsOf: csvPart) }
        if let geojson, let geojsonPart { try geojson.append(featuresOf: geojsonPart) }

        for (file, points) in zip(files, outcomes[0].points + outcomes[1].points) {
            switch file.link {
            case .reference: result.linkedByReference += 1
            case .time: result.linkedByTime += 1
            case .orphan: result.orphans.append(file.name)
            }
            result.points += points
            result.filesByWorkout[file.workoutID, default: []].append(file.name)
        }
        result.points -= processors.reduce(0) { $0 + $1.duplicatePoints }
        for processor in processors {
            for (id, stats) in processor.statsByWorkout {
                result.statsByWorkout[id, default: RouteStats(zoneCount: zones.zones.count)].merge(stats)
            }
            result.tracks.absorb(processor.tracks)
            result.thinnedPoints += processor.thinnedPoints
            result.duplicatePoints += processor.duplicatePoints
            result.efforts += processor.finishedEfforts
        }
        // Workouts with several route files: drawn now that every part is read.
        if let maps, maps.drawWorkouts {
            var pieces: [String: [MapRoute]] = [:]
            for processor in processors { for (id, parts) in processor.pendingMaps { pieces[id, default: []] += parts } }
            for id in pieces.keys.sorted() {
                try maps.drawWorkout(.joined(pieces[id]!, zones: zones))
            }
        }
        return result
    }

    /// What one worker thread produced.
    package final class WorkerResult {
        var points: [Int] = []
        var error: Error?
    }

    /// A worker thread's processor and result.
    ///
    /// `@unchecked Sendable`: each worker has a processor and a result of its own, which no other
    /// thread touches until `group.wait()` has seen the worker leave, ordering its writes first.
    private struct WorkerHandOff: @unchecked Sendable {
        let processor: RouteProcessor
        let outcome: WorkerResult
    }

    /// Sends one route file's points through the processor; returns its point count.
    package static func replay(_ file: Plan.File, from routes: PredecodedRoutes, into processor: RouteProcessor) throws -> Int {
        processor.begin(workoutID: file.workoutID, activity: file.activity, routeFile: file.name, windows: file.windows)
        let points = try routes.replay(file.index) { point, columns in processor.add(point, columns: columns) }
        try processor.end()
        return points
    }
}
