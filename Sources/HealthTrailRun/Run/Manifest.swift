import HealthTrailArchive

/// `manifest.json`: what was read, what was written, what was skipped, how long it took.
///
/// Names, counts, sizes, lines and hashes only: no health value appears in it, and text read
/// from the data (unknown units and activity types, missing files' paths) only as keyed tags.
public struct Manifest: Codable, Sendable {
    public struct Input: Codable, Sendable {
        public var path: String
        public var name: String
        /// `zip`, `folder` or `xml`.
        public var kind: String
        public var sizeBytes: UInt64
        public var sha256: String
        public var mainEntry: String
        public var mainEntryBytes: UInt64
        public var exportVersion: String?
        public var exportDate: String?
        public var locale: String?
    }
    public struct Counts: Codable, Sendable {
        public var recordsByType: [String: Int]
        public var heartRate: Int
        public var workouts: Int
        public var routeFiles: Int
        public var routePoints: Int
        public var inlineRoutePoints: Int
        public var correlations: Int
        public var activitySummaries: Int
        public var hrvBeats: Int
        /// ECG files in the export (`electrocardiograms/*.csv`), read or not.
        public var ecgFiles: Int
        public var sources: Int
        /// ECG recordings read, the rows of `ecg.csv` (a malformed file is a fault instead).
        /// Absent in manifests of older versions.
        public var ecgRecordings: Int? = nil
        /// The samples of those recordings; `ecg_samples.csv` has a row for each when
        /// `--ecg-samples` is given. Absent in manifests of older versions.
        public var ecgSamples: Int? = nil
    }
    public struct Routes: Codable, Sendable {
        public var linkedByReference: Int
        public var linkedByTime: Int
        /// Route files no workout names, exported under `route-<start>` ids.
        public var orphans: [String]
        /// Files a workout references that the archive does not hold: their `FileReference`
        /// paths as keyed tags (`ManifestNames`), as written with `--debug-manifest`.
        public var missingFiles: [String]
        public var joinToleranceSeconds: Int64
        /// Heart-rate samples inside the routes' time windows, used by the join.
        public var heartRateSamplesForJoin: Int
        /// Zone names in order; workouts.csv has a `zone_<zone>_s` column for each (`OutputSchema.zoneColumn`).
        public var zones: [String]
        public var geojsonFeatures: Int
        /// Routes `svg/routes.svg` leaves out because they start outside its area (trips far
        /// from where most points lie; their workouts keep their own maps). Absent when no
        /// overview was drawn.
        public var svgRoutesOutsideArea: Int? = nil
        /// Route points left out of drawn lines (`routes.geojson` features and the maps)
        /// because their route, or a workout map's pieces, had more than 100,000 points: the
        /// line is drawn from evenly spaced points, ends kept. `route_points.csv` and every
        /// figure keep all points. Absent in manifests of older versions.
        public var thinnedPoints: Int? = nil
        /// Route points per `state` of `route_points.csv` (`active`, `paused`, `outside`,
        /// `glitch`, `vehicle`). Absent in manifests of older versions.
        public var pointsByState: [String: Int]? = nil
        /// Points left out as repeats of the previous part file's last point.
        public var duplicateBoundaryPoints: Int? = nil
        /// Workouts whose route the cleaning flagged, per flag of `workouts.csv` (`glitch`, `vehicle`).
        public var flaggedWorkouts: [String: Int]? = nil
        /// Metres of route taken out of the figures (`trimmed_distance_m`, summed).
        public var trimmedDistanceMeters: Double? = nil
    }
    public struct Faults: Codable, Sendable {
        public var total: Int
        public var byKind: [String: Int]
        /// The first faults, with entry and line (at most 100).
        public var first: [Fault]
    }

    public struct Normalisation: Codable, Sendable {
        /// Units no conversion knows (values kept as written, left out of sums), with record
        /// counts: each unit as a keyed tag (`ManifestNames`), as written with `--debug-manifest`.
        public var unknownUnits: [String: Int]
        /// `workoutActivityType`s not in HealthKit's list (passed through lower-cased), with
        /// counts: each type as a keyed tag, as written with `--debug-manifest`.
        public var unknownActivityTypes: [String: Int]
        /// Source name patterns in priority order (unmatched sources come last).
        public var sourcePriority: [String]
        public var sleepNights: Int
        public var naps: Int
        /// Cumulative kinds whose records came in separate groups of export.xml (de-duplicated
        /// together all the same).
        public var regroupedSeries: [String]
        /// How days were placed in the person's time zones (`daily.csv`'s `time_zone`).
        public var timeZones: TimeZones
        /// Records dropped as exact copies of an earlier record (same type, source, unit, start,
        /// end and value), per record type identifier; empty when there were none.
        public var recordCopies: [String: Int]
    }

    /// The time-zone timeline's counts. Never the zones' names: where someone went is private.
    public struct TimeZones: Codable, Sendable {
        /// Sightings of the person's zone (`HKTimeZone` on records and workouts; sleep samples
        /// of one night in one zone make one sighting).
        public var sightings: Int
        /// Distinct zones seen.
        public var zones: Int
        /// Stays in the timeline: runs of sightings of one zone (a trip abroad and back makes three).
        public var stays: Int
        /// `HKTimeZone` values not used: names no time-zone database knows, and those past the
        /// first 1,000 zones or 1,000,000 sightings.
        public var unknownNames: Int
        /// Sightings wholly inside a sighting of another zone (not used).
        public var contradictedSightings: Int
        /// Workouts whose route lies too far from their `HKTimeZone` (zone not used: the
        /// workout is dated in the person's).
        public var routeContradictions: Int
        /// Quarter hours of samples dated at their stamped offset: all of them when no zone was seen.
        public var quarterHoursOnStampedOffset: Int
    }

    public var tool: String = "healthtrail"
    public var toolVersion: String = HealthTrailVersion.current
    public var startedUTC: String
    public var finishedUTC: String
    public var input: Input
    public var counts: Counts
    /// Rows written per output file (header not counted).
    public var outputs: [String: Int]
    public var routes: Routes
    public var faults: Faults
    public var normalisation: Normalisation
    /// Seconds per stage.
    public var timings: [String: Double]
    /// SHA-256 of the options that shape the outputs: with the input's SHA-256 and the tool
    /// version, it tells a repeat run (skipped, exit 3) from one with something new.
    public var runOptionsSHA256: String?
    /// Every file the run wrote, relative to the output folder (`manifest.json` aside). The next
    /// run replaces or removes these and no other file: whatever else is in the folder is not
    /// HealthTrail's.
    public var files: [String]? = nil
    /// Where the budget ledger of this folder's DP releases lives (pipelines with `dp`).
    public var budgetLedger: String? = nil
}

/// The version written into manifests and `--version`.
public enum HealthTrailVersion {
    public static let current = "0.1.0"
}
