import ArgumentParser
import Foundation
import HealthTrailKit
#if canImport(Glibc)
import Glibc
#endif

/// `healthtrail run ARCHIVE --out DIR`.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Process one export into CSV files and a manifest.",
        discussion: """
        Writes svg/ maps (one per workout, all routes, route density, calendars), heart_rate.csv,
        workouts.csv, route_points.csv, routes.geojson, hrv_beats.csv,
        sleep_samples.csv, sleep_nights.csv, daily.csv, activity_summaries.csv, records/<type>.csv
        for every other record type, and manifest.json into the output folder (created owner-only).

        Every route point gets the heart rate at that moment (interpolated between the samples
        around it when both are within --join-tolerance seconds) and its zone; routes.geojson
        draws each route in about 50 segments coloured by zone.

        Quantities are converted to one unit per kind (bpm, count, m, kcal, kg, s, ms, degC, %);
        records/ keeps every source's own values, while daily.csv counts one source per time span
        (Apple Watch, then iPhone, then other apps: see --source-priority). Outputs appear only when the run succeeds: a failed or interrupted run
        leaves the previous outputs untouched.

        A malformed record (a bad date, a non-numeric value) is skipped and counted in
        manifest.json under "faults", with its entry and line; --strict makes it fatal.

        An archive already processed into the same folder with the same content (SHA-256), tool
        version and options is skipped in a fraction of a second (exit 3; --force redoes it).
        One run at a time writes an output folder: a second one exits 4.

        Exit codes: 0 success, 1 the input or output failed (one line on stderr says which file,
        entry and line), 2 usage error, 3 nothing new, 4 another run is writing the folder.
        """
    )

    @Argument(help: ArgumentHelp("The export: export.zip, an apple_health_export/ folder, or export.xml.", valueName: "archive"))
    var archive: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Output folder (created if missing).", valueName: "dir"))
    var out: String

    @Flag(help: "Fail on the first malformed record instead of skipping it.")
    var strict = false

    @Flag(help: "Process the archive even if the output folder already holds its outputs (same content, version and options).")
    var force = false

    @Flag(name: .shortAndLong, help: "No progress line and no summary (cron). The progress line is also off when stderr is not a terminal.")
    var quiet = false

    @Option(help: ArgumentHelp(
        "Which source counts where several wrote the same steps, energy or sleep: comma-separated parts of source names, best first. Sources matching none come last.",
        valueName: "patterns"))
    var sourcePriority: String = SourcePriority.default.patterns.joined(separator: ",")

    @Option(help: ArgumentHelp("How far (seconds) a heart-rate sample may be from a route point to give it a bpm.", valueName: "seconds"))
    var joinTolerance: Int = 15

    @Option(help: ArgumentHelp("Five heart-rate zones from this maximum (default: resting <100, moderate 100–139, vigorous 140–179, maximum 180+ bpm).", valueName: "bpm"))
    var maxHr: Double?

    @Flag(help: "Five heart-rate zones from 220 − age, age from the export's date of birth.")
    var maxHrFromBirthDate = false

    @Flag(help: "Add a timestamp to every position of routes.geojson ([lon, lat, ele, unix time]: kepler.gl's trip layer).")
    var geojsonTimes = false

    @Flag(help: "Skip the SVG maps and calendars (svg/).")
    var noSvg = false

    @Option(help: ArgumentHelp("Width of the SVG maps in pixels.", valueName: "px"))
    var svgSize: Int = 800

    @Option(help: ArgumentHelp("Colour scale of the density map: viridis or inferno.", valueName: "scale"))
    var colourScale: String = "viridis"

    @Option(help: ArgumentHelp("Which SVG maps to draw: any of workouts, routes, density, calendars (comma-separated).", valueName: "list"))
    var maps: String = "workouts,routes,density,calendars"

    @Option(help: ArgumentHelp("Area of the overview and density maps, as minLat,minLon,maxLat,maxLon (default: where the central 98 % of points lie).", valueName: "box"))
    var mapArea: String?

    @Option(help: ArgumentHelp("Routes with fewer points are not drawn.", valueName: "n"))
    var mapMinPoints: Int = 2

    @OptionGroup var logging: LogOptions

    func validate() throws {
        guard joinTolerance >= 0 && joinTolerance <= 3600 else { throw ValidationError("--join-tolerance must be 0…3600 seconds") }
        if let maxHr, !(100...250).contains(maxHr) { throw ValidationError("--max-hr must be between 100 and 250 bpm") }
        if maxHr != nil && maxHrFromBirthDate { throw ValidationError("give --max-hr or --max-hr-from-birth-date, not both") }
        guard (100...10_000).contains(svgSize) else { throw ValidationError("--svg-size must be 100…10000 pixels") }
        guard ColourScale(rawValue: colourScale) != nil else { throw ValidationError("--colour-scale must be viridis or inferno") }
        for name in maps.split(separator: ",") where MapOutputs.Kind(rawValue: String(name).trimmingCharacters(in: .whitespaces)) == nil {
            throw ValidationError("--maps: unknown map '\(name)' (workouts, routes, density, calendars)")
        }
        if let mapArea, Self.area(mapArea) == nil {
            throw ValidationError("--map-area must be minLat,minLon,maxLat,maxLon with min < max, e.g. 48.80,2.25,48.92,2.42")
        }
        guard mapMinPoints >= 2 else { throw ValidationError("--map-min-points must be at least 2") }
    }

    func run() throws {
        logging.bootstrap(quiet: quiet)
        var options = RunOptions(inputPath: archive, outputDirectory: out)
        options.strict = strict
        options.force = force
        options.showProgress = !quiet
        options.joinTolerance = Int64(joinTolerance)
        options.zones = maxHr.map { .maximum($0) } ?? (maxHrFromBirthDate ? .fromDateOfBirth : .standard)
        options.geojsonTimes = geojsonTimes
        if noSvg {
            options.maps = nil
        } else {
            options.maps?.options.size = svgSize
            options.maps?.options.colourScale = ColourScale(rawValue: colourScale) ?? .viridis
            options.maps?.options.densityBoundingBox = mapArea.flatMap(Self.area)
            options.maps?.options.minimumPoints = mapMinPoints
            options.maps?.kinds = Set(maps.split(separator: ",").compactMap {
                MapOutputs.Kind(rawValue: String($0).trimmingCharacters(in: .whitespaces))
            })
        }
        options.sourcePriority = SourcePriority(patterns: sourcePriority.split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        })
        umask(0o077)   // health data: everything this run creates is owner-only
        let manifest = try ExportRun.run(options)
        guard !quiet else { return }
        let c = manifest.counts
        let records = c.recordsByType.values.reduce(0, +)
        print("""
        healthtrail: read \(manifest.input.mainEntry) (\(megabytes(manifest.input.mainEntryBytes)) MB, export version \(manifest.input.exportVersion ?? "?")) in \(seconds(manifest.timings["total_s"]))
          \(records) records of \(c.recordsByType.count) types, \(c.heartRate) heart-rate samples, \(c.workouts) workouts, \(c.routeFiles) route files (\(c.routePoints) points)
          \(manifest.faults.total) malformed records skipped\(manifest.faults.total > 0 ? " (see manifest.json \"faults\")" : "")
        outputs in \(out)/  (manifest.json lists every file and its row count)
        """)
    }

    /// `minLat,minLon,maxLat,maxLon` → a box, nil when malformed.
    static func area(_ text: String) -> GeoBoundingBox? {
        let v = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard v.count == 4, v[0] < v[2], v[1] < v[3], (-90...90).contains(v[0]), (-90...90).contains(v[2]),
              (-180...180).contains(v[1]), (-180...180).contains(v[3]) else { return nil }
        return GeoBoundingBox(minLatitude: v[0], minLongitude: v[1], maxLatitude: v[2], maxLongitude: v[3])
    }

    func megabytes(_ bytes: UInt64) -> String { String(Int((Double(bytes) / 1e6).rounded())) }
    func seconds(_ s: Double?) -> String {
        guard let s else { return "?" }
        return s < 10 ? "\((s * 100).rounded() / 100) s" : "\(Int(s.rounded())) s"
    }
}
