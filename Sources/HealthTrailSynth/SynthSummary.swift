/// What `ExportSynthesizer` wrote: exact element counts, the truth tests compare readers with.
package struct SynthSummary: Codable, Sendable, Equatable {
    /// Top-level `<Record>` elements per `type` attribute. The copies nested inside
    /// `<Correlation>` are not counted (they repeat top-level records, as the DTD notes).
    package var recordsByType: [String: Int] = [:]
    /// `HKQuantityTypeIdentifierHeartRate` records (also counted in `recordsByType`).
    package var heartRateRecords = 0
    /// `<Workout>` elements.
    package var workouts = 0
    /// Workouts with a `<WorkoutRoute>` child (including the one whose file is missing when
    /// `includeBrokenRouteLinks` is set).
    package var workoutsWithRoutes = 0
    /// GPX entries written (including the orphan when `includeBrokenRouteLinks` is set).
    package var routeFiles = 0
    /// `<trkpt>` elements across all GPX entries.
    package var routePoints = 0
    /// `<Correlation>` elements.
    package var correlations = 0
    /// `<ActivitySummary>` elements (one per day).
    package var activitySummaries = 0
    /// `<InstantaneousBeatsPerMinute>` elements.
    package var hrvBeats = 0
    /// Uncompressed size of the main XML entry.
    package var exportXMLBytes: UInt64 = 0
    /// The Apple Watch's `StepCount` total per local calendar day of the person ("2023-01-05"),
    /// local meaning the zone the person was in (Europe/Paris, America/New_York while away),
    /// not the export offset the dates carry. The truth for source de-duplication tests: the
    /// iPhone counts the same walks too, a little differently.
    package var watchStepsByLocalDay: [String: Int] = [:]

    // MARK: Truths for normalisation, de-duplication, sleep nights and daily summaries
    //
    // Local dates below follow HealthTrail's rule: a record's local date is its start date read
    // at the UTC offset stamped on it (the export's offset, `SynthOptions.exportOffsetMinutes`),
    // except workouts, whose `HKTimeZone` wins. No Watch sample of the four cumulative types
    // straddles a midnight of that offset, so per-day sums are the same whether a reader files
    // a sample under its start date or splits it pro rata. Every iPhone StepCount,
    // DistanceWalkingRunning and FlightsClimbed sample, and every third-party ActiveEnergyBurned
    // sample (Strava in `Cal`, Zwift in `kJ`), lies entirely within time the Watch's samples of
    // the same type cover, and the Watch's samples of a type never overlap one another; so
    // de-duplicating by source priority (Watch, then iPhone, then other apps; lower-priority
    // samples dropped where a higher one covers their span, pro rata for partial overlap)
    // leaves exactly the Watch's samples, and these totals.

    /// The Apple Watch's `StepCount` total per local date at the export offset ("2023-01-05"):
    /// what de-duplicated steps per day must be. Days without Watch steps are absent.
    package var stepsByExportDay: [String: Int] = [:]
    /// The Watch's `DistanceWalkingRunning` per local date at the export offset, in metres (the
    /// Watch writes km with five decimals, so every value is a whole number of centimetres and
    /// this is the exact sum, rounded to the nearest Double).
    package var distanceMetersByExportDay: [String: Double] = [:]
    /// The Watch's `ActiveEnergyBurned` per local date at the export offset, in kcal (the sum of
    /// its three-decimal values, exact to the thousandth). Its samples run back to back over the
    /// whole archive; the Strava (`Cal`) and Zwift (`kJ`) copies of workouts are not counted.
    package var activeKcalByExportDay: [String: Double] = [:]
    /// The Watch's `FlightsClimbed` per local date at the export offset.
    package var flightsByExportDay: [String: Int] = [:]
    /// True asleep minutes per night, keyed by the local date at the export offset of the
    /// morning the night ends (the latest end date of the night's sleep samples; a night's
    /// first samples may carry the evening before's date). Asleep minutes
    /// are those of the best source only: the Watch's `AsleepCore` + `AsleepDeep` + `AsleepREM`
    /// (not `Awake`) on staged nights, its legacy `Asleep` samples on legacy nights (the first
    /// quarter of the days). One night of archives of three days or more is also recorded by
    /// Sleep Cycle (legacy `Asleep` and `InBed`, no device) overlapping the Watch's staged
    /// samples: the Watch wins and Sleep Cycle's minutes are not counted. Every sleep sample
    /// starts and ends on a whole minute, so these are exact. Naps are not included. Nights
    /// without sleep (the red-eye flight home) are absent.
    package var asleepMinutesByNight: [String: Int] = [:]
    /// In-bed minutes per night (same keys as `asleepMinutesByNight`): the length of the union
    /// of every source's `InBed` spans that night (the iPhone's, plus Sleep Cycle's on its night).
    package var inBedMinutesByNight: [String: Int] = [:]
    /// Afternoon naps: the Watch's asleep minutes per local date at the export offset of the
    /// nap's end. A nap is one Watch sample of ~25 minutes around 14:00 in the person's zone
    /// (`AsleepCore`, or `Asleep` on legacy days), with no `InBed` sample and hours away from any
    /// night; archives of four days or more have at least one. Not part of any night's truth.
    package var napMinutesByDay: [String: Int] = [:]
    /// Every `<Workout>`: its start instant in UTC (`yyyy-MM-ddTHH:mm:ssZ`) → its local start
    /// date in the zone its `HKTimeZone` metadata names (Europe/Paris or America/New_York).
    /// During the New York trip this differs from the date the export offset gives for evening
    /// workouts.
    package var workoutLocalDates: [String: String] = [:]

    // MARK: Truths for the output contract (every documented column)

    /// Every `<Workout>` as written, keyed like `workoutLocalDates` (start instant, UTC).
    package var workoutTruths: [String: WorkoutTruth] = [:]
    /// Workouts and their minutes (`duration` as written) per local date in the workout's
    /// `HKTimeZone` (the dates of `workoutLocalDates`).
    package var workoutsByLocalDay: [String: Int] = [:]
    package var workoutMinutesByLocalDay: [String: Double] = [:]
    /// The Watch's `BasalEnergyBurned` (its only source) per local date at the export offset,
    /// kcal: each sample as written, split between the dates its span covers in proportion to
    /// time (some samples cross midnight).
    package var basalKcalByExportDay: [String: Double] = [:]
    /// The mean of every `HeartRate` value as written (all sources) per local date at the
    /// export offset of its start.
    package var heartRateMeanByExportDay: [String: Double] = [:]
    /// The mean `RestingHeartRate` (one a day) and `HeartRateVariabilitySDNN` (ms) values per
    /// local date at the export offset of their start.
    package var restingHRByExportDay: [String: Double] = [:]
    package var hrvSDNNByExportDay: [String: Double] = [:]
    /// From each `ActivitySummary`, by its local date: exercise minutes and stood hours, which
    /// daily.csv takes over the records where a summary exists, and its active energy as written.
    package var exerciseMinutesBySummaryDay: [String: Double] = [:]
    package var standHoursBySummaryDay: [String: Double] = [:]
    package var activeKcalBySummaryDay: [String: Double] = [:]
    /// Core, deep and REM minutes of each staged night (keys as `asleepMinutesByNight`): the
    /// Watch's stage samples, which win every staged night. Legacy nights are absent.
    package var coreMinutesByNight: [String: Int] = [:]
    package var deepMinutesByNight: [String: Int] = [:]
    package var remMinutesByNight: [String: Int] = [:]

    // MARK: Truths by the person's local day
    //
    // The same samples, sums and means as the `…ByExportDay` truths above, dated instead by the
    // person's local day: the date of the day plan whose slice of time holds the instant. Each
    // day owns a half-open UTC span, and consecutive days tile time exactly, also when the
    // person changes zone: the last Paris day before the trip runs on to New York's midnight,
    // and the first Paris day after it starts at New York's midnight. Elsewhere a day's span runs
    // from its local midnight to the next in its zone. An instant before the first day's span or
    // from the last day's end is dated in that day's zone. A sample dated by an instant counts
    // whole on the day whose span holds its start, which need not be the day that wrote it (late
    // heart rate, the night's HRV); `basalKcalByLocalDay` splits each sample between the days
    // its span covers.

    /// The Apple Watch's `StepCount` total per local day of each sample's start: the samples of
    /// `stepsByExportDay`, so the totals over all days are equal. It can differ from
    /// `watchStepsByLocalDay` (the start's date in the zone of the day that wrote the sample)
    /// only on `travelDays`.
    package var stepsByLocalDay: [String: Int] = [:]
    /// The Watch's `DistanceWalkingRunning` per local day of its start, in metres (whole
    /// centimetres summed, as `distanceMetersByExportDay`).
    package var distanceMetersByLocalDay: [String: Double] = [:]
    /// The Watch's `ActiveEnergyBurned` per local day of its start, in kcal (exact to the
    /// thousandth; no third-party copies, as `activeKcalByExportDay`).
    package var activeKcalByLocalDay: [String: Double] = [:]
    /// The Watch's `FlightsClimbed` per local day of its start.
    package var flightsByLocalDay: [String: Int] = [:]
    /// The Watch's `BasalEnergyBurned` per local day, kcal: each sample as written, split
    /// between the days its span covers in proportion to time (samples cross midnights and the
    /// ends of the travel days' spans alike).
    package var basalKcalByLocalDay: [String: Double] = [:]
    /// The mean of every `HeartRate` value as written (all sources) per local day of its start.
    package var heartRateMeanByLocalDay: [String: Double] = [:]
    /// The mean `RestingHeartRate` and `HeartRateVariabilitySDNN` (ms) values per local day of
    /// their start.
    package var restingHRByLocalDay: [String: Double] = [:]
    package var hrvSDNNByLocalDay: [String: Double] = [:]
    /// Every day of the archive → the IANA identifier of the zone the person lived it in
    /// (`Europe/Paris`, or `America/New_York` on the days of the trip).
    package var timeZoneByLocalDay: [String: String] = [:]
    /// The days whose zone differs from the day before's or the day after's (at each change of
    /// zone, the last day in one zone and the first in the other), sorted.
    package var travelDays: [String] = []

    /// Every ECG file (`electrocardiograms/*.csv`) as written, in the order of the archive.
    package var ecgRecordings: [ECGTruth] = []

    package init() {}
}

/// One ECG file the generator wrote: its header's values and its samples, as written. The
/// header's name and date of birth are `SynthSidecars.ecgName` and `ecgDateOfBirth`.
package struct ECGTruth: Codable, Sendable, Equatable {
    /// The entry's path relative to the export folder (`electrocardiograms/ecg_2023-01-02.csv`).
    package var file: String
    /// `Recorded Date` as a UTC instant, `yyyy-MM-ddTHH:mm:ssZ`.
    package var recordedUTC: String
    /// The UTC offset `Recorded Date` states, in minutes.
    package var offsetMinutes: Int
    package var classification: String
    package var symptoms: String
    package var softwareVersion: String
    package var device: String
    package var sampleRateHz: Double
    package var lead: String
    package var unit: String
    /// Sample lines.
    package var samples: Int
    /// The sum of every sample's value as written (three decimals each).
    package var microvoltSum: Double
    package var firstMicrovolts: Double
    package var lastMicrovolts: Double
}
