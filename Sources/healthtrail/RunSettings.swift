import ArgumentParser
import HealthTrailAnalysis
import HealthTrailArchive
import HealthTrailKit
import HealthTrailRun
import HealthTrailWrite

/// The options that shape a run's outputs, shared by `run` and `partial`.
///
/// Each is optional: given on the command line it wins over the pipeline file (`--pipeline`),
/// left out the file's value (or the default shown) applies.
struct RunSettings: ParsableArguments {
    private typealias Declared = RunOptionDeclaration

    /// Every `--format` given: `--format csv --format parquet` is `--format csv,parquet`.
    @Option(name: Declared.format.longName, help: Declared.format.argumentHelp)
    var format: [String] = []

    @Flag(name: Declared.strict.longName, help: Declared.strict.argumentHelp)
    var strict = false

    @Option(name: Declared.sourcePriority.longName, help: Declared.sourcePriority.argumentHelp)
    var sourcePriority: String?

    @Option(name: Declared.joinTolerance.longName, help: Declared.joinTolerance.argumentHelp)
    var joinTolerance: Int?

    @Option(name: Declared.maxHR.longName, help: Declared.maxHR.argumentHelp)
    var maxHr: Double?

    @Flag(name: Declared.maxHRFromBirthDate.longName, help: Declared.maxHRFromBirthDate.argumentHelp)
    var maxHrFromBirthDate = false

    @Option(name: Declared.splitUnit.longName, help: Declared.splitUnit.argumentHelp)
    var splitUnit: String?

    @Flag(name: Declared.geojsonTimes.longName, help: Declared.geojsonTimes.argumentHelp)
    var geojsonTimes = false

    @Flag(name: Declared.ecgSamples.longName, help: Declared.ecgSamples.argumentHelp)
    var ecgSamples = false

    @Flag(name: Declared.noSVG.longName, help: Declared.noSVG.argumentHelp)
    var noSvg = false

    @Flag(name: Declared.noReport.longName, help: Declared.noReport.argumentHelp)
    var noReport = false

    @Option(name: Declared.svgSize.longName, help: Declared.svgSize.argumentHelp)
    var svgSize: Int?

    @Option(name: Declared.colourScale.longName, help: Declared.colourScale.argumentHelp)
    var colourScale: String?

    @Option(name: Declared.maps.longName, help: Declared.maps.argumentHelp)
    var maps: String?

    @Option(name: Declared.mapArea.longName, help: Declared.mapArea.argumentHelp)
    var mapArea: String?

    @Option(name: Declared.mapMinPoints.longName, help: Declared.mapMinPoints.argumentHelp)
    var mapMinPoints: Int?

    @Option(name: Declared.maxExpansionRatio.longName, help: Declared.maxExpansionRatio.argumentHelp)
    var maxExpansionRatio: UInt64?

    @Option(name: Declared.maxUncompressed.longName, help: Declared.maxUncompressed.argumentHelp)
    var maxUncompressed: String?

    func validate() throws {
        if !format.isEmpty, formats == nil {
            throw ValidationError("--format takes csv, sqlite or parquet, several separated by commas: e.g. csv,parquet")
        }
        if let maxExpansionRatio { try Declared.maxExpansionRatio.check(Int(clamping: maxExpansionRatio)) }
        if let maxUncompressed, ArchiveLimits.bytes(parsing: maxUncompressed) == nil {
            throw ValidationError("--max-uncompressed takes a size such as 64G, 500MiB or 1000000")
        }
        if let joinTolerance { try Declared.joinTolerance.check(joinTolerance) }
        if let maxHr { try Declared.maxHR.check(maxHr) }
        if maxHr != nil && maxHrFromBirthDate { throw ValidationError("give --max-hr or --max-hr-from-birth-date, not both") }
        if let svgSize { try Declared.svgSize.check(svgSize) }
        if let colourScale { try Declared.colourScale.check(word: colourScale) }
        if let splitUnit { try Declared.splitUnit.check(word: splitUnit) }
        let kinds = Declared.maps.words ?? []
        for name in (maps ?? "").split(separator: ",") where !kinds.contains(String(name).trimmingCharacters(in: .whitespaces)) {
            throw ValidationError("--maps: unknown map '\(name)' (\(kinds.joined(separator: ", ")))")
        }
        if let mapArea, Self.area(mapArea) == nil {
            throw ValidationError("--map-area must be minLat,minLon,maxLat,maxLon with min < max, e.g. 48.80,2.25,48.92,2.42")
        }
        if let mapMinPoints { try Declared.mapMinPoints.check(mapMinPoints) }
    }

    /// Applies the options given on the command line over `options` (defaults or a pipeline's).
    func apply(to options: inout RunOptions) {
        if let formats { options.formats = formats }
        if strict { options.strict = true }
        if let maxExpansionRatio { options.archiveLimits.maxExpansionRatio = maxExpansionRatio }
        if let bytes = maxUncompressed.flatMap(ArchiveLimits.bytes(parsing:)) { options.archiveLimits.maxUncompressedBytes = bytes }
        if let joinTolerance { options.joinTolerance = Int64(joinTolerance) }
        if let maxHr { options.zones = .maximum(maxHr) } else if maxHrFromBirthDate { options.zones = .fromDateOfBirth }
        if geojsonTimes { options.geojsonTimes = true }
        if let unit = splitUnit.flatMap(SplitUnit.init(rawValue:)) { options.splitUnit = unit }
        if ecgSamples { options.ecgSamples = true }
        if let sourcePriority {
            options.sourcePriority = SourcePriority(patterns: sourcePriority.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        if noReport { options.report = false }
        if noSvg { options.maps = nil }
        guard options.maps != nil else { return }
        if let svgSize { options.maps?.options.size = svgSize }
        if let colourScale, let scale = ColourScale(rawValue: colourScale) { options.maps?.options.colourScale = scale }
        if let mapArea { options.maps?.options.densityBoundingBox = Self.area(mapArea) }
        if let mapMinPoints { options.maps?.options.minimumPoints = mapMinPoints }
        if let maps {
            options.maps?.kinds = Set(
                maps.split(separator: ",").compactMap { MapOutputs.Kind(rawValue: String($0).trimmingCharacters(in: .whitespaces)) })
        }
    }

    /// The formats of every `--format` given, nil when none is or a word is not a format.
    var formats: TableFormats? { format.isEmpty ? nil : Self.formats(format.joined(separator: ",")) }

    /// `csv,parquet` → the formats, nil when a word is not a format.
    static func formats(_ text: String) -> TableFormats? {
        TableFormats(names: text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
    }

    /// `minLat,minLon,maxLat,maxLon` → a box, nil when malformed.
    static func area(_ text: String) -> GeoBoundingBox? {
        let v = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard v.count == 4 else { return nil }
        return GeoBoundingBox(checked: v)
    }
}

extension RunOptionDeclaration {
    /// `--join-tolerance`, as the argument parser names an option.
    var longName: NameSpecification { .customLong(name) }

    /// The help of the option, its value's name included.
    var argumentHelp: ArgumentHelp { ArgumentHelp(help, valueName: valueName) }

    /// Refuses a whole number the option does not accept: `--join-tolerance must be 0…3600
    /// seconds`, `--map-min-points must be at least 2`.
    func check(_ value: Int) throws {
        guard let range = integers, !range.contains(value) else { return }
        if range.upperBound == Int.max { throw ValidationError("\(option) must be at least \(range.lowerBound)") }
        throw ValidationError("\(option) must be \(range.lowerBound)…\(range.upperBound)\(unit.isEmpty ? "" : " " + unit)")
    }

    /// Refuses a number the option does not accept: `--max-hr must be between 100 and 250 bpm`.
    func check(_ value: Double) throws {
        guard let range = numbers, !range.contains(value) else { return }
        func text(_ bound: Double) -> String { bound == bound.rounded() ? "\(Int(bound))" : "\(bound)" }
        throw ValidationError("\(option) must be between \(text(range.lowerBound)) and \(text(range.upperBound))\(unit.isEmpty ? "" : " " + unit)")
    }

    /// Refuses a word the option does not accept: `--colour-scale must be viridis or inferno`.
    func check(word: String) throws {
        guard let words, !words.contains(word) else { return }
        let choices = words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words.last!
        throw ValidationError("\(option) must be \(choices)")
    }
}
