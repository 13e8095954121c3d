import HealthTrailArchive
import HealthTrailBase
import HealthTrailDecode
import HealthTrailWrite

/// Turns one thread's routes into `route_points.csv` rows, GeoJSON features and route figures.
///
/// For each route (a GPX file, or a workout's inline locations): every point gets its heart
/// rate from the join and its state from the workout's windows and the glitch filter
/// (`WorkoutWindows`, `TrackCleaner`, which holds a point back at most a few minutes of route
/// time), then its zone and its counted distance along the route, and its row is written; the
/// active points to draw are kept until the route ends, to cut it into coloured segments for the
/// map. A route longer than the cap is drawn from evenly thinned points (`DrawnPoints`), and the
/// pieces of multi-file workouts waiting for their other files share one cap, so memory stays
/// bounded whatever the tracks' length; the thinned points are counted.
package final class RouteProcessor {
    package let join: HeartRateJoin?
    package let zones: HeartRateZones
    package let csv: CSVWriter?
    package let geojson: GeoJSONWriter?
    /// Route figures per workout id, summed over its route files.
    private(set) var statsByWorkout: [String: RouteStats] = [:]
    /// Every route's shape, for the overview and density maps.
    package let tracks: MapTracks
    /// Where workout maps go (nil: no SVG), and what they need to know.
    package let maps: MapContext?
    /// Pieces of workouts with several route files whose other files this processor has not
    /// read (they may be on the other thread): drawn once all are read.
    private(set) var pendingMaps: [String: [MapRoute]] = [:]
    /// Points in `pendingMaps`; kept at most about `drawnPointCap` by halving every piece.
    private var pendingPoints = 0
    /// Points left out of drawn lines (GeoJSON features, maps), kept in the CSV and the figures.
    private(set) var thinnedPoints = 0
    package let drawnPointCap: Int

    private var cursor: HeartRateJoin.Cursor?
    /// The route's points to draw and its figures so far, updated once per point: boxed, so
    /// that an update costs no run-time exclusivity check (one thread per processor, no nested
    /// access).
    private let pointBox: UncheckedBox<DrawnPoints>
    private let statsBox: UncheckedBox<RouteStats>
    private var stats: RouteStats { statsBox.value }
    /// The workout's id as a CSV field, written at the start of each point's row.
    private var workoutIDField = OwnedBytes(copying: [UInt8]())
    /// The zones' names and the points' states as CSV fields, by index and raw value: a row
    /// appends them as they are, with no scan of a `String` for quotes.
    private let zoneFields: [OwnedBytes]
    private let stateFields: [OwnedBytes]
    private var current: (id: String, activity: String, file: String?)?
    /// The current route's workout windows, and its points' filter.
    /// (Boxed: read once per point, and a copy out of a class property would retain its arrays.)
    private let windowsBox = UncheckedBox(WorkoutWindows.unbounded)
    private let cleaner = TrackCleaner()
    /// The CSV columns of the points the cleaner still holds (route files), and the numbers of
    /// an inline route's points (old exports), by the entries' `payload`.
    private let pendingColumns = ByteQueue()
    private var inlineColumns: [[Double?]] = []
    /// The active interval of the last active point written; nil when the chain is broken.
    private var chainInterval: Int?
    /// The last point written, and its workout; and the point a file of the same workout may
    /// repeat first.
    private var lastWritten: (id: String, point: RoutePoint, interval: Int?)?
    private var boundaryPoint: (point: RoutePoint, interval: Int?)?
    /// The last point written, and its active interval when it ended the chain active.
    private var lastEmitted: (point: RoutePoint, interval: Int?)?
    /// Points left out as repeats of the previous part file's last point.
    private(set) var duplicatePoints = 0
    /// Metres per split.
    package var splitUnit = SplitUnit.km
    /// The splits and best efforts of the workout being read (its files come one after the
    /// other), and of those finished, in the order read.
    /// (Boxed, like the other state updated once per point: see `UncheckedBox`.)
    private let effortsBox = UncheckedBox<WorkoutEfforts?>(nil)
    private(set) var finishedEfforts: [WorkoutEffortFigures] = []
    /// What the route file's map needs beyond its active points.
    private let drawingBox = UncheckedBox(MapDrawing())

    /// A route file's breaks and greyed points, for its map.
    private struct MapDrawing {
        /// Spans the line must not cross, and the last active point's time.
        var gaps: [ClosedRange<Int64>] = []
        var lastActive: Int64?
        /// Points that count in no figure (glitches aside), bounded like the drawn line.
        var trimmed = DrawnPoints(cap: 20_000)
        var trimmedGaps: [ClosedRange<Int64>] = []
        var lastTrimmed: Int64?
        var lastWasTrimmed = false
        /// The file went on from the previous file's last point (a part boundary's repeat).
        var joinsPrevious = false
    }

    /// - Parameter tracksSpillPath: where the tracks' coordinates go until the maps are drawn
    ///   (nil: in memory).
    /// - Parameter drawnPointCap: points drawn per route and per pending workout map at most.
    package init(
        join: HeartRateJoin?, zones: HeartRateZones, csv: CSVWriter?, geojson: GeoJSONWriter?, maps: MapContext? = nil,
        tracksSpillPath: String? = nil, drawnPointCap: Int = DrawnPoints.defaultCap
    ) {
        self.maps = maps
        self.drawnPointCap = drawnPointCap
        pointBox = UncheckedBox(DrawnPoints(cap: drawnPointCap))
        tracks = MapTracks(spillPath: tracksSpillPath)
        self.join = join
        self.zones = zones
        self.csv = csv
        self.geojson = geojson
        statsBox = UncheckedBox(RouteStats(zoneCount: zones.zones.count))
        zoneFields = zones.zones.map { OwnedBytes(copying: CSVWriter.fieldBytes($0.name)) }
        // A state's raw value is its place in `allCases` (implicit raw values 0, 1, … in order).
        stateFields = PointState.allCases.map { OwnedBytes(copying: CSVWriter.fieldBytes($0.name)) }
    }

    /// Starts a route file (or an inline route) of workout `id`, whose points are told apart by
    /// `windows` and cleaned with `activity`'s speed limits.
    package func begin(workoutID id: String, activity: String, routeFile: String?, windows: WorkoutWindows = .unbounded) {
        // A multi-part workout's next file often repeats the previous file's last point.
        boundaryPoint = lastWritten.flatMap { $0.id == id ? ($0.point, $0.interval) : nil }
        current = (id, activity, routeFile)
        let sameWorkout = effortsBox.value?.workoutID == id
        if !sameWorkout {
            finishEfforts()
            effortsBox.value = WorkoutEfforts(workoutID: id, activity: activity, splitUnit: splitUnit)
        }
        workoutIDField = OwnedBytes(copying: CSVWriter.fieldBytes(id))
        cursor = join.map { HeartRateJoin.Cursor($0) }
        pointBox.value.reset()
        let limits = RouteSpeedLimits.forActivity(activity)
        statsBox.value = RouteStats(zoneCount: zones.zones.count, limits: limits)
        windowsBox.value = windows
        // A later file of the same workout keeps its clock: what an earlier file counted is not
        // counted again (two devices recording one workout).
        cleaner.begin(limits: limits, sameWorkout: sameWorkout)
        chainInterval = nil
        inlineColumns.removeAll(keepingCapacity: true)
        drawingBox.value = MapDrawing()
    }

    /// A route file's point with its `lat`…`vAcc` columns as the file wrote them (`RoutePointRecord`).
    package func add(_ p: RoutePoint, columns: ByteSpan) {
        guard let (point, state, interval) = prepare(p) else { return }
        let position = pendingColumns.append(columns)
        cleaner.push(CleanerEntry(point: point, state: state, interval: interval, payload: position, payloadLength: columns.count))
        drain()
    }

    /// An inline point of an old export, whose columns are formatted from the numbers.
    package func add(_ p: RoutePoint, hAcc: Double?, course: Double?, vAcc: Double?) {
        guard let (point, state, interval) = prepare(p) else { return }
        inlineColumns.append([p.elevation, p.speed, hAcc, course, vAcc])
        cleaner.push(CleanerEntry(point: point, state: state, interval: interval, payload: inlineColumns.count - 1, payloadLength: -1))
        drain()
    }

    /// The point with its heart rate, state and interval; nil for the duplicate of the previous
    /// file's last point at a part boundary, which is written once.
    @inline(__always)
    private func prepare(_ p: RoutePoint) -> (RoutePoint, PointState, Int)? {
        if let b = boundaryPoint {
            boundaryPoint = nil
            if b.point.time == p.time && b.point.latitude == p.latitude && b.point.longitude == p.longitude {
                // Written once, with the previous file; the chain goes on from it.
                duplicatePoints += 1
                statsBox.value.seed(b.point, active: b.interval != nil)
                drawingBox.value.joinsPrevious = b.interval != nil
                chainInterval = b.interval
                return nil
            }
        }
        var point = p
        point.bpm = cursor?.bpm(at: p.time)
        let (state, interval) = windowsBox.value.locate(p.time)
        return (point, state, interval)
    }

    /// Writes every point the cleaner has decided.
    @inline(__always)
    private func drain() {
        while let entry = cleaner.next() { emit(entry) }
    }

    /// Adds a decided point to the figures and drawings, and writes its row.
    @inline(__always)
    private func emit(_ entry: CleanerEntry) {
        let point = entry.point
        var continuing = false
        switch entry.state {
        case .active:
            continuing = chainInterval == entry.interval && !entry.jumpBefore
            chainInterval = entry.interval
        case .glitch:
            break   // stepped over: the chain goes on from the point before it
        case .paused, .outside, .vehicle:
            chainInterval = nil
        }
        statsBox.value.add(
            point, state: entry.state, jumpBefore: entry.jumpBefore, zones: zones, continuing: continuing,
            knownStep: entry.anchorMetres)
        if entry.state == .active {
            if !continuing, let previous = drawingBox.value.lastActive {
                drawingBox.value.gaps.append(previous...Swift.max(previous, point.time))
            }
            drawingBox.value.lastActive = point.time
            drawingBox.value.lastWasTrimmed = false
            pointBox.value.append(point)
            // Field by field: a copy of the whole `RouteStats` would retain its arrays.
            effortsBox.value?.add(
                point, distance: statsBox.value.distance, elapsed: statsBox.value.elapsed,
                moving: statsBox.value.movingTime, climb: statsBox.value.elevationGain)
        } else if entry.state != .glitch {
            if !drawingBox.value.lastWasTrimmed, let previous = drawingBox.value.lastTrimmed {
                drawingBox.value.trimmedGaps.append(previous...Swift.max(previous, point.time))
            }
            drawingBox.value.lastTrimmed = point.time
            drawingBox.value.lastWasTrimmed = true
            drawingBox.value.trimmed.append(point)
        }
        lastEmitted = (point, entry.state == .active ? entry.interval : nil)
        writeRow(entry)
        if entry.payloadLength >= 0 { pendingColumns.release(upTo: entry.payload + entry.payloadLength) }
    }

    @inline(__always)
    private func writeRow(_ entry: CleanerEntry) {
        guard let w = csv else { return }
        let point = entry.point
        w.raw(workoutIDField.span)
        w.comma()
        w.utc(point.time); w.comma()
        if entry.payloadLength >= 0 {
            let columns = pendingColumns   // a local, which the span borrows
            // SAFETY: nothing appends to or releases `columns` while `raw` copies the span out.
            w.raw(unsafe columns.span(at: entry.payload, count: entry.payloadLength))
        } else {
            w.decimal(point.latitude, digits: 6); w.comma()
            w.decimal(point.longitude, digits: 6)
            for value in inlineColumns[entry.payload] {
                w.comma()
                if let value { w.decimal(value, digits: 6) }
            }
        }
        w.comma()
        if let bpm = point.bpm {
            w.decimal(bpm, digits: 1); w.comma()
            let zone = zoneFields[zones.zoneIndex(for: bpm)]   // a local, which the span borrows
            w.raw(zone.span)
        } else {
            w.comma()
        }
        w.comma()
        w.decimal(statsBox.value.distance, digits: 1)
        w.comma()
        let state = stateFields[Int(entry.state.rawValue)]
        w.raw(state.span)
        w.endRow()
    }

    /// Ends the route: its map feature and drawings, and its figures added to its workout's.
    package func end() throws {
        guard let (id, activity, file) = current else { return }
        cleaner.finish()
        drain()
        lastWritten = lastEmitted.map { (id, $0.point, $0.interval) }
        lastEmitted = nil
        current = nil
        statsByWorkout[id, default: RouteStats(zoneCount: zones.zones.count)].merge(stats)
        effortsBox.value?.endFile(stats)
        thinnedPoints += pointBox.value.thinned
        let points = pointBox.value.finish()
        let drawing = drawingBox.value
        let trimmed = drawing.trimmed.finish()
        // A file with no active point still has its greyed points, and is a piece of its
        // workout's map.
        guard let first = points.first ?? trimmed.first, let last = points.last ?? trimmed.last else { return }
        let meanBPM = stats.meanBPM
        let gaps = drawing.gaps
        let segments = MapRoute.segments(RouteGeometry.segments(points, zones: zones), of: points, cutAt: gaps)
        if !points.isEmpty, let geojson {
            var feature = RouteFeature(
                workoutID: id, activity: activity, routeFile: file, start: first.time, end: last.time,
                distanceMeters: stats.distance, durationSeconds: Double(last.time - first.time),
                averageBPM: meanBPM, points: points, segments: segments, zoneNames: zones.zones.map(\.name))
            if !gaps.isEmpty { feature.stretches = MapRoute.stretches(of: points, cutAt: gaps) }
            geojson.add(feature)
        }
        guard let maps else { return }
        if !points.isEmpty { tracks.add(workoutID: id, activity: activity, points: points) }
        guard maps.drawWorkouts else { return }
        var route = MapRoute(
            workoutID: id, activity: activity, start: first.time, end: last.time,
            utcOffsetMinutes: maps.offsets[id] ?? 0, distanceMeters: stats.distance, meanBPM: meanBPM,
            timeInZone: stats.timeInZone, points: points, segments: segments)
        route.gaps = gaps
        route.trimmed = trimmed
        route.joinsPrevious = drawing.joinsPrevious
        route.trimmedGaps = drawing.trimmedGaps
        route.activeSeconds = stats.elapsed
        let files = maps.filesPerWorkout[id] ?? 1
        var marked = effortsBox.value?.completedSplits ?? []
        // A split that ends exactly where this file's track ends is completed only by a point
        // beyond its boundary (in the next file) or by `finishEfforts`, after this piece is made:
        // this piece marks it (at the file's last point, where the next file's piece would not).
        if let closing = effortsBox.value?.splitEndingAtTrackEnd { marked.append(closing) }
        route.splitMarks = marked.filter { $0.endTime >= Double(first.time) && $0.endTime <= Double(last.time) }
            .map { SplitMark(label: String($0.index), time: $0.endTime) }
        guard files > 1 else {
            try maps.drawWorkout(route)
            return
        }
        pendingMaps[id, default: []].append(route)
        pendingPoints += route.points.count
        if let pieces = pendingMaps[id], pieces.count == files {
            pendingMaps[id] = nil
            pendingPoints -= pieces.reduce(0) { $0 + $1.points.count }
            try maps.drawWorkout(.joined(pieces, zones: zones))
        }
        while pendingPoints > drawnPointCap && halvePendingMaps() {}
    }

    /// Ends the splits and best efforts of the workout being read; call once every route is read.
    package func finishEfforts() {
        if var done = effortsBox.value { finishedEfforts.append(done.finish()) }
        effortsBox.value = nil
    }

    /// Halves every pending piece's points (ends kept, segments cut anew); false when no piece
    /// has more than 2 points left to drop.
    private func halvePendingMaps() -> Bool {
        var dropped = 0
        for id in pendingMaps.keys {
            for k in pendingMaps[id]!.indices {
                let piece = pendingMaps[id]![k]
                let halved = DrawnPoints.halvedKeepingEnds(piece.points)
                guard halved.count < piece.points.count else { continue }
                dropped += piece.points.count - halved.count
                pendingMaps[id]![k].points = halved
                pendingMaps[id]![k].segments = MapRoute.segments(
                    RouteGeometry.segments(halved, zones: zones), of: halved, cutAt: piece.gaps)
            }
        }
        pendingPoints -= dropped
        thinnedPoints += dropped
        return dropped > 0
    }
}

/// What workout maps need beyond the route itself.
package struct MapContext {
    /// The folder the route shapes are spilled to for the overview maps (the run's staging
    /// folder, from which the spill files are removed before the commit).
    package let spillFolder: String
    /// Draw `svg/workouts/<id>.svg` (the tracks are kept for the other maps either way).
    package let drawWorkouts: Bool
    /// Draws one workout's map; called from both route threads.
    package let drawWorkout: @Sendable (MapRoute) throws -> Void
    /// Route files per workout: a workout with several is drawn once all are read.
    package let filesPerWorkout: [String: Int]
    /// Each workout's local UTC offset (its time zone's), for the map's title date.
    package let offsets: [String: Int32]

    package init(
        spillFolder: String, drawWorkouts: Bool, drawWorkout: @escaping @Sendable (MapRoute) throws -> Void,
        filesPerWorkout: [String: Int], offsets: [String: Int32]
    ) {
        self.spillFolder = spillFolder
        self.drawWorkouts = drawWorkouts
        self.drawWorkout = drawWorkout
        self.filesPerWorkout = filesPerWorkout
        self.offsets = offsets
    }
}

extension MapRoute {
    /// One workout's map from the pieces of its several route files, in time order.
    package static func joined(_ pieces: [MapRoute], zones: HeartRateZones) -> MapRoute {
        let sorted = pieces.sorted { $0.start < $1.start }
        var points: [RoutePoint] = [], segments: [RouteSegment] = []
        var timeInZone = [Double](repeating: 0, count: zones.zones.count)
        var bpmSum = 0.0, bpmCount = 0.0
        for piece in sorted {
            let offset = points.count
            points += piece.points
            segments += piece.segments.map {
                var s = $0; s.first += offset; s.last += offset; return s
            }
            for (i, t) in piece.timeInZone.enumerated() where i < timeInZone.count { timeInZone[i] += t }
            if let m = piece.meanBPM { bpmSum += m * Double(piece.points.count); bpmCount += Double(piece.points.count) }
        }
        let first = sorted[0]
        var route = MapRoute(
            workoutID: first.workoutID, activity: first.activity, start: first.start,
            end: sorted.map(\.end).max()!, utcOffsetMinutes: first.utcOffsetMinutes,
            distanceMeters: sorted.map(\.distanceMeters).reduce(0, +),
            meanBPM: bpmCount > 0 ? bpmSum / bpmCount : nil, timeInZone: timeInZone,
            points: points, segments: segments)
        // The pieces' own breaks, and one between each piece and the next.
        for (k, piece) in sorted.enumerated() {
            route.gaps += piece.gaps
            route.trimmed += piece.trimmed
            route.trimmedGaps += piece.trimmedGaps
            route.splitMarks += piece.splitMarks
            if k + 1 < sorted.count {
                let next = sorted[k + 1]
                if next.start > piece.end && !next.joinsPrevious { route.gaps.append(piece.end...next.start) }
                if let a = piece.trimmed.last?.time, let b = next.trimmed.first?.time, b >= a { route.trimmedGaps.append(a...b) }
            }
        }
        route.gaps.sort { $0.lowerBound < $1.lowerBound }
        route.trimmedGaps.sort { $0.lowerBound < $1.lowerBound }
        // A split ending on a file's last point is marked by that file's piece, and again by the
        // next piece when the track stands on the boundary into it: one marker, the later one.
        var marks: [SplitMark] = [], markIndex: [String: Int] = [:]
        for mark in route.splitMarks {
            if let k = markIndex[mark.label] {
                marks[k] = mark
            } else {
                markIndex[mark.label] = marks.count
                marks.append(mark)
            }
        }
        route.splitMarks = marks
        route.activeSeconds = sorted.reduce(0) { $0 + ($1.activeSeconds ?? Double($1.end - $1.start)) }
        return route
    }
}
