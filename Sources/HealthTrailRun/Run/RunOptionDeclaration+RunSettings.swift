import HealthTrailAnalysis
import HealthTrailArchive
import HealthTrailWrite

/// The run settings: the options that shape a run's outputs, taken by `healthtrail run` and
/// `healthtrail partial` and set by pipeline files.
///
/// The defaults are those of the types that use them (`RunOptions`, `SVGOptions`,
/// `ArchiveLimits`, `SourcePriority`, `HeartRateZones`); the ranges are defined here.
extension RunOptionDeclaration {
    /// Every run setting, in the order of the help. A cohort passes each one given on its
    /// command line on to every person's `partial`.
    package static let runSettings: [RunOptionDeclaration] = [
        format, strict, sourcePriority, joinTolerance, maxHR, maxHRFromBirthDate, splitUnit, geojsonTimes, ecgSamples, noSVG,
        noReport, svgSize, colourScale, maps, mapArea, mapMinPoints, maxExpansionRatio, maxUncompressed,
    ]

    /// `--jobs`, `jobs`: a cohort's setting, not a run setting. It says how many persons run at
    /// once, not what any of them outputs, so a cohort does not pass it on to `partial`.
    package static let jobs = RunOptionDeclaration(
        name: "jobs", pipeline: .key(["jobs"]),
        abstract: "Cohort pipelines: archives processed at once, each in a process of its own.",
        valueName: "n", defaultValue: "the pipeline's jobs, else one per core", accepted: .integers(1...256, unit: "archives at once"))

    /// `--format`, `formats`.
    package static let format = RunOptionDeclaration(
        name: "format", pipeline: .key(["formats"]),
        abstract:
            "The formats every table is written in, comma-separated: csv (a file per table), sqlite (healthtrail.db, "
            + "for sqlite3, Datasette, pandas), parquet (parquet/<table>.parquet, for DuckDB, Polars, Spark).",
        valueName: "list", defaultValue: "csv", accepted: .words(TableFormats.all.map(\.name)))

    /// `--strict`, `strict: true`.
    package static let strict = RunOptionDeclaration(
        name: "strict", pipeline: .key(["strict"]),
        abstract: "Fail on the first malformed record instead of skipping it.")

    /// `--source-priority`, `source_priority`.
    package static let sourcePriority = RunOptionDeclaration(
        name: "source-priority", pipeline: .key(["source_priority"]),
        abstract:
            "Which source counts where several wrote the same steps, energy or sleep: comma-separated parts of source names, best first. Sources matching none come last.",
        valueName: "patterns", defaultValue: SourcePriority.default.patterns.joined(separator: ","))

    /// `--join-tolerance`, `join_tolerance_s`: seconds.
    package static let joinTolerance = RunOptionDeclaration(
        name: "join-tolerance", pipeline: .key(["join_tolerance_s"]),
        abstract: "How far a heart-rate sample may be from a route point to give it a bpm.",
        valueName: "seconds", defaultValue: "\(RunOptions.defaultJoinTolerance)", accepted: .integers(0...3600, unit: "seconds"))

    /// `--max-hr`, `zones.max_hr`: beats per minute.
    package static let maxHR = RunOptionDeclaration(
        name: "max-hr", pipeline: .key(["zones", "max_hr"]),
        abstract: "Five heart-rate zones from this maximum heart rate.",
        valueName: "bpm", defaultValue: "the workouts' second-highest maximum of 120–220 bpm",
        accepted: .numbers(100...250, unit: "bpm"))

    /// `--max-hr-from-birth-date`, `zones: from_birth_date`.
    package static let maxHRFromBirthDate = RunOptionDeclaration(
        name: "max-hr-from-birth-date", pipeline: .word("from_birth_date", key: ["zones"]),
        abstract: "Five heart-rate zones from 220 − age, age from the export's date of birth.")

    /// `--split-unit`, `split_unit`.
    package static let splitUnit = RunOptionDeclaration(
        name: "split-unit", pipeline: .key(["split_unit"]),
        abstract: "The length of a split in splits.csv: a kilometre (km) or a mile (mi).",
        valueName: "unit", defaultValue: SplitUnit.km.rawValue, accepted: .word(SplitUnit.allCases.map(\.rawValue)))

    /// `--geojson-times`, `geojson_times: true`.
    package static let geojsonTimes = RunOptionDeclaration(
        name: "geojson-times", pipeline: .key(["geojson_times"]),
        abstract: "Add a timestamp to every position of routes.geojson ([lon, lat, ele, unix time]: kepler.gl's trip layer).")

    /// `--ecg-samples`, `ecg_samples: true`.
    package static let ecgSamples = RunOptionDeclaration(
        name: "ecg-samples", pipeline: .key(["ecg_samples"]),
        abstract:
            "Also write ecg_samples.csv: every sample of every Apple Watch ECG recording (512 a second, in microvolts, "
            + "about 15,000 rows per recording), keyed by ecg.csv's recording_id. ecg.csv, one row per recording, "
            + "is written either way.")

    /// `--no-svg`, `outputs` without `svg`.
    package static let noSVG = RunOptionDeclaration(
        name: "no-svg", pipeline: .wordLeftOut("svg", key: ["outputs"]),
        abstract: "Skip the SVG maps and calendars (svg/).")

    /// `--no-report`, `outputs` without `report`.
    package static let noReport = RunOptionDeclaration(
        name: "no-report", pipeline: .wordLeftOut("report", key: ["outputs"]),
        abstract: "Skip report.html, the page of trends, workouts, best efforts, sleep and ECG for a browser.")

    /// `--svg-size`, `maps.size`: pixels.
    package static let svgSize = RunOptionDeclaration(
        name: "svg-size", pipeline: .key(["maps", "size"]),
        abstract: "Width of the SVG maps and calendars.",
        valueName: "px", defaultValue: "\(SVGOptions().size)", accepted: .integers(100...10_000, unit: "pixels"))

    /// `--colour-scale`, `maps.colour_scale`.
    package static let colourScale = RunOptionDeclaration(
        name: "colour-scale", pipeline: .key(["maps", "colour_scale"]),
        abstract: "Colour scale of the density map.",
        valueName: "scale", defaultValue: SVGOptions().colourScale.rawValue, accepted: .word(ColourScale.allCases.map(\.rawValue)))

    /// `--maps`, `maps.kinds`.
    package static let maps = RunOptionDeclaration(
        name: "maps", pipeline: .key(["maps", "kinds"]),
        abstract: "Which SVG maps to draw, comma-separated.",
        valueName: "list", defaultValue: "all", accepted: .words(MapOutputs.Kind.allCases.map(\.rawValue)))

    /// `--map-area`, `maps.area`.
    package static let mapArea = RunOptionDeclaration(
        name: "map-area", pipeline: .key(["maps", "area"]),
        abstract: "Area of the overview and density maps, as minLat,minLon,maxLat,maxLon.",
        valueName: "box", defaultValue: "where the central 98 % of points lie")

    /// `--map-min-points`, `maps.min_points`: points.
    package static let mapMinPoints = RunOptionDeclaration(
        name: "map-min-points", pipeline: .key(["maps", "min_points"]),
        abstract: "Routes with fewer points are not drawn.",
        valueName: "n", defaultValue: "\(SVGOptions().minimumPoints)", accepted: .integers(2...Int.max, unit: "points"))

    /// `--max-expansion-ratio`: the command line's only.
    package static let maxExpansionRatio = RunOptionDeclaration(
        name: "max-expansion-ratio", pipeline: nil,
        abstract: "Refuse a zip entry that inflates more than this many times its compressed size (zip-bomb guard; real exports stay under 50).",
        valueName: "n", defaultValue: "\(ArchiveLimits.default.maxExpansionRatio)", accepted: .integers(2...Int.max, unit: ""))

    /// `--max-uncompressed`: the command line's only.
    package static let maxUncompressed = RunOptionDeclaration(
        name: "max-uncompressed", pipeline: nil,
        abstract: "Refuse an archive whose entries inflate to more than this in all, e.g. 64G, 500MiB.",
        valueName: "size", defaultValue: ArchiveLimits.text(bytes: ArchiveLimits.default.maxUncompressedBytes))
}
