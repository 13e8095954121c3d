import HealthTrailBase

/// What `report.html` shows, as plain values: the run gathers them from its tables, and
/// `ReportPage` draws them. Nothing here knows a file or a decoder.
package struct ReportContent: Sendable {
    /// Days with any data, sorted by date.
    package var days: [ReportDay] = []
    /// Workouts, sorted by start.
    package var workouts: [ReportWorkout] = []
    /// Each workout's splits, by workout id, in order.
    package var splits: [String: [ReportSplit]] = [:]
    /// Best efforts: per workout, per year and of all time (`ReportEffort.scope`).
    package var efforts: [ReportEffort] = []
    /// Sleep nights, sorted by date.
    package var nights: [ReportNight] = []
    /// ECG recordings, sorted by time.
    package var ecg: [ReportECG] = []
    /// Each route's map and thumbnail, by workout id.
    package var routes: [String: ReportRoute] = [:]

    package init() {}
}

/// One day of `daily.csv` (and VO2 max where recorded).
package struct ReportDay: Sendable, Equatable {
    /// Days since 1970-01-01 of the local date.
    package var day: Int64
    /// Steps, walking and running distance (metres), active energy (kcal), resting heart rate
    /// (bpm), HRV SDNN (ms), time asleep in the night ending that morning (minutes), VO2 max
    /// (mL/kg·min): nil where the day has none.
    package var steps, distanceMeters, activeKcal, restingHR, hrvMS, sleepMinutes, vo2Max: Double?
    /// The day's time zones: one, or the first and last `;`-separated on a travel day.
    package var timeZone: String

    package init(
        day: Int64, steps: Double? = nil, distanceMeters: Double? = nil, activeKcal: Double? = nil, restingHR: Double? = nil,
        hrvMS: Double? = nil, sleepMinutes: Double? = nil, vo2Max: Double? = nil, timeZone: String = ""
    ) {
        self.day = day
        self.steps = steps
        self.distanceMeters = distanceMeters
        self.activeKcal = activeKcal
        self.restingHR = restingHR
        self.hrvMS = hrvMS
        self.sleepMinutes = sleepMinutes
        self.vo2Max = vo2Max
        self.timeZone = timeZone
    }
}

/// One workout of `workouts.csv`.
package struct ReportWorkout: Sendable, Equatable {
    /// `workouts.csv`'s `workout_id`.
    package var id: String
    /// `running`, `traditional_strength_training`, …
    package var activity: String
    /// UTC seconds of the start.
    package var start: Int64
    /// The workout's UTC offset, minutes.
    package var offsetMinutes: Int32
    /// Seconds.
    package var duration: Double
    /// Metres, beats per minute, seconds per kilometre: nil where the workout has none.
    package var distanceMeters, avgHR, maxHR, paceSecondsPerKm, energyKcal, elevationGainMeters: Double?
    /// The app or device that recorded it.
    package var source: String

    package init(
        id: String, activity: String, start: Int64, offsetMinutes: Int32, duration: Double, distanceMeters: Double? = nil,
        avgHR: Double? = nil, maxHR: Double? = nil, paceSecondsPerKm: Double? = nil, energyKcal: Double? = nil,
        elevationGainMeters: Double? = nil, source: String = ""
    ) {
        self.id = id
        self.activity = activity
        self.start = start
        self.offsetMinutes = offsetMinutes
        self.duration = duration
        self.distanceMeters = distanceMeters
        self.avgHR = avgHR
        self.maxHR = maxHR
        self.paceSecondsPerKm = paceSecondsPerKm
        self.energyKcal = energyKcal
        self.elevationGainMeters = elevationGainMeters
        self.source = source
    }

    /// The local date, `2024-01-02`.
    package var localDate: String { Timestamp(utcSeconds: start, offsetMinutes: offsetMinutes).localDateString }
}

/// One split of `splits.csv`.
package struct ReportSplit: Sendable, Equatable {
    /// 1, 2, …
    package var number: Int
    /// `km` or `mi`.
    package var unit: String
    package var distanceMeters: Double
    package var movingSeconds: Double
    package var paceSecondsPerKm: Double?
    package var avgHR: Double?
    package var elevationGainMeters: Double?

    package init(
        number: Int, unit: String, distanceMeters: Double, movingSeconds: Double, paceSecondsPerKm: Double?, avgHR: Double?,
        elevationGainMeters: Double?
    ) {
        self.number = number
        self.unit = unit
        self.distanceMeters = distanceMeters
        self.movingSeconds = movingSeconds
        self.paceSecondsPerKm = paceSecondsPerKm
        self.avgHR = avgHR
        self.elevationGainMeters = elevationGainMeters
    }
}

/// One row of `best_efforts.csv`.
package struct ReportEffort: Sendable, Equatable {
    /// `workout`, `year` or `all_time`.
    package var scope: String
    /// The year of a `year` row.
    package var year: Int?
    package var workoutID: String
    /// `running` or `cycling`.
    package var activity: String
    /// `1 km`, `5 km`, `half marathon`, …
    package var effort: String
    package var distanceMeters: Double
    /// Wall-clock seconds.
    package var elapsedSeconds: Double
    package var paceSecondsPerKm: Double
    /// UTC seconds of the effort's start.
    package var start: Int64

    package init(
        scope: String, year: Int?, workoutID: String, activity: String, effort: String, distanceMeters: Double,
        elapsedSeconds: Double, paceSecondsPerKm: Double, start: Int64
    ) {
        self.scope = scope
        self.year = year
        self.workoutID = workoutID
        self.activity = activity
        self.effort = effort
        self.distanceMeters = distanceMeters
        self.elapsedSeconds = elapsedSeconds
        self.paceSecondsPerKm = paceSecondsPerKm
        self.start = start
    }
}

/// One night of `sleep_nights.csv`, dated by the local date of the morning it ends.
package struct ReportNight: Sendable, Equatable {
    /// Days since 1970-01-01 of the morning's date.
    package var day: Int64
    /// Minutes.
    package var inBedMinutes: Double
    package var asleepMinutes: Double
    /// Minutes per stage, nil on a night without stages.
    package var coreMinutes, deepMinutes, remMinutes: Double?

    package init(
        day: Int64, inBedMinutes: Double, asleepMinutes: Double, coreMinutes: Double? = nil, deepMinutes: Double? = nil, remMinutes: Double? = nil
    ) {
        self.day = day
        self.inBedMinutes = inBedMinutes
        self.asleepMinutes = asleepMinutes
        self.coreMinutes = coreMinutes
        self.deepMinutes = deepMinutes
        self.remMinutes = remMinutes
    }
}

/// One ECG recording of `ecg.csv`.
package struct ReportECG: Sendable, Equatable {
    /// UTC seconds.
    package var recorded: Int64
    package var offsetMinutes: Int32
    /// `Sinus Rhythm`, `Atrial Fibrillation`, …, as written.
    package var classification: String
    /// As written, empty for none.
    package var symptoms: String
    package var durationSeconds: Double?

    package init(recorded: Int64, offsetMinutes: Int32, classification: String, symptoms: String, durationSeconds: Double?) {
        self.recorded = recorded
        self.offsetMinutes = offsetMinutes
        self.classification = classification
        self.symptoms = symptoms
        self.durationSeconds = durationSeconds
    }
}
