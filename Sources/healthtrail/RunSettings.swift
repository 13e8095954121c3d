import ArgumentParser
import HealthTrailArchive
import HealthTrailKit

/// The options that shape a run's outputs, shared by `run` and `partial`.
///
/// Each is optional: given on the command line it wins over the pipeline file (`--pipeline`),
/// left out the file's value (or the default shown) applies.
struct RunSettings: ParsableArguments {
    @Flag(help: "Fail on the first malformed record instead of skipping it.")
    var strict = false

    @Option(help: ArgumentHelp(
        "Which source counts where several wrote the same steps, energy or sleep: comma-separated parts of source names, best first. Sources matching none come last. (default: \(SourcePriority.default.patterns.joined(separator: ",")))",
        valueName: "patterns"))
    var sourcePriority: String?

    @Option(help: ArgumentHelp("How far (seconds) a heart-rate sample may be from a route point to give it a bpm. (default: \(RunOptions.defaultJoinTolerance))", valueName: "seconds"))
    var joinTolerance: Int?

    @Option(help: ArgumentHelp("Five heart-rate zones from this maximum (default: resting <100, moderate 100–139, vigorous 140–179, maximum 180+ bpm).", valueName: "bpm"))
    var maxHr: Double?

    @Flag(help: "Five heart-rate zones from 220 − age, age from the export's date of birth.")
    var maxHrFromBirthDate = false

    @Flag(help: "Add a timestamp to every position of routes.geojson ([lon, lat, ele, unix time]: kepler.gl's trip layer).")
    var geojsonTimes = false

    @Flag(help: "Skip the SVG maps and calendars (svg/).")
    var noSvg = false

    @Option(help: ArgumentHelp("Width of the SVG maps and calendars in pixels. (default: \(SVGOptions().size))", valueName: "px"))
    var svgSize: Int?

    @Option(help: ArgumentHelp("Colour scale of the density map: viridis or inferno. (default: viridis)", valueName: "scale"))
    var colourScale: String?

    @Option(help: ArgumentHelp("Which SVG maps to draw: any of workouts, routes, density, calendars (comma-separated; default: all).", valueName: "list"))
    var maps: String?

    @Option(help: ArgumentHelp("Area of the overview and density maps, as minLat,minLon,maxLat,maxLon (default: where the central 98 % of points lie).", valueName: "box"))
    var mapArea: String?

    @Option(help: ArgumentHelp("Routes with fewer points are not drawn. (default: \(SVGOptions().minimumPoints))", valueName: "n"))
    var mapMinPoints: Int?

    @Option(help: ArgumentHelp("Refuse a zip entry that inflates more than this many times its compressed size (zip-bomb guard; real exports stay under 50). (default: \(ArchiveLimits.default.maxExpansionRatio))", valueName: "n"))
    var maxExpansionRatio: UInt64?

    @Option(help: ArgumentHelp("Refuse an archive whose entries inflate to more than this in all, e.g. 64G, 500MiB. (default: \(ArchiveLimits.text(bytes: ArchiveLimits.default.maxUncompressedBytes)))", valueName: "size"))
    var maxUncompressed: String?

    func validate() throws {
        if let maxExpansionRatio, maxExpansionRatio < 2 { throw ValidationError("--max-expansion-ratio must be at least 2") }
        if let maxUncompressed, ArchiveLimits.bytes(parsing: maxUncompressed) == nil {
            throw ValidationError("--max-uncompressed takes a size such as 64G, 500MiB or 1000000")
        }
        let tolerance = RunSettingRanges.joinToleranceSeconds, heartRate = RunSettingRanges.maximumHeartRate
        if let joinTolerance, !tolerance.contains(joinTolerance) {
            throw ValidationError("--join-tolerance must be \(tolerance.lowerBound)…\(tolerance.upperBound) seconds")
        }
        if let maxHr, !heartRate.contains(maxHr) {
            throw ValidationError("--max-hr must be between \(Int(heartRate.lowerBound)) and \(Int(heartRate.upperBound)) bpm")
        }
        if maxHr != nil && maxHrFromBirthDate { throw ValidationError("give --max-hr or --max-hr-from-birth-date, not both") }
        if let svgSize, !RunSettingRanges.svgSize.contains(svgSize) {
            throw ValidationError("--svg-size must be \(RunSettingRanges.svgSize.lowerBound)…\(RunSettingRanges.svgSize.upperBound) pixels")
        }
        if let colourScale, ColourScale(rawValue: colourScale) == nil { throw ValidationError("--colour-scale must be viridis or inferno") }
        for name in (maps ?? "").split(separator: ",") where MapOutputs.Kind(rawValue: String(name).trimmingCharacters(in: .whitespaces)) == nil {
            throw ValidationError("--maps: unknown map '\(name)' (workouts, routes, density, calendars)")
        }
        if let mapArea, Self.area(mapArea) == nil {
            throw ValidationError("--map-area must be minLat,minLon,maxLat,maxLon with min < max, e.g. 48.80,2.25,48.92,2.42")
        }
        if let mapMinPoints, !RunSettingRanges.mapMinimumPoints.contains(mapMinPoints) {
            throw ValidationError("--map-min-points must be at least \(RunSettingRanges.mapMinimumPoints.lowerBound)")
        }
    }

    /// Applies the options given on the command line over `options` (defaults or a pipeline's).
    func apply(to options: inout RunOptions) {
        if strict { options.strict = true }
        if let maxExpansionRatio { options.archiveLimits.maxExpansionRatio = maxExpansionRatio }
        if let bytes = maxUncompressed.flatMap(ArchiveLimits.bytes(parsing:)) { options.archiveLimits.maxUncompressedBytes = bytes }
        if let joinTolerance { options.joinTolerance = Int64(joinTolerance) }
        if let maxHr { options.zones = .maximum(maxHr) } else if maxHrFromBirthDate { options.zones = .fromDateOfBirth }
        if geojsonTimes { options.geojsonTimes = true }
        if let sourcePriority {
            options.sourcePriority = SourcePriority(patterns: sourcePriority.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        if noSvg { options.maps = nil }
        guard options.maps != nil else { return }
        if let svgSize { options.maps?.options.size = svgSize }
        if let colourScale, let scale = ColourScale(rawValue: colourScale) { options.maps?.options.colourScale = scale }
        if let mapArea { options.maps?.options.densityBoundingBox = Self.area(mapArea) }
        if let mapMinPoints { options.maps?.options.minimumPoints = mapMinPoints }
        if let maps {
            options.maps?.kinds = Set(maps.split(separator: ",").compactMap { MapOutputs.Kind(rawValue: String($0).trimmingCharacters(in: .whitespaces)) })
        }
    }

    /// `minLat,minLon,maxLat,maxLon` → a box, nil when malformed.
    static func area(_ text: String) -> GeoBoundingBox? {
        let v = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard v.count == 4 else { return nil }
        return GeoBoundingBox(checked: v)
    }
}
