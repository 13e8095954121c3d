import HealthTrailAnalysis
import HealthTrailRun
import HealthTrailWrite

/// From a pipeline file to the options of one export's run.
extension PipelineSpec {
    /// The run options this pipeline declares for one archive; command-line options are applied
    /// over them by the caller.
    package func runOptions(inputPath: String, outputDirectory: String) -> RunOptions {
        var options = RunOptions(inputPath: inputPath, outputDirectory: outputDirectory)
        options.strict = strict
        if let joinToleranceSeconds { options.joinTolerance = Int64(joinToleranceSeconds) }
        switch zones {
        case .maximum(let bpm)?: options.zones = .maximum(bpm)
        case .fromBirthDate?: options.zones = .fromDateOfBirth
        case .standard?, nil: options.zones = .fromWorkouts
        }
        if let sourcePriority { options.sourcePriority = SourcePriority(patterns: sourcePriority) }
        options.geojson = outputs.contains(.geojson)
        options.report = outputs.contains(.report)
        options.geojsonTimes = geojsonTimes ?? false
        options.splitUnit = splitUnit ?? .km
        options.ecgSamples = ecgSamples ?? false
        options.formats = formats ?? [.csv]
        guard outputs.contains(.svg) else {
            options.maps = nil
            return options
        }
        if let maps {
            if let kinds = maps.kinds { options.maps?.kinds = Set(kinds.compactMap(MapOutputs.Kind.init(rawValue:))) }
            if let size = maps.size { options.maps?.options.size = size }
            if let scale = maps.colourScale.flatMap(ColourScale.init(rawValue:)) { options.maps?.options.colourScale = scale }
            if let area = maps.area { options.maps?.options.densityBoundingBox = GeoBoundingBox(checked: area) }
            if let minPoints = maps.minPoints { options.maps?.options.minimumPoints = minPoints }
        }
        return options
    }
}
