import HealthTrailBase
import HealthTrailDecode

/// One workout's splits and best efforts, built from its active points as its route files go
/// through one `RouteProcessor`, one file after the other in time order.
///
/// Each active point becomes a `TrackSample` of the workout's running totals: the figures of
/// its finished files plus the current file's `RouteStats` so far. Splits stream out of a
/// `SplitBuilder`; best efforts (running and cycling only) stream through a `BestEffortSearch`,
/// which holds only the points within the longest target distance of the newest one, so a
/// track of any length costs what its last marathon (or 40 km ride) costs.
package struct WorkoutEfforts {
    package let workoutID: String
    package let activity: String
    private var splits: SplitBuilder
    private var efforts: BestEffortSearch
    /// The time and distance of the last sample added.
    private var lastTime = Int64.min
    private var lastDistance = 0.0
    /// The totals of the workout's finished files.
    private var base = (distance: 0.0, elapsed: 0.0, moving: 0.0, climb: 0.0)

    package init(workoutID: String, activity: String, splitUnit: SplitUnit) {
        self.workoutID = workoutID
        self.activity = activity
        splits = SplitBuilder(unit: splitUnit.metres)
        efforts = BestEffortSearch(targets: Self.targets(for: activity))
    }

    /// The best-effort distances of an activity: running's and cycling's, none for others.
    package static func targets(for activity: String) -> [(name: String, metres: Double)] {
        switch activity {
        case "running": BestEfforts.running
        case "cycling": BestEfforts.cycling
        default: []
        }
    }

    /// Adds an active point; `distance` … `climb` are its route file's running figures
    /// (`RouteStats`) with the point added. A point earlier than the last one added (route files
    /// of one workout that overlap in time) is left out: the track must run forward in time.
    @inline(__always)
    package mutating func add(_ point: RoutePoint, distance: Double, elapsed: Double, moving: Double, climb: Double) {
        guard point.time >= lastTime else { return }
        lastTime = point.time
        let sample = TrackSample(
            time: point.time, distance: Swift.max(lastDistance, base.distance + distance), elapsed: base.elapsed + elapsed,
            moving: base.moving + moving, climb: base.climb + climb, bpm: point.bpm)
        lastDistance = sample.distance
        splits.add(sample)
        efforts.add(sample)
    }

    /// The splits completed so far: their ends mark the workout's map.
    package var completedSplits: [Split] { splits.splits }

    /// The full split that the track so far would complete if it ended here, on a split
    /// boundary (`SplitBuilder.splitEndingAtTrackEnd`): a split is completed only when the track
    /// goes beyond its boundary or ends, so the map of the workout's last file marks this one.
    package var splitEndingAtTrackEnd: Split? { splits.splitEndingAtTrackEnd }

    /// Ends a route file of the workout, whose figures were `file`.
    package mutating func endFile(_ file: RouteStats) {
        base.distance += file.distance
        base.elapsed += file.elapsed
        base.moving += file.movingTime
        base.climb += file.elevationGain
    }

    /// The workout's splits and its best effort at each target its track is long enough for.
    package mutating func finish() -> WorkoutEffortFigures {
        WorkoutEffortFigures(
            workoutID: workoutID, activity: activity, splits: splits.finish(),
            bestEfforts: efforts.finish())
    }
}

/// What `WorkoutEfforts` found for one workout.
package struct WorkoutEffortFigures: Sendable {
    package let workoutID: String
    package let activity: String
    package let splits: [Split]
    package let bestEfforts: [(name: String, effort: BestEffort)]
}

/// The length of a split: `--split-unit km` or `mi`.
package enum SplitUnit: String, Sendable, CaseIterable {
    case km, mi

    /// Metres per split.
    package var metres: Double { self == .km ? SplitBuilder.kilometre : SplitBuilder.mile }
}
