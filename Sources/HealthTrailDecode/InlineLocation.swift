import HealthTrailBase

/// A point of an old export's inline `WorkoutRoute/Location`, kept until routes are processed.
package struct InlineLocation: Sendable {
    package var point: RoutePoint
    package var horizontalAccuracy: Double?
    package var course: Double?
    package var verticalAccuracy: Double?
}
