import HealthTrailAnalysis
import HealthTrailArchive
import HealthTrailBase

/// `manifest.json`: what was read, what was written, what was skipped, how long it took.
///
/// Names, counts, sizes, lines and hashes only: no health value appears in it, and text read
/// from the data (unknown units and activity types, missing files' paths) only as keyed tags.
package struct Manifest: Codable, Sendable {
    package struct Input: Codable, Sendable {
        package var path: String
        package var name: String
        /// `zip`, `folder` or `xml`.
        package var kind: String
        package var sizeBytes: UInt64
        package var sha256: String
        package var mainEntry: String
        package var mainEntryBytes: UInt64
        package var exportVersion: String?
        package var exportDate: String?
        package var locale: String?
    }
    package struct Counts: Codable, Sendable {
        package var recordsByType: [String: Int]
        package var heartRate: Int
        package var workouts: Int
        package var routeFiles: Int
        package var routePoints: Int
        package var inlineRoutePoints: Int
        package var correlations: Int
        package var activitySummaries: Int
        package var hrvBeats: Int
        /// ECG files in the export (`electrocardiograms/*.csv`), read or not.
        package var ecgFiles: Int
        package var sources: Int
        /// ECG recordings read, the rows of `ecg.csv` (a malformed file is a fault instead).
        /// Absent in manifests of older versions.
        package var ecgRecordings: Int? = nil
        /// The samples of those recordings; `ecg_samples.csv` has a row for each when
        /// `--ecg-samples` is given. Absent in manifests of older versions.
        package var ecgSamples: Int? = nil
    }
    package struct Routes: Codable, Sendable {
        package var linkedByReference: Int
        package var linkedByTime: Int
        /// Route files no workout names, exported under `route-<start>` ids.
        package var orphans: [String]
        /// Files a workout references that the archive does not hold: their `FileReference`
        /// paths as keyed tags (`ManifestNames`), as written with `--debug-manifest`.
        package var missingFiles: [String]
        package var joinToleranceSeconds: Int64
        /// Heart-rate samples inside the routes' time windows, used by the join.
        package var heartRateSamplesForJoin: Int
        /// Zone names in order; workouts.csv has a `zone_<zone>_s` column for each (`OutputSchema.zoneColumn`).
        package var zones: [String]
        /// Where the maximum heart rate the zones were split from came from: `workout_maximum`,
        /// `max_hr`, `date_of_birth` or `fixed` (`ZoneChoice.Basis`). A category, never the
        /// maximum or a bound: those are health values, in `heart_rate_zones.csv`. Absent in
        /// manifests of older versions.
        package var zoneBasis: ZoneChoice.Basis? = nil
        package var geojsonFeatures: Int
        /// Routes `svg/routes.svg` leaves out because they start outside its area (trips far
        /// from where most points lie; their workouts keep their own maps). Absent when no
        /// overview was drawn.
        package var svgRoutesOutsideArea: Int? = nil
        /// Route points left out of drawn lines (`routes.geojson` features and the maps)
        /// because their route, or a workout map's pieces, had more than 100,000 points: the
        /// line is drawn from evenly spaced points, ends kept. `route_points.csv` and every
        /// figure keep all points. Absent in manifests of older versions.
        package var thinnedPoints: Int? = nil
        /// Route points per `state` of `route_points.csv` (`active`, `paused`, `outside`,
        /// `glitch`, `vehicle`). Absent in manifests of older versions.
        package var pointsByState: [String: Int]? = nil
        /// Points left out as repeats of the previous part file's last point.
        package var duplicateBoundaryPoints: Int? = nil
        /// Workouts whose route the cleaning flagged, per flag of `workouts.csv` (`glitch`, `vehicle`).
        package var flaggedWorkouts: [String: Int]? = nil
        /// Metres of route taken out of the figures (`trimmed_distance_m`, summed).
        package var trimmedDistanceMeters: Double? = nil
    }
    package struct Faults: Codable, Sendable {
        package var total: Int
        package var byKind: [String: Int]
        /// The first faults, with entry and line (at most 100).
        package var first: [Fault]
    }

    package struct Normalisation: Codable, Sendable {
        /// Units no conversion knows (values kept as written, left out of sums), with record
        /// counts: each unit as a keyed tag (`ManifestNames`), as written with `--debug-manifest`.
        package var unknownUnits: [String: Int]
        /// `workoutActivityType`s not in HealthKit's list (passed through lower-cased), with
        /// counts: each type as a keyed tag, as written with `--debug-manifest`.
        package var unknownActivityTypes: [String: Int]
        /// Source name patterns in priority order (unmatched sources come last).
        package var sourcePriority: [String]
        package var sleepNights: Int
        package var naps: Int
        /// Cumulative kinds whose records came in separate groups of export.xml (de-duplicated
        /// together all the same).
        package var regroupedSeries: [String]
        /// How days were placed in the person's time zones (`daily.csv`'s `time_zone`).
        package var timeZones: TimeZones
        /// Records dropped as exact copies of an earlier record (same type, source, unit, start,
        /// end and value), per record type identifier; empty when there were none.
        package var recordCopies: [String: Int]
    }

    /// The time-zone timeline's counts. Never the zones' names: where someone went is private.
    package struct TimeZones: Codable, Sendable {
        /// Sightings of the person's zone (`HKTimeZone` on records and workouts; sleep samples
        /// of one night in one zone make one sighting).
        package var sightings: Int
        /// Distinct zones seen.
        package var zones: Int
        /// Stays in the timeline: runs of sightings of one zone (a trip abroad and back makes three).
        package var stays: Int
        /// `HKTimeZone` values not used: names no time-zone database knows, and those past the
        /// first 1,000 zones or 1,000,000 sightings.
        package var unknownNames: Int
        /// Sightings wholly inside a sighting of another zone (not used).
        package var contradictedSightings: Int
        /// Workouts whose route lies too far from their `HKTimeZone` (zone not used: the
        /// workout is dated in the person's).
        package var routeContradictions: Int
        /// Quarter hours of samples dated at their stamped offset: all of them when no zone was seen.
        package var quarterHoursOnStampedOffset: Int
    }

    package var tool: String = "healthtrail"
    package var toolVersion: String = HealthTrailVersion.current
    package var startedUTC: String
    package var finishedUTC: String
    package var input: Input
    package var counts: Counts
    /// Rows written per output file (header not counted).
    package var outputs: [String: Int]
    package var routes: Routes
    package var faults: Faults
    package var normalisation: Normalisation
    /// Seconds per stage.
    package var timings: [String: Double]
    /// SHA-256 of the options that shape the outputs: with the input's SHA-256 and the tool
    /// version, it tells a repeat run (skipped, exit 3) from one with something new.
    package var runOptionsSHA256: String?
    /// Every file the run wrote, relative to the output folder (`manifest.json` aside). The next
    /// run replaces or removes these and no other file: whatever else is in the folder is not
    /// HealthTrail's.
    package var files: [String]? = nil
    /// Where the budget ledger of this folder's DP releases lives (pipelines with `dp`).
    package var budgetLedger: String? = nil
}

/// The version written into manifests and `--version`.
package enum HealthTrailVersion {
    package static let current = "0.2.0"
}
