import HealthTrailBase

/// Everything `GeoJSONWriter` needs about one route: one GPX file, or a workout's inline
/// `WorkoutRoute/Location`s.
///
/// Zone names and segment colours arrive as plain values, so the writer depends on no analysis
/// type beyond `RoutePoint` and `RouteSegment`.
package struct RouteFeature: Sendable {
    /// `20240102T060000Z-running`, or `route-<first point UTC>` for a route no workout claims.
    package var workoutID: String
    /// Snake-case activity name (`running`, `cycling`, …); it picks the route's colour.
    package var activity: String
    /// The route file relative to the export folder; nil for inline locations.
    package var routeFile: String?
    /// Start and end of the workout (or of the route), UTC seconds.
    package var start: Int64
    package var end: Int64
    /// Totals of the workout, written as they are (1 decimal).
    package var distanceMeters: Double
    package var durationSeconds: Double
    /// Mean heart rate over the workout; nil without heart rate.
    package var averageBPM: Double?
    /// The route's points in time order (WGS84).
    package var points: [RoutePoint]
    /// Stretches of `points` drawn in one colour each (indices into `points`).
    package var segments: [RouteSegment]
    /// Zone index → zone name, for the `zone` property of segments (`RouteSegment.zone`).
    package var zoneNames: [String]
    /// Stretches of `points` between the route's gaps (pauses, parts, GPS jumps), as
    /// `MapRoute.stretches` gives them; empty when the route has no gap.
    package var stretches: [ClosedRange<Int>] = []

    package init(
        workoutID: String, activity: String, routeFile: String?, start: Int64, end: Int64,
        distanceMeters: Double, durationSeconds: Double, averageBPM: Double?,
        points: [RoutePoint], segments: [RouteSegment] = [], zoneNames: [String] = []
    ) {
        self.workoutID = workoutID
        self.activity = activity
        self.routeFile = routeFile
        self.start = start
        self.end = end
        self.distanceMeters = distanceMeters
        self.durationSeconds = durationSeconds
        self.averageBPM = averageBPM
        self.points = points
        self.segments = segments
        self.zoneNames = zoneNames
    }
}
