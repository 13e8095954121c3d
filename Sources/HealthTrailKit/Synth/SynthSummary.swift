/// What `ExportSynthesizer` wrote: exact element counts, the truth tests compare readers with.
public struct SynthSummary: Codable, Sendable, Equatable {
    /// Top-level `<Record>` elements per `type` attribute. The copies nested inside
    /// `<Correlation>` are not counted (they repeat top-level records, as the DTD notes).
    public var recordsByType: [String: Int] = [:]
    /// `HKQuantityTypeIdentifierHeartRate` records (also counted in `recordsByType`).
    public var heartRateRecords = 0
    /// `<Workout>` elements.
    public var workouts = 0
    /// Workouts with a `<WorkoutRoute>` child (including the one whose file is missing when
    /// `includeBrokenRouteLinks` is set).
    public var workoutsWithRoutes = 0
    /// GPX entries written (including the orphan when `includeBrokenRouteLinks` is set).
    public var routeFiles = 0
    /// `<trkpt>` elements across all GPX entries.
    public var routePoints = 0
    /// `<Correlation>` elements.
    public var correlations = 0
    /// `<ActivitySummary>` elements (one per day).
    public var activitySummaries = 0
    /// `<InstantaneousBeatsPerMinute>` elements.
    public var hrvBeats = 0
    /// Uncompressed size of the main XML entry.
    public var exportXMLBytes: UInt64 = 0
    /// The Apple Watch's `StepCount` total per local calendar day of the person ("2023-01-05"),
    /// local meaning the zone the person was in (Europe/Paris, America/New_York while away),
    /// not the export offset the dates carry. The truth for source de-duplication tests: the
    /// iPhone counts the same walks too, a little differently.
    public var watchStepsByLocalDay: [String: Int] = [:]

    public init() {}
}
