import Foundation
import Testing

/// `routes.geojson` checked by `geojson_check.py` beside this file (Python's `json` plus the
/// RFC 7946 rules, and the PyPI `geojson` package when installed): a reader independent of the
/// writer, shared by every layer's tests that write routes.
package enum GeoJSONCheck {
    package static let checker = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("geojson_check.py").path

    /// Runs the independent validator; returns its exit status and output.
    package static func check(_ path: String, times: Bool = false) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", checker, path] + (times ? ["--times"] : [])
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let output = String(decoding: data, as: UTF8.self)
        print("geojson_check.py \(URL(fileURLWithPath: path).lastPathComponent): \(output)", terminator: "")
        return (process.terminationStatus, output)
    }

    /// Asserts the validator accepts the file and returns its features, parsed.
    package static func validFeatures(
        _ path: String, times: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [[String: Any]] {
        let (status, output) = try check(path, times: times)
        #expect(status == 0, "geojson_check.py: \(output)", sourceLocation: sourceLocation)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let doc = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(doc["type"] as? String == "FeatureCollection")
        #expect(doc["crs"] == nil)
        return try #require(doc["features"] as? [[String: Any]])
    }
}
