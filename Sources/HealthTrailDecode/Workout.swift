import HealthTrailBase

/// A workout as exported: the element's attributes plus its children.
///
/// Totals sit on the element in older exports (`totalDistance` with `km`/`mi`) and in
/// `WorkoutStatistics` children in newer ones; both are kept as read, normalisation comes later.
public struct Workout: Sendable {
    /// Stable, readable id: `20240102T153122Z-running` (a suffix `-2` on a clash).
    public var id: String
    /// Activity name normalised from `HKWorkoutActivityTypeRunning` to `running` (`ActivityCatalog`).
    public var activity: String
    /// The raw `workoutActivityType`.
    public var activityType: String
    public var start: Timestamp
    public var end: Timestamp
    /// `duration` with its `durationUnit`, as written.
    public var duration: Quantity?
    public var totalDistance: Quantity?
    public var totalEnergyBurned: Quantity?
    public var source: String
    public var metadata: [(key: String, value: String)] = []
    public var events: [WorkoutEvent] = []
    public var statistics: [WorkoutStatistic] = []
    public var activities: [WorkoutActivity] = []
    /// `FileReference path=` of each `WorkoutRoute` (`/workout-routes/route_….gpx`).
    public var routeFiles: [String] = []
    /// Points of the old inline `WorkoutRoute/Location` form.
    public var inlineRoutePoints = 0
    /// Line of the `<Workout>` element, for messages.
    public var line: Int

    /// Duration in seconds: the declared one when its unit is known, else end − start.
    public var durationSeconds: Double {
        if let d = duration, let s = d.seconds { return s }
        return Double(end.utcSeconds - start.utcSeconds)
    }

    public func metadataValue(_ key: String) -> String? { metadata.first { $0.key == key }?.value }
}

/// A number with its unit string, exactly as the export wrote them.
public struct Quantity: Sendable, Equatable {
    public var value: Double
    public var unit: String

    public init(value: Double, unit: String) {
        self.value = value
        self.unit = unit
    }

    /// The value in seconds when the unit is a time unit.
    public var seconds: Double? {
        switch unit {
        case "s", "sec": return value
        case "min": return value * 60
        case "hr", "h": return value * 3600
        case "ms": return value / 1000
        default: return nil
        }
    }
}

/// `<WorkoutEvent type= date= duration=>`: pauses, resumes, laps, segments.
public struct WorkoutEvent: Sendable {
    public var type: String
    public var date: Timestamp
    public var duration: Quantity?
}

/// `<WorkoutStatistics type= average= minimum= maximum= sum= unit=>`.
public struct WorkoutStatistic: Sendable {
    public var type: String
    public var start: Timestamp?
    public var end: Timestamp?
    public var average: Double?
    public var minimum: Double?
    public var maximum: Double?
    public var sum: Double?
    public var unit: String?
}

/// One part of a multi-part workout (`<WorkoutActivity>`).
public struct WorkoutActivity: Sendable {
    public var uuid: String
    public var start: Timestamp
    public var end: Timestamp?
    public var duration: Quantity?
    public var metadata: [(key: String, value: String)] = []
}

/// `<Me>`: characteristics; kept in memory for zone defaults, never logged.
public struct Me: Sendable, Equatable {
    public var dateOfBirth: String?
    public var biologicalSex: String?
    public var bloodType: String?
}
