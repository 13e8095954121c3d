import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailSynth

/// The README's "Open it in…" examples, run as they are written: `HOME` is a temporary folder
/// whose `Downloads/export.zip` is a generated archive, the command line makes `~/health`, and
/// each example's output is checked against the files it reads.
@Suite struct ReadmeOpenItInTests {
    /// The fenced blocks of the README's "Open it in…" section: (language, code).
    static func examples() throws -> [(language: String, code: String)] {
        let readme = try String(contentsOfFile: Support.packageRoot.appendingPathComponent("README.md").path, encoding: .utf8)
        let start = try #require(readme.range(of: "\n## Open it in…\n"))
        let section = readme[start.upperBound...].prefix { _ in true }
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        var blocks: [(String, String)] = []
        var rest = section[..<end]
        while let open = rest.range(of: "```") {
            let afterOpen = rest[open.upperBound...]
            let lineEnd = try #require(afterOpen.firstIndex(of: "\n"))
            let language = String(afterOpen[..<lineEnd])
            let close = try #require(afterOpen.range(of: "\n```"))
            blocks.append((language, String(afterOpen[afterOpen.index(after: lineEnd)..<close.lowerBound])))
            rest = afterOpen[close.upperBound...]
        }
        return blocks
    }

    static let pythonReaders: Bool = {
        (try? Support.runProgram("/usr/bin/env", ["python3", "-c", "import duckdb, pandas, pyogrio"]).status) == 0
    }()

    @Test(.enabled(if: pythonReaders, "python3 cannot import duckdb, pandas and pyogrio (PyPI unreachable when make test installed them)"))
    func everyExampleRunsOnARealOutputFolder() throws {
        let home = Support.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: home + "/Downloads", withIntermediateDirectories: true)
        _ = try ExportSynthesizer.write(to: home + "/Downloads/export.zip", options: SynthOptions(days: 15, seed: 8))
        var environment = Support.isolatedEnvironment()
        environment["HOME"] = home
        environment["PATH"] = (Support.binary as NSString).deletingLastPathComponent + ":" + (environment["PATH"] ?? "/usr/bin:/bin")

        let blocks = try Self.examples()
        #expect(blocks.map(\.language) == ["", "python", "python", "sh", "python"], "\(blocks.map(\.language))")
        guard blocks.count == 5 else { return }
        let command = try Support.runProgram("/bin/sh", ["-c", blocks[0].code], environment: environment)
        #expect(command.status == 0, "\(command.stderr)")
        let out = home + "/health"

        // DuckDB: a row per workout with a route, as route_points.csv has them.
        let duck = try Support.runProgram("/usr/bin/env", ["python3", "-c", blocks[1].code], environment: environment)
        #expect(duck.status == 0, "\(duck.stderr)")
        let routeWorkouts = Set(try Support.readCSV(out + "/route_points.csv").rows.map { $0[0] })
        #expect(!routeWorkouts.isEmpty)
        for id in routeWorkouts.sorted().prefix(3) { #expect(duck.stdout.contains(id), "\(id) not in \(duck.stdout)") }

        // pandas: the last nights of sleep_nights.csv with their efficiency.
        let pandas = try Support.runProgram("/usr/bin/env", ["python3", "-c", blocks[2].code], environment: environment)
        #expect(pandas.status == 0, "\(pandas.stderr)")
        let nights = try Support.readCSV(out + "/sleep_nights.csv").rows
        let lastNight = try #require(nights.last?.first)
        #expect(pandas.stdout.contains("efficiency") && pandas.stdout.contains(lastNight), "\(pandas.stdout)")

        // sqlite3: one line per week with a run; the runs add up to workouts.csv's.
        let shell = try Support.runProgram("/bin/sh", ["-c", blocks[3].code], environment: environment)
        #expect(shell.status == 0, "\(shell.stderr)")
        let workouts = try Support.readCSV(out + "/workouts.csv")
        let runs = workouts.rows.filter { $0[1] == "running" }.count
        let counted = shell.stdout.split(separator: "\n").compactMap { Int($0.split(separator: "|")[1]) }.reduce(0, +)
        #expect(runs > 0 && counted == runs, "\(shell.stdout)")

        // GDAL (what QGIS reads GeoJSON with): every feature of routes.geojson, WGS84.
        let gdal = try Support.runProgram("/usr/bin/env", ["python3", "-c", blocks[4].code], environment: environment)
        #expect(gdal.status == 0, "\(gdal.stderr)")
        let features = try GeoJSONCheck.validFeatures(out + "/routes.geojson").count
        #expect(gdal.stdout.hasPrefix("\(features) features"), "\(gdal.stdout)")
        #expect(gdal.stdout.contains("EPSG:4326"), "\(gdal.stdout)")
    }
}
