/// What a route point was when it was recorded, as `route_points.csv`'s `state` column says.
///
/// Only `active` points count in a workout's figures (distance, moving time, pace, splits, best
/// efforts, heart-rate zones); the others stay in the CSV file so nothing recorded is lost.
package enum PointState: UInt8, Sendable, CaseIterable {
    /// Inside the workout's active time: its span (its parts' windows when it has parts),
    /// outside its paused spans, and trusted by the glitch filter.
    case active
    /// Inside the workout's span, while it was paused (`HKWorkoutEventTypePause` …
    /// `Resume`, or `MotionPaused` … `MotionResumed`).
    case paused
    /// Before the workout started, after it ended, or between two of its parts.
    case outside
    /// A fix the filter rejects: reached from the previous trusted point at a speed impossible
    /// for the activity, with a horizontal accuracy worse than `RouteSpeedLimits.worstAccuracy`,
    /// or stamped at a time the route's clock cannot have shown (`TrackCleaner`).
    case glitch
    /// Part of a sustained stretch at vehicle speed inside a workout on foot: the drive home
    /// of a workout nobody ended.
    case vehicle

    /// The CSV value: `active`, `paused`, `outside`, `glitch`, `vehicle`.
    package var name: String {
        switch self {
        case .active: "active"
        case .paused: "paused"
        case .outside: "outside"
        case .glitch: "glitch"
        case .vehicle: "vehicle"
        }
    }
}
