import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailKit

/// Route files no workout names are exported under ids of their own, even when they start in
/// the same second: each keeps its own rows, GeoJSON feature and map.
@Suite struct OrphanRouteTests {
    @Test func orphansStartingInTheSameSecondKeepDistinctIDs() throws {
        let dir = Support.temporaryDirectory()
        let zip = dir + "/export.zip"
        let start: Int64 = 1_704_100_000
        try Support.makeZip(
            zip,
            [
                ("apple_health_export/export.xml", Support.exportXML("")),
                ("apple_health_export/workout-routes/route_a.gpx", Support.gpx(start: start, count: 30)),
                ("apple_health_export/workout-routes/route_b.gpx", Support.gpx(start: start, count: 40)),
                ("apple_health_export/workout-routes/route_c.gpx", Support.gpx(start: start, count: 50)),
            ])
        let out = dir + "/out"
        let run = try Support.runCLI(["run", zip, "--out", out, "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")

        let stamp = Timestamp(utcSeconds: start).utcString.filter { $0 != "-" && $0 != ":" }
        let expected = ["route-\(stamp)", "route-\(stamp)-2", "route-\(stamp)-3"]
        // Rows per id, read back from route_points.csv: each file's own point count.
        let rows = try String(contentsOfFile: out + "/route_points.csv", encoding: .utf8).split(separator: "\n").dropFirst()
        var counts: [String: Int] = [:]
        for row in rows { counts[String(row.prefix { $0 != "," }), default: 0] += 1 }
        #expect(counts == [expected[0]: 30, expected[1]: 40, expected[2]: 50])
        let maps = try FileManager.default.contentsOfDirectory(atPath: out + "/svg/workouts")
        #expect(maps.count == 3, "\(maps)")
        let manifest = try CohortRunTests.json(out + "/manifest.json")
        #expect(
            (manifest["routes"] as? [String: Any])?["orphans"] as? [String] == [
                "workout-routes/route_a.gpx", "workout-routes/route_b.gpx", "workout-routes/route_c.gpx",
            ])
    }
}
