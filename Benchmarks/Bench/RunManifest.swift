import Foundation

/// What one `healthtrail run` says about itself in its manifest: how much it read and how long
/// each stage took. The report shows the archive's heart-rate count and the cost of the join.
struct RunManifest: Codable {
    /// Seconds per stage (`export_xml_s`, `join_s`, `routes_s`, …) as the run measured them.
    var timings: [String: Double]
    var heartRateSamples: Int
    var heartRateSamplesForJoin: Int
    var routeFiles: Int
    var routePoints: Int
    /// Bytes of the SVG maps (`density.svg`, `routes.svg`, all of `svg/`).
    var svgBytes: [String: Int] = [:]

    /// One stage's seconds from `<outDir>/manifest.json`, nil when it has none.
    static func timing(_ stage: String, outputDirectory: String) -> Double? {
        guard let data = FileManager.default.contents(atPath: outputDirectory + "/manifest.json"),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return (json["timings"] as? [String: Double])?[stage]
    }

    /// Reads `<outDir>/manifest.json`; nil if it is missing or not as expected.
    init?(outputDirectory: String) {
        guard let data = FileManager.default.contents(atPath: outputDirectory + "/manifest.json"),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let timings = json["timings"] as? [String: Double],
            let counts = json["counts"] as? [String: Any],
            let routes = json["routes"] as? [String: Any]
        else { return nil }
        self.timings = timings
        heartRateSamples = counts["heart_rate"] as? Int ?? 0
        heartRateSamplesForJoin = routes["heart_rate_samples_for_join"] as? Int ?? 0
        routeFiles = counts["route_files"] as? Int ?? 0
        routePoints = counts["route_points"] as? Int ?? 0
        let fm = FileManager.default
        func size(_ path: String) -> Int? { (try? fm.attributesOfItem(atPath: path)[.size] as? Int) ?? nil }
        for name in ["density.svg", "routes.svg"] { svgBytes[name] = size(outputDirectory + "/svg/" + name) }
        if let walker = fm.enumerator(atPath: outputDirectory + "/svg") {
            svgBytes["all"] = walker.compactMap { $0 as? String }.compactMap { size(outputDirectory + "/svg/" + $0) }.reduce(0, +)
        }
    }
}

/// Median seconds per stage over the rounds' manifests, in the order the stages run.
func medianStages(_ manifests: [RunManifest]) -> [(stage: String, seconds: Double)] {
    let names = Set(manifests.flatMap { $0.timings.keys })
    return (stageOrder.filter(names.contains) + names.subtracting(stageOrder).sorted()).compactMap { name in
        median(manifests.compactMap { $0.timings[name] }).map { (name, $0) }
    }
}
