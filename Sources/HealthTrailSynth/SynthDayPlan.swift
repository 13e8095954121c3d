/// The plan of one local day of the person's life, from which every record type is drawn.
///
/// Each record type is written in its own pass over all days (exports group records by type),
/// so the plan is what keeps the passes consistent: sleep, walks and workouts are decided here.
package struct SynthDayPlan {
    /// A spell of walking in daily life (not a workout), with the Watch's steps per minute.
    package struct Bout { var start: Int; var end: Int; var cadence: Int }

    package var index: Int
    /// Local calendar date as a day number (days since 1970-01-01).
    package var dayNumber: Int
    package var zone: SynthTimeZone
    /// UTC instant of this date's local midnight in `zone`.
    package var localMidnight: Int
    /// The slice of time this day owns (UTC, half-open): consecutive days tile time exactly,
    /// also when the person changes zone, so no two days write heart rate for the same instant.
    package var start: Int
    package var end: Int
    /// The night that ends this morning (UTC), or `sleepEnd == sleepStart` (red-eye flight).
    package var sleepStart = 0
    package var sleepEnd = 0
    /// Before iOS 16 the Watch wrote plain `Asleep` samples instead of sleep stages.
    package var legacySleep = false
    /// Awake and about (UTC).
    package var wake = 0
    package var bed = 0
    package var bouts: [Bout] = []
    package var workouts: [SynthWorkoutPlan] = []
    /// A blood-pressure reading (a Correlation) is taken this day.
    package var bloodPressure = false
    /// A third-party sleep app (Sleep Cycle) also recorded the night that ends this morning.
    package var sleepApp = false
    /// An afternoon nap (UTC, whole minutes), or `napEnd == napStart` when there is none.
    package var napStart = 0
    package var napEnd = 0

    package var hasNap: Bool { napEnd > napStart }

    package var hasSleep: Bool { sleepEnd > sleepStart }

    /// The workout running at `t`, if any.
    @inline(__always)
    package func workout(at t: Int) -> SynthWorkoutPlan? {
        for w in workouts where t >= w.start && t < w.end { return w }
        return nil
    }

    /// The walking bout at `t`, if any.
    @inline(__always)
    package func bout(at t: Int) -> Bout? {
        for b in bouts where t >= b.start && t < b.end { return b }
        return nil
    }

    /// Local time of day in seconds of `t` in this day's zone.
    @inline(__always)
    package func localSeconds(_ t: Int) -> Int {
        let l = t + zone.offset(utc: t)
        return l - SynthCalendar.floorDiv(l, 86_400) * 86_400
    }
}
