/// What the generator wrote for one `<Workout>`, in the units a reader should report: the
/// truth the output contract test compares `workouts.csv` with. Each figure is the value the
/// generator chose; where the export carries it rounded or in another unit, the written value
/// and its unit are kept too, so a test can tell a conversion error from the written rounding.
package struct WorkoutTruth: Codable, Sendable, Equatable {
    /// `HKWorkoutActivityType…` as written.
    package var activityType: String
    /// End instant, UTC `yyyy-MM-ddTHH:mm:ssZ`.
    package var endUTC: String
    /// `duration` as written (minutes, 6 decimals), in seconds.
    package var durationSeconds: Double
    /// The `HKTimeZone` identifier, and that zone's offset at the start (minutes east of UTC).
    package var timeZone: String
    package var utcOffsetMinutes: Int
    /// `HKIndoorWorkout` (1 or 0); nil when not written (swimming writes its location type).
    package var indoor: Bool?
    /// `WorkoutActivity` children, or 1 when there are none.
    package var parts: Int
    /// Totals on the element (`totalDistance`, `totalEnergyBurned`) rather than `WorkoutStatistics`.
    package var legacyTotals: Bool
    /// Distance the generator chose, metres; nil for activities without a distance.
    package var distanceMeters: Double?
    /// Distance as written and its unit (`km` or `mi`); legacy totals write 0 for activities
    /// without a distance, statistics write nothing (nil).
    package var distanceAsWritten: Double?
    package var distanceUnit: String
    /// Active energy the generator chose, kcal; as written and its unit (`kcal`, `Cal`, `kJ`).
    package var energyKcal: Double
    package var energyAsWritten: Double
    package var energyUnit: String
    /// Heart-rate statistics as written in `WorkoutStatistics` (count/min); nil without them
    /// (legacy totals, or no heart-rate sample during the workout).
    package var averageBPM: Double?
    package var minimumBPM: Double?
    package var maximumBPM: Double?
    /// `HKWeatherTemperature` as written (degF) and in °C; nil indoors.
    package var temperatureF: Int?
    package var temperatureC: Double?
    /// `HKWeatherHumidity`: written as hundredths of a percent with unit `%`; this is the percent.
    package var humidityPercent: Double?
    /// `HKElevationAscended` (written in cm), metres.
    package var elevationAscendedMeters: Double?
    /// The route file, relative to the export folder (`workout-routes/route_….gpx`); nil
    /// without a `WorkoutRoute`. `routeMissing`: referenced but left out of the archive.
    package var routeFile: String?
    package var routeMissing: Bool
    /// GPX points of the route file (0 without one).
    package var routePoints: Int
    /// Points written off the track (GPS glitches), and points of the drive at the end of a
    /// workout nobody ended (`SynthWorkoutPlan.driveSeconds`); 0 in most workouts.
    package var glitchPoints = 0
    package var drivePoints = 0
    /// The pause, UTC seconds (start, resume); nil without one.
    package var pause: [Int]?
}
