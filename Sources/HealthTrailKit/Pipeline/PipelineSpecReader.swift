import Foundation
import HealthTrailAnalysis
import HealthTrailRun
import Yams

/// Builds a `PipelineSpec` from a pipeline document the schema walker has already checked, and
/// reports the mistakes that involve several keys (conflicting settings), the release file's
/// problems (with its own name and lines) and the releases' consistency with the pipeline.
///
/// It reads whatever is well formed and skips the rest, so one pass reports every problem; the
/// spec it returns is only used when no problem was found.
struct PipelineSpecReader {
    /// Problems in the pipeline file (the schema walk's, then this reader's).
    var walker: YAMLSchemaWalker
    /// Problems in the release file `privacy.releases` names, when it names one.
    var releaseFileWalker: YAMLSchemaWalker?
    /// Absolute path of the pipeline file.
    let file: String
    /// The pipeline file as given (release file names in messages are shown relative to it).
    let shownFile: String
    /// What `~` stands for.
    let home: String

    init(walker: YAMLSchemaWalker, file: String, shownFile: String, home: String) {
        self.walker = walker
        self.file = file
        self.shownFile = shownFile
        self.home = home
    }

    /// Every problem found, the pipeline file's and the release file's.
    var problems: [PipelineProblem] { walker.problems + (releaseFileWalker?.problems ?? []) }

    var folder: String { PipelinePaths.folder(of: file) }

    /// A release read, and whether it came from the release file (where its problems go).
    typealias ReadRelease = (item: ReleaseSpecReader.Item, inFile: Bool)

    /// The spec, or nil when a required setting is missing or malformed (then `problems` says why).
    mutating func read(_ root: Node) -> PipelineSpec? {
        guard case .mapping = root else { return nil }
        let kind = entry(root, "kind").flatMap { YAMLValue.text($0.value) }.flatMap(PipelineSpec.Kind.init(rawValue:))

        let input = entry(root, "input")?.value
        let inputPath = entry(input, "path").flatMap { path($0.value, at: "input.path") }
        if let inputPath, let node = entry(input, "path")?.value,
            inputPath.split(separator: "/").dropLast().contains(where: PipelinePaths.isGlob)
        {
            walker.report(node, path: "input.path", "a glob (*, ?, [..]) may only be in the last component, e.g. ~/study/*.zip")
        }
        let pickEntry = entry(input, "pick")
        let pick =
            pickEntry.flatMap { YAMLValue.text($0.value) }.flatMap(PipelineSpec.Pick.init(rawValue:))
            ?? (kind == .cohort ? .all : .newest)
        if kind == .person, pick == .all, let pickEntry {
            walker.report(
                pickEntry.value, path: "input.pick",
                "a person pipeline reads one archive, the newest: pick all is for cohort pipelines")
        }
        let output = entry(root, "output").flatMap { path($0.value, at: "output") }

        let outputsEntry = entry(root, "outputs")
        var outputs = Set(PipelineSpec.Output.allCases)
        if let outputsEntry {
            // Malformed outputs (reported by the schema walk) stand for no outputs, rather than
            // the default four whose dp would add a second problem about the same line.
            let list = outputsEntry.value.sequence.map(Array.init) ?? []
            outputs = Set(list.compactMap { YAMLValue.text($0).flatMap(PipelineSpec.Output.init(rawValue:)) })
            if !list.isEmpty && !outputs.contains(.csv) {
                walker.report(
                    outputsEntry.value, path: "outputs",
                    "must include csv: every other output (geojson, svg, report, dp) is made from the CSV files")
            }
        }

        let jobsEntry = entry(root, "jobs")
        if kind == .person, let jobsEntry {
            walker.report(jobsEntry.key, path: "jobs", "jobs is for cohort pipelines (a person pipeline reads one archive)")
        }

        var spec = PipelineSpec(
            file: file, kind: kind ?? .person, inputPath: inputPath ?? "", pick: pick, output: output ?? "",
            outputs: outputs, strict: bool(root, .strict) ?? false,
            joinToleranceSeconds: integer(root, .joinTolerance), zones: zones(entry(root, "zones")?.value),
            sourcePriority: entry(root, .sourcePriority).map { $0.value.array().compactMap(YAMLValue.text) },
            maps: entry(root, "maps").map { maps($0.value) }, geojsonTimes: bool(root, .geojsonTimes),
            ecgSamples: bool(root, .ecgSamples),
            jobs: kind == .cohort ? integer(root, "jobs") : nil)
        spec.splitUnit = entry(root, .splitUnit).flatMap { YAMLValue.text($0.value) }.flatMap(SplitUnit.init(rawValue:))
        if let formatsEntry = entry(root, .format) {
            // Malformed lists are reported by the schema walk; the formats are read from what it admits.
            let names = formatsEntry.value.sequence.map { $0.compactMap(YAMLValue.text) } ?? []
            spec.formats = TableFormats(names: names)
            if let formats = spec.formats, !formats.contains(.csv), outputs.contains(.dp) || kind == .cohort {
                walker.report(
                    formatsEntry.value, path: "formats",
                    kind == .cohort
                        ? "must include csv in a cohort: each person's partial totals are read from the CSV files"
                        : "must include csv when outputs include dp: the releases are computed from the CSV files")
            }
        }
        readPrivacy(root, kind: kind, outputsEntry: outputsEntry, into: &spec)
        guard kind != nil, inputPath != nil, output != nil else { return nil }
        return spec
    }

    // MARK: settings

    private func zones(_ node: Node?) -> PipelineSpec.Zones? {
        guard let node else { return nil }
        switch YAMLValue.text(node) {
        case "standard": return .standard
        case PipelineSchema.birthDate: return .fromBirthDate
        default: return entry(node, .maxHR).flatMap { YAMLValue.number($0.value) }.map { .maximum($0) }
        }
    }

    /// `maps`; the area's latitudes and longitudes are checked here (the schema only knows numbers).
    private mutating func maps(_ node: Node) -> PipelineSpec.Maps {
        var maps = PipelineSpec.Maps(
            kinds: entry(node, .maps).map { $0.value.array().compactMap(YAMLValue.text) },
            size: integer(node, .svgSize), colourScale: entry(node, .colourScale).flatMap { YAMLValue.text($0.value) },
            minPoints: integer(node, .mapMinPoints))
        let areaKey = RunOptionDeclaration.mapArea.pipelineKey ?? ""
        if let area = entry(node, .mapArea)?.value, case .sequence(let items) = area {
            let values = items.compactMap(YAMLValue.number)
            if values.count == 4 && items.count == 4 {
                for (i, name) in ["minLat", "minLon", "maxLat", "maxLon"].enumerated() {
                    let limit = i % 2 == 0 ? 90.0 : 180.0
                    if abs(values[i]) > limit {
                        walker.report(items[i], path: "\(areaKey)[\(i)]", "\(name) must be within ±\(Int(limit))")
                    }
                }
                if values[0] >= values[2] { walker.report(area, path: areaKey, "minLat must be below maxLat") }
                if values[1] >= values[3] { walker.report(area, path: areaKey, "minLon must be below maxLon") }
            }
            maps.area = values
        }
        return maps
    }

    // MARK: reading nodes

    /// The key and value of `key` in a mapping; nil when absent or given no value.
    func entry(_ mapping: Node?, _ key: String) -> (key: Node, value: Node)? {
        guard let mapping, case .mapping(let pairs) = mapping else { return nil }
        guard let pair = pairs.first(where: { $0.key.scalar?.string == key }), !YAMLValue.isNull(pair.value) else { return nil }
        return (pair.key, pair.value)
    }

    /// The key and value of a run setting's key in a mapping (`RunOptionDeclaration.pipeline`).
    func entry(_ mapping: Node?, _ setting: RunOptionDeclaration) -> (key: Node, value: Node)? {
        setting.pipelineName.flatMap { entry(mapping, $0) }
    }

    private func bool(_ mapping: Node, _ setting: RunOptionDeclaration) -> Bool? {
        entry(mapping, setting).flatMap { YAMLValue.bool($0.value) }
    }

    private func integer(_ mapping: Node, _ key: String) -> Int? { entry(mapping, key).flatMap { YAMLValue.integer($0.value) } }

    private func integer(_ mapping: Node, _ setting: RunOptionDeclaration) -> Int? {
        entry(mapping, setting).flatMap { YAMLValue.integer($0.value) }
    }

    /// A path setting made absolute; reports the `~user/…` form.
    mutating func path(_ node: Node, at keyPath: String) -> String? {
        guard let text = YAMLValue.text(node), !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        guard let resolved = PipelinePaths.resolve(text, home: home, folder: folder) else {
            walker.report(node, path: keyPath, "~user paths are not supported: write ~/… or the full path")
            return nil
        }
        return resolved
    }
}
