import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailRun

/// Heart rate joined to GPS points, against a heart rate that is a known function of time.
@Suite struct HeartRateJoinTests {
    /// 2024-06-01T08:00:00Z.
    static let t0: Int64 = Timestamp.daysFromCivil(year: 2024, month: 6, day: 1) * 86_400 + 8 * 3600

    /// The true heart rate: 120 ± 40 bpm over a 10-minute cycle, so it crosses several zones.
    static func pulse(_ t: Int64) -> Double { 130 + 40 * sin(2 * .pi * Double(t - t0) / 600) }

    /// Samples every 5 s over an hour, except a 90-second hole 30 minutes in.
    static let hole = (t0 + 1800)..<(t0 + 1890)
    static let sampleTimes = stride(from: t0, through: t0 + 3600, by: 5).filter { !hole.contains($0) }

    /// What the join must answer at `t`: the function (within 1 bpm) where samples on both sides
    /// lie within tolerance, the nearer sample's own value where only one does, else nothing.
    static func expected(at t: Int64, tolerance: Int64 = 15) -> (interpolated: Bool, value: Double?) {
        let before = sampleTimes.last { $0 <= t }, after = sampleTimes.first { $0 >= t }
        let nearBefore = before.map { t - $0 <= tolerance } ?? false
        let nearAfter = after.map { $0 - t <= tolerance } ?? false
        if nearBefore && nearAfter { return (true, pulse(t)) }
        if nearBefore { return (false, Double(Float(pulse(before!)))) }
        if nearAfter { return (false, Double(Float(pulse(after!)))) }
        return (false, nil)
    }

    @Test func interpolatesBetweenSamplesWithinTolerance() {
        let join = HeartRateJoin(samples: Self.sampleTimes.map { ($0, Self.pulse($0)) }, tolerance: 15)
        var cursor = HeartRateJoin.Cursor(join)
        var interpolated = 0, nearest = 0, empty = 0
        for t in Self.t0...(Self.t0 + 3600) {
            let bpm = cursor.bpm(at: t)
            let (isInterpolated, value) = Self.expected(at: t)
            switch (value, bpm) {
            case (nil, nil): empty += 1
            case let (v?, b?) where isInterpolated:
                #expect(abs(b - v) < 1, "t+\(t - Self.t0)"); interpolated += 1
            case let (v?, b?):
                #expect(abs(b - v) < 0.001, "t+\(t - Self.t0)"); nearest += 1
            default:
                Issue.record("t+\(t - Self.t0): expected \(String(describing: value)), got \(String(describing: bpm))")
            }
        }
        // Samples at +1795 s and +1890 s around the hole: 94 points between them, the first and last 15
        // take the nearer sample, the middle 64 are beyond 15 s of both.
        #expect(empty == 64)
        #expect(nearest == 30)
        #expect(interpolated == 3601 - 94)
    }

    @Test func nearestSampleWhenOnlyOneSideIsWithinTolerance() {
        let join = HeartRateJoin(samples: [(100, 90), (200, 150)], tolerance: 15)
        var cursor = HeartRateJoin.Cursor(join)
        #expect(cursor.bpm(at: 90) == 90)   // only the later sample within 15 s
        #expect(cursor.bpm(at: 100) == 90)
        #expect(cursor.bpm(at: 110) == 90)   // 10 s after 100, 90 s before 200
        #expect(cursor.bpm(at: 150) == nil)
        #expect(cursor.bpm(at: 190) == 150)
        #expect(cursor.bpm(at: 216) == nil)
        #expect(cursor.bpm(at: 95) == 90)   // going back in time still works
    }

    /// Two readings at one second (a background 76 beside the workout's 149): the best-ranked
    /// source's value, or the mean of equal-ranked ones, whatever order they arrive in, whether
    /// sorted in memory or through run files.
    @Test(arguments: [nil, 2] as [Int?])
    func samplesAtOneSecondGiveOneValueWhateverTheirOrder(runLength: Int?) throws {
        let dir = Support.temporaryDirectory()
        let t: Int64 = Self.t0 + 60
        func join(_ samples: [(bpm: Double, source: Int)], sourceOrder: [UInt32]) throws -> Double? {
            let spill = try HeartRateSpill(path: dir + "/hr-\(UUID().uuidString).spill")
            defer { spill.remove() }
            // Neighbours 30 s away on both sides, same source, so the instant itself decides.
            spill.add(time: t - 30, bpm: 148, source: 0)
            for s in samples { spill.add(time: t, bpm: s.bpm, source: s.source) }
            spill.add(time: t + 30, bpm: 150, source: 0)
            try spill.close()
            let j = try HeartRateJoin(
                spill: spill, windows: [(t - 60, t + 60)], tolerance: 15, sourceOrder: sourceOrder,
                sortSpillPath: runLength.map { _ in dir + "/sort-\(UUID().uuidString).spill" },
                runLength: runLength ?? 1 << 16)
            #expect(j.sampleCount == 3)
            var cursor = HeartRateJoin.Cursor(j)
            return cursor.bpm(at: t)
        }
        // One source (index 0) wrote both: their mean.
        #expect(try join([(76, 0), (149, 0)], sourceOrder: [0, 1]) == 112.5)
        #expect(try join([(149, 0), (76, 0)], sourceOrder: [0, 1]) == 112.5)
        // Two sources, the Watch (index 1) ranked first: its reading, in either order.
        #expect(try join([(76, 0), (149, 1)], sourceOrder: [1, 0]) == 149)
        #expect(try join([(149, 1), (76, 0)], sourceOrder: [1, 0]) == 149)
        // Three readings, two of the best source: the mean of those two only.
        #expect(try join([(60, 2), (140, 1), (150, 1)], sourceOrder: [1, 0, 2]) == 145)
        #expect(try join([(150, 1), (60, 2), (140, 1)], sourceOrder: [1, 0, 2]) == 145)
    }

    @Test func samplesGivenDirectlyAtOneSecondAreAveraged() {
        for samples in [[(Int64(100), 76.0), (100, 149)], [(100, 149), (100, 76)]] {
            let join = HeartRateJoin(samples: samples, tolerance: 15)
            var cursor = HeartRateJoin.Cursor(join)
            #expect(join.sampleCount == 1)
            #expect(cursor.bpm(at: 100) == 112.5)
            #expect(cursor.bpm(at: 105) == 112.5)
        }
    }

    /// Through a whole run: a Watch background reading (76) and its workout reading (149) at the
    /// same second, and an iPhone reading (60) at another second beside a Watch one (150).
    @Test func aRouteThroughSamplesAtOneSecondShowsNoFalseDip() throws {
        let dir = Support.temporaryDirectory()
        let watch = "Alex’s Apple Watch", phone = "Alex’s iPhone"
        func record(_ source: String, _ time: String, _ bpm: String) -> String {
            " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"\(source)\" unit=\"count/min\" startDate=\"2024-06-01 10:\(time) +0200\" endDate=\"2024-06-01 10:\(time) +0200\" value=\"\(bpm)\"/>\n"
        }
        var body = record(watch, "00:00", "150") + record(watch, "00:10", "76") + record(watch, "00:10", "149")
        body += record(phone, "00:20", "60") + record(watch, "00:20", "150") + record(watch, "00:30", "150")
        body += """
             <Workout workoutActivityType="HKWorkoutActivityTypeCycling" sourceName="\(watch)" startDate="2024-06-01 10:00:00 +0200" endDate="2024-06-01 10:00:30 +0200">
              <WorkoutRoute sourceName="\(watch)" startDate="2024-06-01 10:00:00 +0200" endDate="2024-06-01 10:00:30 +0200">
               <FileReference path="/workout-routes/route.gpx"/>
              </WorkoutRoute>
             </Workout>

            """
        var gpx = "<gpx><trk><trkseg>\n"
        for s in [0, 10, 20, 30] {
            gpx += "<trkpt lat=\"48.85\" lon=\"\(2.35 + Double(s) * 0.0001)\"><time>2024-06-01T08:00:\(s == 0 ? "00" : String(s))Z</time></trkpt>\n"
        }
        gpx += "</trkseg></trk></gpx>\n"
        try Support.makeZip(
            dir + "/export.zip",
            [
                ("apple_health_export/export.xml", Support.exportXML(body)),
                ("apple_health_export/workout-routes/route.gpx", gpx),
            ])
        _ = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out"))
        let csv = try Support.readCSV(dir + "/out/route_points.csv")
        let column = try #require(csv.header.firstIndex(of: "hr_bpm"))
        #expect(csv.rows.map { $0[column] } == ["150", "112.5", "150", "150"])
    }

    /// The whole pipeline: an export whose heart rate follows `pulse`, a workout and its GPX.
    @Test func routePointsCarryTheHeartRateOfTheirMoment() throws {
        let dir = Support.temporaryDirectory()
        func date(_ t: Int64) -> String {
            let local = Timestamp(utcSeconds: t, offsetMinutes: 120)
            return String(local.utcString.prefix(10)) + " " + Self.clock(local.localSeconds) + " +0200"
        }
        var body = ""
        for t in Self.sampleTimes {
            body +=
                " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Alex’s Apple Watch\" unit=\"count/min\" startDate=\"\(date(t))\" endDate=\"\(date(t))\" value=\"\(String(format: "%.3f", Self.pulse(t)))\"/>\n"
        }
        body += """
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="Alex’s Apple Watch" startDate="\(date(Self.t0))" endDate="\(date(Self.t0 + 3600))">
              <WorkoutRoute sourceName="Alex’s Apple Watch" startDate="\(date(Self.t0))" endDate="\(date(Self.t0 + 3600))">
               <FileReference path="/workout-routes/route_2024-06-01_11.00am.gpx"/>
              </WorkoutRoute>
             </Workout>

            """
        var gpx =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"Apple Health Export\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n"
        for t in Self.t0...(Self.t0 + 3600) {
            let k = Double(t - Self.t0)
            gpx +=
                "<trkpt lon=\"\(String(format: "%.6f", 2.35 + k * 0.00003))\" lat=\"48.850000\"><ele>35.0</ele><time>\(Timestamp(utcSeconds: t).utcString)</time><extensions><speed>2.2</speed></extensions></trkpt>\n"
        }
        gpx += "</trkseg></trk></gpx>\n"
        try Support.makeZip(
            dir + "/export.zip",
            [
                ("apple_health_export/export.xml", Support.exportXML(body)),
                ("apple_health_export/workout-routes/route_2024-06-01_11.00am.gpx", gpx),
            ])
        let manifest = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out"))
        let csv = try Support.readCSV(dir + "/out/route_points.csv")
        #expect(csv.header.suffix(4) == ["hr_bpm", "hr_zone", "distance_m", "state"])
        #expect(csv.rows.count == 3601)
        var empty = 0
        var previousDistance = -1.0
        // The workout has no heart-rate statistic, so the zones' maximum is the highest sample
        // inside it (the only workout: no second highest to take).
        let expectedMaximum = try #require(Self.sampleTimes.filter { $0 <= Self.t0 + 3600 }.map(Self.pulse).max())
        let zoneRows = try Support.readCSV(dir + "/out/heart_rate_zones.csv").rows
        let maximum = try #require(zoneRows.first.flatMap { Double($0[3]) })
        #expect(abs(maximum - expectedMaximum) <= 0.051 && manifest.routes.zoneBasis == .workoutMaximum)
        let zones = HeartRateZones.fromMaximum(expectedMaximum)
        for row in csv.rows {
            let t = try #require(Timestamp.parse(row[1])).utcSeconds
            let distance = try #require(Double(row[11]))
            #expect(distance >= previousDistance)
            previousDistance = distance
            if row[9].isEmpty {
                empty += 1
                #expect(Self.hole.contains(t))
                continue
            }
            let bpm = try #require(Double(row[9]))
            let (isInterpolated, value) = Self.expected(at: t)
            let truth = try #require(value)
            // Written with 1 decimal: within 1 bpm interpolated, within 0.05 + the 3-decimal export value nearest.
            #expect(abs(bpm - truth) < (isInterpolated ? 1 : 0.06), "\(row[1]): \(bpm) vs \(truth)")
            #expect(row[10] == zones.zones[zones.zoneIndex(for: bpm)].name)
        }
        #expect(empty == 64)   // as in interpolatesBetweenSamplesWithinTolerance
        #expect(manifest.routes.heartRateSamplesForJoin == Self.sampleTimes.count)

        // workouts.csv: the route's figures; time in zones adds up to the time with heart rate.
        let workouts = try Support.readCSV(dir + "/out/workouts.csv")
        let w = Dictionary(uniqueKeysWithValues: zip(workouts.header, try #require(workouts.rows.first)))
        let routeDistance = try #require(Double(w["route_distance_m"] ?? ""))
        #expect(abs(routeDistance - previousDistance) < 0.2)
        let zoneSeconds = zones.zones.compactMap { Double(w[OutputSchema.zoneColumn($0.name)] ?? "") }.reduce(0, +)
        #expect(zoneSeconds > 3400 && zoneSeconds <= 3600)

        // routes.geojson: one route line, 50 segments, start and end points.
        let features = try GeoJSONCheck.validFeatures(dir + "/out/routes.geojson")
        let kinds = features.compactMap { ($0["properties"] as? [String: Any])?["kind"] as? String }
        #expect(kinds.filter { $0 == "route" }.count == 1)
        #expect(kinds.filter { $0 == "segment" }.count == 50)
        #expect(kinds.filter { $0 == "start" }.count == 1 && kinds.filter { $0 == "end" }.count == 1)
        // Segment colours follow their zone: each segment's zone is that of its mean bpm.
        for f in features where (f["properties"] as? [String: Any])?["kind"] as? String == "segment" {
            let p = try #require(f["properties"] as? [String: Any])
            guard let mean = p["mean_bpm"] as? Double else { continue }
            let zone = zones.zones[zones.zoneIndex(for: mean)]
            #expect(p["zone"] as? String == zone.name)
            #expect(p["colour"] as? String == zone.colour)
        }

        // With --geojson-times every position carries its unix time (kepler.gl's trip layer).
        var timed = RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/timed")
        timed.geojsonTimes = true
        _ = try ExportRun.run(timed)
        let timedFeatures = try GeoJSONCheck.validFeatures(dir + "/timed/routes.geojson", times: true)
        let line = try #require(timedFeatures.first { ($0["properties"] as? [String: Any])?["kind"] as? String == "route" })
        let positions = try #require((line["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])
        #expect(positions.first?.count == 4)
        #expect(positions.first?[3] == Double(Self.t0))
    }

    static func clock(_ localSeconds: Int64) -> String {
        let s = ((localSeconds % 86_400) + 86_400) % 86_400
        return String(format: "%02d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
    }

    /// One real workout had 17 route files: all link to it, by reference.
    @Test func aSeventeenPartWorkoutLinksEveryPart() throws {
        let dir = Support.temporaryDirectory()
        var references = "", entries: [(String, String)] = []
        for part in 0..<17 {
            let name = "route_2024-06-01_\(part).gpx"
            references += "   <FileReference path=\"/workout-routes/\(name)\"/>\n"
            let t = Self.t0 + Int64(part) * 600
            entries.append(
                (
                    "apple_health_export/workout-routes/\(name)",
                    """
                    <gpx><trk><trkseg>
                    <trkpt lat="48.85" lon="2.35"><time>\(Timestamp(utcSeconds: t).utcString)</time></trkpt>
                    <trkpt lat="48.86" lon="2.35"><time>\(Timestamp(utcSeconds: t + 300).utcString)</time></trkpt>
                    </trkseg></trk></gpx>
                    """
                ))
        }
        let body = """
             <Workout workoutActivityType="HKWorkoutActivityTypeHiking" sourceName="W" startDate="2024-06-01 10:00:00 +0200" endDate="2024-06-01 13:00:00 +0200">
              <WorkoutRoute sourceName="W" startDate="2024-06-01 10:00:00 +0200" endDate="2024-06-01 13:00:00 +0200">
            \(references)  </WorkoutRoute>
             </Workout>

            """
        try Support.makeZip(dir + "/export.zip", [("apple_health_export/export.xml", Support.exportXML(body))] + entries)
        let m = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out"))
        #expect(m.routes.linkedByReference == 17)
        #expect(m.routes.orphans.isEmpty && m.routes.missingFiles.isEmpty)
        let workouts = try Support.readCSV(dir + "/out/workouts.csv")
        let row = try #require(workouts.rows.first)
        #expect(row[7].split(separator: ";").count == 17)
        #expect(Set(try Support.readCSV(dir + "/out/route_points.csv").rows.map { $0[0] }) == [row[0]])
        // 17 × 0.01° of latitude ≈ 17 × 1112 m.
        let column = try #require(workouts.header.firstIndex(of: "route_distance_m"))
        let distance = try #require(Double(row[column]))
        #expect(abs(distance - 17 * 1111.95) < 17 * 5)
    }
}
