import HealthTrailBase

/// A point of an old export's inline `WorkoutRoute/Location`, kept until routes are processed.
public struct InlineLocation: Sendable {
    public var point: RoutePoint
    public var horizontalAccuracy: Double?
    public var course: Double?
    public var verticalAccuracy: Double?
}
