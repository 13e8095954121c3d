import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailBase
@testable import HealthTrailCommit
@testable import HealthTrailDecode
@testable import HealthTrailRun
@testable import HealthTrailWrite

/// A route's drawn lines are bounded; its CSV rows and figures keep every point.
@Suite struct DrawnPointsTests {
    /// What thinning should keep, worked out directly: the smallest power-of-two stride s with
    /// n ≤ cap·s, the indices that are multiples of s, and the last index.
    static func expectedIndices(count n: Int, cap: Int) -> [Int] {
        var s = 1
        while n > cap * s { s *= 2 }
        var kept = Array(stride(from: 0, to: n, by: s))
        if let last = kept.last, last != n - 1 { kept.append(n - 1) }
        return kept
    }

    @Test(arguments: [0, 1, 2, 7, 8, 9, 16, 17, 31, 33, 100, 1000, 4097])
    func keepsEvenlySpacedPointsAndBothEnds(count: Int) {
        var drawn = DrawnPoints(cap: 8)
        for i in 0..<count { drawn.append(RoutePoint(time: Int64(i), latitude: 0, longitude: 0)) }
        let kept = drawn.finish().map { Int($0.time) }
        #expect(kept == Self.expectedIndices(count: count, cap: 8))
        #expect(kept.count <= 9)
        #expect(drawn.thinned == count - kept.count)
        // A new route starts from scratch.
        drawn.reset()
        for i in 0..<5 { drawn.append(RoutePoint(time: Int64(i), latitude: 0, longitude: 0)) }
        #expect(drawn.finish().map(\.time) == [0, 1, 2, 3, 4])
        #expect(drawn.thinned == 0)
    }

    @Test func halvingALineKeepsItsEnds() {
        let line = (0..<7).map { RoutePoint(time: Int64($0), latitude: 0, longitude: 0) }
        #expect(DrawnPoints.halvedKeepingEnds(line).map(\.time) == [0, 2, 4, 6])
        #expect(DrawnPoints.halvedKeepingEnds(Array(line.prefix(6))).map(\.time) == [0, 2, 4, 5])
        #expect(DrawnPoints.halvedKeepingEnds(Array(line.prefix(2))).map(\.time) == [0, 1])
    }

    /// Pieces of a workout waiting for its other route files share one cap: they are halved
    /// until they fit, and what is dropped is counted; the workout is drawn once all are read.
    @Test func pendingPiecesOfAWorkoutMapShareTheCap() throws {
        let staging = try OutputStaging(outputDirectory: Support.temporaryDirectory() + "/out")
        defer { staging.discard() }
        func processor(files: Int) -> RouteProcessor {
            RouteProcessor(
                join: nil, zones: .fourBands, csv: nil, geojson: nil,
                maps: MapContext(
                    spillFolder: staging.stagingDirectory, drawWorkouts: true,
                    drawWorkout: { route in
                        try MapOutputs.writeWorkout(route, zones: .fourBands, options: SVGOptions(), staging: staging)
                    },
                    filesPerWorkout: ["w": files], offsets: [:]),
                drawnPointCap: 8)
        }
        func feed(_ p: RouteProcessor, from start: Int) throws {
            p.begin(workoutID: "w", activity: "running", routeFile: nil)
            for i in 0..<10 {
                p.add(
                    RoutePoint(time: Int64(start + i), latitude: 48 + Double(i) * 1e-4, longitude: 2),
                    hAcc: nil, course: nil, vAcc: nil)
            }
            try p.end()
        }
        // Three files, two read here: the pieces stay pending. Each route of 10 points keeps 6
        // (stride 2, and its last); together 12 > 8, so both are halved to 4.
        let waiting = processor(files: 3)
        try feed(waiting, from: 0)
        try feed(waiting, from: 100)
        let pieces = try #require(waiting.pendingMaps["w"])
        #expect(pieces.map(\.points.count) == [4, 4])
        #expect(pieces.map { $0.points.map(\.time) } == [[0, 4, 8, 9], [100, 104, 108, 109]])
        #expect(waiting.thinnedPoints == 20 - 8)
        #expect(!FileManager.default.fileExists(atPath: try staging.path("svg/workouts/w.svg")))

        // Two files, both read here: drawn at once, nothing pending.
        let complete = processor(files: 2)
        try feed(complete, from: 0)
        try feed(complete, from: 100)
        #expect(complete.pendingMaps.isEmpty)
        #expect(complete.thinnedPoints == 8)
        #expect(FileManager.default.fileExists(atPath: try staging.path("svg/workouts/w.svg")))
    }

    /// A whole run with a route over the cap: every point in `route_points.csv` and in the
    /// distance, the GeoJSON line thinned as `expectedIndices` says, the thinned count in the
    /// manifest.
    @Test func aRouteOverTheCapIsDrawnThinnedAndMeasuredWhole() throws {
        let dir = Support.temporaryDirectory()
        let count = DrawnPoints.defaultCap + 20_000
        // A zigzag: every other point 0.0001° east, so a thinned line would be shorter.
        var gpx = "<gpx><trk><trkseg>\n"
        gpx.reserveCapacity(count * 110)
        var latitudes: [Double] = [], longitudes: [Double] = []
        let start = 1_717_236_000   // 2024-06-01 10:00:00 UTC
        for i in 0..<count {
            let lat = 48.0 + Double(i) * 1e-5, lon = 2.0 + (i % 2 == 0 ? 0 : 1e-4)
            latitudes.append(lat); longitudes.append(lon)
            let t = Timestamp(utcSeconds: Int64(start + i)).utcString
            gpx += "<trkpt lat=\"\(String(format: "%.6f", lat))\" lon=\"\(String(format: "%.6f", lon))\"><time>\(t)</time></trkpt>\n"
        }
        gpx += "</trkseg></trk></gpx>\n"
        let end = Timestamp(utcSeconds: Int64(start + count)).utcString
        let body = """
             <Workout workoutActivityType="HKWorkoutActivityTypeWalking" sourceName="W" startDate="2024-06-01 10:00:00 +0000" endDate="\(end.prefix(10)) \(end.dropFirst(11).prefix(8)) +0000">
              <WorkoutRoute sourceName="W" startDate="2024-06-01 10:00:00 +0000" endDate="2024-06-01 10:00:00 +0000">
               <FileReference path="/workout-routes/route_2024-06-01.gpx"/>
              </WorkoutRoute>
             </Workout>
            """
        try Support.makeZip(
            dir + "/export.zip",
            [
                ("apple_health_export/export.xml", Support.exportXML(body)),
                ("apple_health_export/workout-routes/route_2024-06-01.gpx", gpx),
            ])
        let manifest = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out"))

        let expected = Self.expectedIndices(count: count, cap: DrawnPoints.defaultCap)
        #expect(manifest.routes.thinnedPoints == count - expected.count)
        #expect(try String(contentsOfFile: dir + "/out/manifest.json", encoding: .utf8).contains("\"thinned_points\""))
        #expect(try Support.readCSV(dir + "/out/route_points.csv").rows.count == count)

        // The route's own line (the first feature) holds exactly the kept points.
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/out/routes.geojson")))
        let features = try #require((json as? [String: Any])?["features"] as? [[String: Any]])
        let line = try #require((features.first?["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])
        #expect(line.count == expected.count)
        #expect(zip(line, expected).allSatisfy { abs($0[1] - latitudes[$1]) < 1e-6 && abs($0[0] - longitudes[$1]) < 1e-6 })

        // The distance is the zigzag's, from every point (equirectangular steps: metre-scale
        // steps, far inside its accuracy).
        let radius = 6_371_008.8, radian = Double.pi / 180
        var zigzag = 0.0
        for i in 1..<count {
            let dy = (latitudes[i] - latitudes[i - 1]) * radian * radius
            let dx = (longitudes[i] - longitudes[i - 1]) * radian * radius * cos(latitudes[i] * radian)
            zigzag += (dx * dx + dy * dy).squareRoot()
        }
        let workouts = try Support.readCSV(dir + "/out/workouts.csv")
        let column = try #require(workouts.header.firstIndex(of: "route_distance_m"))
        let distance = try #require(Double(workouts.rows[0][column]))
        #expect(abs(distance - zigzag) < zigzag * 1e-3)
    }
}
