import HealthTrailBase

/// A workout as exported: the element's attributes plus its children.
///
/// Totals sit on the element in older exports (`totalDistance` with `km`/`mi`) and in
/// `WorkoutStatistics` children in newer ones; both are kept as read, normalisation comes later.
package struct Workout: Sendable {
    /// Stable, readable id: `20240102T153122Z-running` (a suffix `-2` on a clash).
    package var id: String
    /// Activity name normalised from `HKWorkoutActivityTypeRunning` to `running` (`ActivityCatalog`).
    package var activity: String
    /// The raw `workoutActivityType`.
    package var activityType: String
    package var start: Timestamp
    package var end: Timestamp
    /// `duration` with its `durationUnit`, as written.
    package var duration: Quantity?
    package var totalDistance: Quantity?
    package var totalEnergyBurned: Quantity?
    package var source: String
    package var metadata: [(key: String, value: String)] = []
    package var events: [WorkoutEvent] = []
    package var statistics: [WorkoutStatistic] = []
    package var activities: [WorkoutActivity] = []
    /// `FileReference path=` of each `WorkoutRoute` (`/workout-routes/route_….gpx`).
    package var routeFiles: [String] = []
    /// Points of the old inline `WorkoutRoute/Location` form.
    package var inlineRoutePoints = 0
    /// Line of the `<Workout>` element, for messages.
    package var line: Int

    /// Duration in seconds: the declared one when its unit is known, else end − start.
    package var durationSeconds: Double {
        if let d = duration, let s = d.seconds { return s }
        return Double(end.utcSeconds - start.utcSeconds)
    }

    package func metadataValue(_ key: String) -> String? { metadata.first { $0.key == key }?.value }
}

/// A number with its unit string, exactly as the export wrote them.
package struct Quantity: Sendable, Equatable {
    package var value: Double
    package var unit: String

    package init(value: Double, unit: String) {
        self.value = value
        self.unit = unit
    }

    /// The value in seconds when the unit is a time unit.
    package var seconds: Double? {
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
package struct WorkoutEvent: Sendable {
    package var type: String
    package var date: Timestamp
    package var duration: Quantity?
}

/// `<WorkoutStatistics type= average= minimum= maximum= sum= unit=>`.
package struct WorkoutStatistic: Sendable {
    package var type: String
    package var start: Timestamp?
    package var end: Timestamp?
    package var average: Double?
    package var minimum: Double?
    package var maximum: Double?
    package var sum: Double?
    package var unit: String?
}

/// One part of a multi-part workout (`<WorkoutActivity>`).
package struct WorkoutActivity: Sendable {
    package var uuid: String
    package var start: Timestamp
    package var end: Timestamp?
    package var duration: Quantity?
    package var metadata: [(key: String, value: String)] = []
}

/// `<Me>`: characteristics; kept in memory for zone defaults, never logged.
package struct Me: Sendable, Equatable {
    package var dateOfBirth: String?
    package var biologicalSex: String?
    package var bloodType: String?
}
