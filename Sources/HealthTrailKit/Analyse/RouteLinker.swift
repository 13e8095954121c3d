/// Links route files to workouts and streams their points into `route_points.csv`.
///
/// A route belongs to the workout whose `WorkoutRoute/FileReference` names it. Older exports
/// have no references: a route is then linked to the workout whose time span holds its first
/// point. A route neither names nor time links is an orphan, still exported under its own id
/// (`route-<first point UTC>`). File names are never used: they are only the local time of the
/// route's last point.
public enum RouteLinker {
    public struct Result {
        /// Route files linked to each workout id, named relative to the export folder
        /// (`workout-routes/route_….gpx`) whatever the archive's top folder is.
        public var filesByWorkout: [String: [String]] = [:]
        public var linkedByReference = 0
        public var linkedByTime = 0
        public var orphans: [String] = []
        public var missingFiles: [String] = []
        public var points = 0
    }

    /// Slack around a workout's span when linking by time (watch clocks and GPS fixes lag).
    static let timeSlack: Int64 = 120

    static func run(layout: ExportLayout, source: ExportSource, workouts: [Workout], writer: CSVWriter?,
                    faults: FaultLog, progress: ProgressLine) throws -> Result {
        var result = Result()
        // Every suffix of an entry path is a key, so `/workout-routes/x.gpx` finds
        // `apple_health_export/workout-routes/x.gpx` whatever the top folder is called.
        var entryBySuffix: [String: ArchiveEntry] = [:]
        for entry in layout.routeFiles {
            var parts = entry.path.split(separator: "/")[...]
            while !parts.isEmpty {
                let key = parts.joined(separator: "/")
                if entryBySuffix[key] == nil { entryBySuffix[key] = entry }
                parts = parts.dropFirst()
            }
        }
        var workoutByEntry: [String: String] = [:]
        for w in workouts {
            for reference in w.routeFiles {
                let key = reference.split(separator: "/").joined(separator: "/")
                if let entry = entryBySuffix[key] {
                    workoutByEntry[entry.path] = w.id
                } else {
                    result.missingFiles.append(reference)
                }
            }
        }
        // Names relative to the folder holding export.xml: the same for a zip and an unzipped folder.
        let base = layout.mainXML.path.contains("/") ? String(layout.mainXML.path[...layout.mainXML.path.lastIndex(of: "/")!]) : ""
        func relative(_ entry: ArchiveEntry) -> String {
            entry.path.hasPrefix(base) ? String(entry.path.dropFirst(base.count)) : entry.path
        }
        let unreferencedWorkouts = workouts.filter { $0.routeFiles.isEmpty }.sorted { $0.start < $1.start }

        for entry in layout.routeFiles {
            progress.begin(String(entry.fileName))
            var id = workoutByEntry[entry.path]
            if id != nil {
                result.linkedByReference += 1
            } else {
                let first = try firstPointTime(of: entry, source: source, faults: faults)
                if let t = first, let w = unreferencedWorkouts.first(where: {
                    $0.start.utcSeconds - timeSlack <= t && t <= $0.end.utcSeconds + timeSlack
                }) {
                    id = w.id
                    result.linkedByTime += 1
                } else {
                    let stamp = first.map { Timestamp(utcSeconds: $0).utcString.filter { $0 != "-" && $0 != ":" } } ?? "unknown"
                    id = "route-\(stamp)"
                    result.orphans.append(relative(entry))
                }
            }
            let decoder = GPXDecoder(writer: writer, workoutID: id!, faults: faults, fileName: source.displayName,
                                     entryName: entry.path)
            try source.read(entry) { chunk in
                progress.advance(chunk.count)
                try decoder.feed(chunk)
            }
            try decoder.finish()
            result.points += decoder.points
            result.filesByWorkout[id!, default: []].append(relative(entry))
        }
        return result
    }

    /// The time of a route's first point, read without writing anything.
    static func firstPointTime(of entry: ArchiveEntry, source: ExportSource, faults: FaultLog) throws -> Int64? {
        let probe = GPXDecoder(writer: nil, workoutID: "", faults: FaultLog(file: faults.file, strict: false),
                               fileName: source.displayName, entryName: entry.path)
        probe.stopAfterFirstPoint = true
        do {
            try source.read(entry) { chunk in
                try probe.feed(chunk)
                if probe.firstUTC != nil { throw StopReading() }
            }
            try probe.finish()
        } catch is StopReading {
        } catch where probe.firstUTC != nil {
            // Stopping the parser after the first point surfaces as an error: expected.
        }
        return probe.firstUTC
    }
}
