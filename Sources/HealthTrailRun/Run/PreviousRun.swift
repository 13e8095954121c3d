import Foundation
import HealthTrailCommit

/// What the manifest of the outputs already in a folder says about the run that made them.
struct PreviousRun {
    var toolVersion: String
    var optionsSHA256: String
    var inputSHA256: String
    var inputSize: UInt64

    /// The files it wrote: the only ones the next run may replace or remove.
    var files: Set<String>

    init?(directory: String) {
        guard let data = FileManager.default.contents(atPath: directory + "/manifest.json"),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            json["tool"] as? String == "healthtrail",
            let version = json["tool_version"] as? String, let options = json["run_options_sha256"] as? String,
            let input = json["input"] as? [String: Any], let sha = input["sha256"] as? String,
            let size = (input["size_bytes"] as? NSNumber)?.uint64Value
        else { return nil }
        (toolVersion, optionsSHA256, inputSHA256, inputSize) = (version, options, sha, size)
        if let listed = json["files"] as? [String] {
            files = Set(listed.filter(OutputCommit.isSafeRelativePath))
        } else {
            // Written before manifests listed their files: its CSVs, the GeoJSON and the maps.
            let outputs = (json["outputs"] as? [String: Any]).map { Array($0.keys) } ?? []
            let maps = (try? FileManager.default.subpathsOfDirectory(atPath: directory + "/svg")) ?? []
            files = Set(
                (outputs + ["routes.geojson"] + maps.filter { $0.hasSuffix(".svg") }.map { "svg/" + $0 })
                    .filter(OutputCommit.isSafeRelativePath))
        }
        files.insert(OutputCommit.manifestName)
    }
}
