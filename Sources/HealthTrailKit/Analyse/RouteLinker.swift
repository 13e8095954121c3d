import Foundation

/// Links route files to workouts and streams their points into `route_points.csv`.
///
/// A route belongs to the workout whose `WorkoutRoute/FileReference` names it. Older exports
/// have no references: a route is then linked to the workout whose time span holds its first
/// point. A route neither names nor time links is an orphan, still exported under its own id
/// (`route-<first point UTC>`). File names are never used: they are only the local time of the
/// route's last point.
///
/// Route files are decoded on two threads, each taking a contiguous half of the files (split by
/// size) with its own writer and fault log; the second half's rows are appended after the
/// first's, so the output is the same bytes as one thread would write.
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

    /// What happened to one route file.
    struct FileOutcome {
        var id = ""
        var how = Link.orphan
        var points = 0
        enum Link { case reference, time, orphan }
    }

    /// What one worker thread produced.
    final class WorkerResult {
        var outcomes: [FileOutcome] = []
        var error: Error?
    }

    /// Read-only facts every worker needs.
    struct Plan {
        let source: ExportSource
        let workoutByEntry: [String: String]
        let unreferencedWorkouts: [Workout]
        let progress: ProgressLine
    }

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
        let plan = Plan(source: source, workoutByEntry: workoutByEntry,
                        unreferencedWorkouts: workouts.filter { $0.routeFiles.isEmpty }.sorted { $0.start < $1.start },
                        progress: progress)

        // Two contiguous halves of about equal bytes; the second writes a part file.
        let files = layout.routeFiles
        let total = files.reduce(0) { $0 + $1.uncompressedSize }
        var split = 0, bytes: UInt64 = 0
        while split < files.count && bytes * 2 < total { bytes += files[split].uncompressedSize; split += 1 }
        let halves = [Array(files[..<split]), Array(files[split...])]
        let partWriter = try writer.map { try CSVWriter(path: $0.path + ".part", header: [], bufferSize: 1 << 20) }
        let writers = [writer, partWriter]
        let logs = [FaultLog(file: faults.file, strict: faults.strict), FaultLog(file: faults.file, strict: faults.strict)]
        // One result object per worker: each thread writes only its own.
        let results = [WorkerResult(), WorkerResult()]

        let group = DispatchGroup()
        for k in 0..<2 where !halves[k].isEmpty {
            group.enter()
            let (half, out, log, result) = (halves[k], writers[k], logs[k], results[k])
            let worker = Thread {
                defer { group.leave() }
                do {
                    result.outcomes = try half.map { try decode($0, plan: plan, writer: out, faults: log) }
                } catch {
                    result.error = error
                }
            }
            worker.stackSize = 1 << 20
            worker.start()
        }
        group.wait()
        for log in logs { faults.absorb(log) }
        if let error = results.compactMap(\.error).first {
            if let partWriter { try? partWriter.close(); unlink(partWriter.path) }
            throw error
        }
        if let writer, let partWriter { try writer.append(rowsOf: partWriter) }

        // Names relative to the folder holding export.xml: the same for a zip and an unzipped folder.
        let base = layout.mainXML.path.contains("/") ? String(layout.mainXML.path[...layout.mainXML.path.lastIndex(of: "/")!]) : ""
        for (entry, outcome) in zip(files, results[0].outcomes + results[1].outcomes) {
            let name = entry.path.hasPrefix(base) ? String(entry.path.dropFirst(base.count)) : entry.path
            switch outcome.how {
            case .reference: result.linkedByReference += 1
            case .time: result.linkedByTime += 1
            case .orphan: result.orphans.append(name)
            }
            result.points += outcome.points
            result.filesByWorkout[outcome.id, default: []].append(name)
        }
        return result
    }

    /// Links one route file and writes its points.
    static func decode(_ entry: ArchiveEntry, plan: Plan, writer: CSVWriter?, faults: FaultLog) throws -> FileOutcome {
        var outcome = FileOutcome()
        if let id = plan.workoutByEntry[entry.path] {
            outcome.id = id
            outcome.how = .reference
        } else {
            let first = try firstPointTime(of: entry, source: plan.source, faults: faults)
            if let t = first, let w = plan.unreferencedWorkouts.first(where: {
                $0.start.utcSeconds - timeSlack <= t && t <= $0.end.utcSeconds + timeSlack
            }) {
                outcome.id = w.id
                outcome.how = .time
            } else {
                let stamp = first.map { Timestamp(utcSeconds: $0).utcString.filter { $0 != "-" && $0 != ":" } } ?? "unknown"
                outcome.id = "route-\(stamp)"
            }
        }
        let decoder = GPXDecoder(writer: writer, workoutID: outcome.id, faults: faults, fileName: plan.source.displayName,
                                 entryName: entry.path)
        try plan.source.read(entry) { chunk in
            plan.progress.advance(chunk.count)
            try decoder.feed(chunk)
        }
        try decoder.finish()
        outcome.points = decoder.points
        return outcome
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
