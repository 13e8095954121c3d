import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailWrite

/// `routes.geojson`: every file is checked by `geojson_check.py` (Python's `json` plus the RFC 7946
/// rules, and the PyPI `geojson` package when installed), then values by JSONSerialization.
@Suite struct GeoJSONWriterTests {
    // MARK: Helpers

    static func write(_ routes: [RouteFeature], to path: String, includeTimes: Bool = false) throws {
        let writer = try GeoJSONWriter(path: path, includeTimes: includeTimes)
        for r in routes { writer.add(r) }
        try writer.close()
    }

    static let t0: Int64 = 1_704_209_482   // 2024-01-02T15:31:22Z

    /// A run through Paris: `n` points going east, one a second, with heart rate.
    static func paris(
        _ id: String = "20240102T153122Z-running", activity: String = "running", n: Int = 5,
        routeFile: String? = "workout-routes/route_2024-01-02_3.31pm.gpx"
    ) -> RouteFeature {
        let points = (0..<n).map { i in
            RoutePoint(
                time: t0 + Int64(i), latitude: 48.85, longitude: 2.35 + Double(i) * 0.0001,
                elevation: i == 1 ? nil : 35.25, bpm: 140)
        }
        return RouteFeature(
            workoutID: id, activity: activity, routeFile: routeFile, start: t0,
            end: t0 + Int64(n), distanceMeters: 1234.56, durationSeconds: 1800.04,
            averageBPM: nil, points: points, segments: [], zoneNames: [])
    }

    static func kinds(_ features: [[String: Any]]) -> [String] {
        features.map { ($0["properties"] as? [String: Any])?["kind"] as? String ?? "?" }
    }

    static func props(_ f: [String: Any]) -> [String: Any] { f["properties"] as? [String: Any] ?? [:] }
    static func geometry(_ f: [String: Any]) -> [String: Any] { f["geometry"] as? [String: Any] ?? [:] }
    static func coordinates(_ f: [String: Any]) -> [[Double]] {
        (geometry(f)["coordinates"] as? [[NSNumber]] ?? []).map { $0.map(\.doubleValue) }
    }

    // MARK: Tests

    /// A route cut by a pause (points 0–3, then 4–8): two lines, none across the pause; a
    /// stretch of one point has no line of its own. With times, one LineString for kepler.gl.
    @Test func aPausedRouteIsAMultiLineString() throws {
        let dir = Support.temporaryDirectory()
        var route = Self.paris(n: 10)
        route.stretches = [0...3, 4...8, 9...9]
        try Self.write([route], to: dir + "/plain.geojson")
        let features = try GeoJSONCheck.validFeatures(dir + "/plain.geojson")
        let geometry = Self.geometry(features[0])
        #expect(geometry["type"] as? String == "MultiLineString")
        let lines = (geometry["coordinates"] as? [[[NSNumber]]] ?? []).map { $0.map { $0.map(\.doubleValue) } }
        let longitudes = route.points.map { ($0.longitude * 1e6).rounded() / 1e6 }
        #expect(lines.map { $0.map { $0[0] } } == [Array(longitudes[0...3]), Array(longitudes[4...8])])
        try Self.write([route], to: dir + "/times.geojson", includeTimes: true)
        let timed = try GeoJSONCheck.validFeatures(dir + "/times.geojson", times: true)
        #expect(Self.geometry(timed[0])["type"] as? String == "LineString")
        #expect(Self.coordinates(timed[0]).count == 10)
        // One stretch with a line left: a LineString of it alone.
        route.stretches = [0...0, 1...9]
        try Self.write([route], to: dir + "/one.geojson")
        let one = try GeoJSONCheck.validFeatures(dir + "/one.geojson")
        #expect(Self.geometry(one[0])["type"] as? String == "LineString")
        #expect(Self.coordinates(one[0]).count == 9)
    }

    @Test func routeLineStringInLonLatOrderWithProperties() throws {
        let dir = Support.temporaryDirectory()
        let path = dir + "/routes.geojson"
        try Self.write([Self.paris()], to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        // lat 48.85, lon 2.35 is [2.35,48.85]: longitude first (RFC 7946 §3.1.1), zeros trimmed.
        #expect(text.contains("[[2.35,48.85],[2.3501,48.85],"))
        #expect(!text.contains("crs"))

        let features = try GeoJSONCheck.validFeatures(path)
        #expect(Self.kinds(features) == ["route", "start", "end"])
        let route = Self.props(features[0])
        #expect(Self.geometry(features[0])["type"] as? String == "LineString")
        #expect(Self.coordinates(features[0]).count == 5)
        #expect(Self.coordinates(features[0]).allSatisfy { $0.count == 2 })
        #expect(route["workout_id"] as? String == "20240102T153122Z-running")
        #expect(route["activity"] as? String == "running")
        #expect(route["route_file"] as? String == "workout-routes/route_2024-01-02_3.31pm.gpx")
        #expect(route["start_utc"] as? String == "2024-01-02T15:31:22Z")
        #expect(route["end_utc"] as? String == "2024-01-02T15:31:27Z")
        #expect(route["distance_m"] as? Double == 1234.6)
        #expect(route["duration_s"] as? Double == 1800)
        #expect(route["avg_hr"] is NSNull)
        #expect(route["colour"] as? String == "#c62828")
        #expect(route["stroke"] as? String == "#c62828")

        let start = Self.props(features[1]), end = Self.props(features[2])
        #expect(Self.geometry(features[1])["type"] as? String == "Point")
        #expect(Self.geometry(features[1])["coordinates"] as? [Double] == [2.35, 48.85])
        #expect(Self.geometry(features[2])["coordinates"] as? [Double] == [2.3504, 48.85])
        #expect(start["time_utc"] as? String == "2024-01-02T15:31:22Z")
        #expect(end["time_utc"] as? String == "2024-01-02T15:31:26Z")
        #expect(start["marker-color"] as? String == GeoJSONWriter.startColour)
        #expect(end["workout_id"] as? String == "20240102T153122Z-running")
    }

    @Test func coordinatesRoundedToSixDecimals() throws {
        let path = Support.temporaryDirectory() + "/routes.geojson"
        var route = Self.paris(n: 2)
        route.points[0].longitude = -122.41941550000001
        route.points[0].latitude = 37.774929499
        route.points[1].longitude = 179.9999999
        route.points[1].latitude = -89.00000004
        route.averageBPM = 151.26
        try Self.write([route], to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("[[-122.419416,37.774929],[180,-89]]"))
        let features = try GeoJSONCheck.validFeatures(path)
        #expect(Self.props(features[0])["avg_hr"] as? Double == 151.3)
    }

    @Test func segmentsCarryZoneAndStyle() throws {
        let path = Support.temporaryDirectory() + "/routes.geojson"
        var route = Self.paris(n: 7)
        route.zoneNames = ["Z1 easy", "Z2 aerobic", "Z3 tempo"]
        route.segments = [
            RouteSegment(first: 0, last: 3, meanBPM: 131.04, zone: 1, colour: "#43a047", opacity: 0.456),
            RouteSegment(first: 3, last: 6, meanBPM: nil, zone: nil, colour: "#9e9e9e", opacity: 1),
            RouteSegment(first: 6, last: 6, meanBPM: 150, zone: 7, colour: "#ff0000", opacity: 1),   // one point: no line
        ]
        try Self.write([route], to: path)
        let features = try GeoJSONCheck.validFeatures(path)
        #expect(Self.kinds(features) == ["route", "segment", "segment", "start", "end"])
        let s0 = Self.props(features[1]), s1 = Self.props(features[2])
        #expect(s0["segment"] as? Int == 0)
        #expect(s0["zone"] as? String == "Z2 aerobic")
        #expect(s0["mean_bpm"] as? Double == 131)
        #expect(s0["colour"] as? String == "#43a047")
        #expect(s0["stroke"] as? String == "#43a047")
        #expect(s0["opacity"] as? Double == 0.46)
        #expect(s0["stroke-opacity"] as? Double == 0.46)
        #expect(s0["stroke-width"] as? Int == 4)
        #expect(s0["workout_id"] as? String == route.workoutID)
        #expect(Self.coordinates(features[1]).count == 4)
        #expect(Self.coordinates(features[2]).first == Self.coordinates(features[1]).last)
        #expect(s1["segment"] as? Int == 1)
        #expect(s1["zone"] is NSNull)
        #expect(s1["mean_bpm"] is NSNull)
        #expect(s1["opacity"] as? Double == 1)
    }

    @Test func stringsAreEscaped() throws {
        let path = Support.temporaryDirectory() + "/routes.geojson"
        let file = "workout-routes/\"Bois de Boulogne\" café 跑步\\tour\n\t\u{01}.gpx"
        var route = Self.paris(routeFile: file)
        route.workoutID = "20240102T153122Z-running-2"
        try Self.write([route, Self.paris("20240103T000000Z-walking", activity: "walking", routeFile: nil)], to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(#"\"Bois de Boulogne\" café 跑步\\tour\n\t\u0001.gpx"#))
        let features = try GeoJSONCheck.validFeatures(path)
        #expect(Self.props(features[0])["route_file"] as? String == file)
        let walk = features.first { Self.props($0)["workout_id"] as? String == "20240103T000000Z-walking" }
        #expect(walk.map { Self.props($0)["route_file"] is NSNull } == true)
        #expect(walk.map { Self.props($0)["colour"] as? String } == "#2e7d32")
    }

    @Test func includeTimesWritesKeplerTripPositions() throws {
        let path = Support.temporaryDirectory() + "/routes.geojson"
        var route = Self.paris(n: 4)
        route.segments = [RouteSegment(first: 0, last: 3, meanBPM: 140, zone: 0, colour: "#43a047", opacity: 0.5)]
        route.zoneNames = ["Z1"]
        try Self.write([route], to: path, includeTimes: true)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        // [lon, lat, elevation (0 where the point has none), unix seconds].
        #expect(text.contains("[[2.35,48.85,35.3,1704209482],[2.3501,48.85,0,1704209483],"))
        let features = try GeoJSONCheck.validFeatures(path, times: true)
        #expect(Self.kinds(features) == ["route", "segment", "start", "end"])
        for f in features.prefix(2) {
            let c = Self.coordinates(f)
            #expect(c.count == 4)
            #expect(c.map { Int64($0[3]) } == (0..<4).map { Self.t0 + $0 })
        }
        #expect(Self.geometry(features[2])["coordinates"] as? [Double] == [2.35, 48.85, 35.3, Double(Self.t0)])
        // The plain validator rejects 4-element positions: the two formats are told apart.
        #expect(try GeoJSONCheck.check(path).status != 0)
    }

    @Test func partAppendedInOrder() throws {
        let dir = Support.temporaryDirectory()
        let path = dir + "/routes.geojson", partPath = dir + "/routes.part1", emptyPath = dir + "/routes.part2"
        let main = try GeoJSONWriter(path: path, includeTimes: false)
        let part = try GeoJSONWriter(path: partPath, includeTimes: false, part: true)
        let empty = try GeoJSONWriter(path: emptyPath, includeTimes: false, part: true)
        main.add(Self.paris("a-running"))
        part.add(Self.paris("b-cycling", activity: "cycling"))
        part.add(Self.paris("c-hiking", activity: "hiking", n: 1))
        part.add(Self.paris("d-swimming", activity: "swimming"))
        #expect(part.features == 7)
        try main.append(featuresOf: empty)
        try main.append(featuresOf: part)
        main.add(Self.paris("e-yoga", activity: "yoga"))
        try main.close()
        #expect(main.features == 13)
        #expect(main.routes == 5)
        #expect(!FileManager.default.fileExists(atPath: partPath))
        #expect(!FileManager.default.fileExists(atPath: emptyPath))

        let features = try GeoJSONCheck.validFeatures(path)
        #expect(features.count == 13)
        let ids = features.map { Self.props($0)["workout_id"] as? String ?? "?" }
        #expect(
            ids == [
                "a-running", "a-running", "a-running", "b-cycling", "b-cycling", "b-cycling",
                "c-hiking", "d-swimming", "d-swimming", "d-swimming", "e-yoga", "e-yoga", "e-yoga",
            ])
        #expect(Self.props(features[3])["colour"] as? String == "#1565c0")
        #expect(Self.props(features[6])["colour"] as? String == "#6d4c41")
        #expect(Self.props(features[7])["colour"] as? String == "#00796b")
    }

    @Test func partAppendedToEmptyFile() throws {
        let dir = Support.temporaryDirectory()
        let path = dir + "/routes.geojson"
        let main = try GeoJSONWriter(path: path, includeTimes: true)
        let part = try GeoJSONWriter(path: dir + "/part", includeTimes: true, part: true)
        part.add(Self.paris())
        try main.append(featuresOf: part)
        try main.close()
        #expect(try GeoJSONCheck.validFeatures(path, times: true).count == 3)
    }

    @Test func onePointRouteIsAPoint() throws {
        let path = Support.temporaryDirectory() + "/routes.geojson"
        var route = Self.paris(n: 1)
        route.segments = [RouteSegment(first: 0, last: 0, meanBPM: 140, zone: 0, colour: "#43a047", opacity: 0.5)]
        let none = Self.paris("nothing", n: 0)
        var unusable = Self.paris("unusable", n: 3)
        unusable.points[0].latitude = .nan
        unusable.points[1].longitude = 200
        unusable.points[2].latitude = -91
        let writer = try GeoJSONWriter(path: path, includeTimes: false)
        for r in [none, route, unusable] { writer.add(r) }
        try writer.close()
        #expect(writer.routes == 1)
        let features = try GeoJSONCheck.validFeatures(path)
        #expect(features.count == 1)
        #expect(Self.geometry(features[0])["type"] as? String == "Point")
        #expect(Self.geometry(features[0])["coordinates"] as? [Double] == [2.35, 48.85])
        let p = Self.props(features[0])
        #expect(p["kind"] as? String == "route")
        #expect(p["time_utc"] as? String == "2024-01-02T15:31:22Z")
        #expect(p["distance_m"] as? Double == 1234.6)
    }

    @Test func unusablePointsLeftOut() throws {
        let path = Support.temporaryDirectory() + "/routes.geojson"
        var route = Self.paris(n: 5)
        route.points[0].latitude = .nan
        route.points[2].longitude = -180.5
        route.segments = [
            RouteSegment(first: 0, last: 2, meanBPM: nil, zone: nil, colour: "#9e9e9e", opacity: 1),
            RouteSegment(first: 2, last: 4, meanBPM: nil, zone: nil, colour: "#9e9e9e", opacity: 1),
        ]
        try Self.write([route], to: path)
        let features = try GeoJSONCheck.validFeatures(path)
        // Segment 0 keeps one usable point (index 1): no line.
        #expect(Self.kinds(features) == ["route", "segment", "start", "end"])
        #expect(Self.coordinates(features[0]).count == 3)
        #expect(Self.props(features[1])["segment"] as? Int == 1)
        #expect(Self.geometry(features[2])["coordinates"] as? [Double] == [2.3501, 48.85])
        #expect(Self.props(features[2])["time_utc"] as? String == "2024-01-02T15:31:23Z")
    }

    @Test func emptyCollectionIsValid() throws {
        let path = Support.temporaryDirectory() + "/routes.geojson"
        try Self.write([], to: path)
        #expect(try GeoJSONCheck.validFeatures(path).isEmpty)
    }

    @Test func sameInputSameBytes() throws {
        let dir = Support.temporaryDirectory()
        var routes = [Self.paris(), Self.paris("x-paddle_sports", activity: "paddle_sports", n: 3)]
        routes[0].segments = [RouteSegment(first: 0, last: 4, meanBPM: 140, zone: 0, colour: "#43a047", opacity: 0.7)]
        routes[0].zoneNames = ["Z1"]
        for times in [false, true] {
            try Self.write(routes, to: dir + "/a.geojson", includeTimes: times)
            try Self.write(routes, to: dir + "/b.geojson", includeTimes: times)
            let a = try Data(contentsOf: URL(fileURLWithPath: dir + "/a.geojson"))
            let b = try Data(contentsOf: URL(fileURLWithPath: dir + "/b.geojson"))
            #expect(!a.isEmpty && a == b)
        }
    }

    @Test func fileIsOwnerOnly() throws {
        let dir = Support.temporaryDirectory()
        for (name, part) in [("routes.geojson", false), ("routes.part", true)] {
            let writer = try GeoJSONWriter(path: dir + "/" + name, includeTimes: false, part: part)
            writer.add(Self.paris())
            try writer.close()
            var st = stat()
            #expect(stat(dir + "/" + name, &st) == 0)
            #expect(st.st_mode & 0o777 == 0o600)
        }
    }

    /// The validator is the test's eyes: it must reject what RFC 7946 forbids.
    @Test func checkerRejectsInvalidFiles() throws {
        let dir = Support.temporaryDirectory()
        func feature(_ kind: String, _ geometry: String) -> String {
            #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"kind":"\#(kind)","workout_id":"a"},"geometry":\#(geometry)}]}"#
        }
        let bad = [
            #"{"type":"FeatureCollection","crs":{"type":"name"},"features":[]}"#,
            feature("route", #"{"type":"LineString","coordinates":[[2.35,48.85]]}"#),
            feature("start", #"{"type":"Point","coordinates":[48.85,200.35]}"#),   // lat/lon swapped
            feature("start", #"{"type":"Point","coordinates":[2.3512345,48.85]}"#),
            feature("start", #"{"type":"Point","coordinates":[NaN,48.85]}"#),
            feature("end", #"{"type":"LineString","coordinates":[[2,48],[2,49]]}"#),
            #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"kind":"start","workout_id":"a"}}]}"#,
        ]
        for (i, text) in bad.enumerated() {
            let path = dir + "/bad\(i).geojson"
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            #expect(try GeoJSONCheck.check(path).status == 1, "accepted: \(text)")
        }
    }

    @Test func activityColours() {
        #expect(GeoJSONWriter.colour(forActivity: "walking") == "#2e7d32")
        #expect(GeoJSONWriter.colour(forActivity: "running") == "#c62828")
        #expect(GeoJSONWriter.colour(forActivity: "cycling") == "#1565c0")
        #expect(GeoJSONWriter.colour(forActivity: "hiking") == "#6d4c41")
        #expect(GeoJSONWriter.colour(forActivity: "swimming") == "#00796b")
        let fixed: Set = ["#2e7d32", "#c62828", "#1565c0", "#6d4c41", "#00796b"]
        let others = [
            "downhill_skiing", "paddle_sports", "wheelchair_walk_pace", "other", "yoga", "rowing",
            "cross_country_skiing", "snowboarding", "skating_sports", "golf",
        ]
        var used = Set<String>()
        for a in others {
            let c = GeoJSONWriter.colour(forActivity: a)
            #expect(GeoJSONWriter.otherColours.contains(c) && !fixed.contains(c))
            #expect(GeoJSONWriter.colour(forActivity: a) == c)
            used.insert(c)
        }
        #expect(used.count >= 4)   // the hash spreads names over the palette
        // FNV-1a of "yoga", fixed for every run and platform.
        #expect(GeoJSONWriter.colour(forActivity: "yoga") == GeoJSONWriter.otherColours[Int(Self.fnv1a("yoga") % 8)])
    }

    static func fnv1a(_ s: String) -> UInt32 {
        var h: UInt32 = 2_166_136_261
        for b in s.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
        return h
    }
}
