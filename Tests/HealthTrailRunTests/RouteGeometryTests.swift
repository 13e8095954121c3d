import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailWrite

@Suite struct RouteGeometryTests {
    /// Metres per degree of latitude on the sphere the code uses: 6 371 008.8 × π / 180.
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180

    /// A point `metres` north of (45° N, 5° E), `seconds` after t0: steps along a meridian have
    /// exactly known great-circle lengths.
    static func north(_ metres: Double, at seconds: Int64, ele: Double? = nil, bpm: Double? = nil) -> RoutePoint {
        RoutePoint(
            time: 1_700_000_000 + seconds, latitude: 45 + metres / metresPerDegree, longitude: 5,
            elevation: ele, bpm: bpm)
    }

    static func stats(_ points: [RoutePoint], zones: HeartRateZones = .fourBands, limits: RouteSpeedLimits = .forActivity("")) -> RouteStats {
        var s = RouteStats(zoneCount: zones.zones.count, limits: limits)
        for p in points { s.add(p, zones: zones) }
        return s
    }

    // MARK: haversine

    @Test func haversineKnownDistances() {
        let paris = RoutePoint(time: 0, latitude: 48.8566, longitude: 2.3522)
        let london = RoutePoint(time: 0, latitude: 51.5074, longitude: -0.1278)
        let d = RouteGeometry.haversine(paris, london)
        #expect(abs(d - 343_500) / 343_500 < 0.005, "\(d)")
        #expect(RouteGeometry.haversine(london, paris) == d)

        let a = RoutePoint(time: 0, latitude: 10, longitude: 20)
        let b = RoutePoint(time: 0, latitude: 11, longitude: 20)
        #expect(abs(RouteGeometry.haversine(a, b) - 111_195.08) < 0.01)
        // One degree of longitude on the equator is as long as one of latitude.
        let e1 = RoutePoint(time: 0, latitude: 0, longitude: 0), e2 = RoutePoint(time: 0, latitude: 0, longitude: 1)
        #expect(abs(RouteGeometry.haversine(e1, e2) - 111_195.08) < 0.01)
        #expect(RouteGeometry.haversine(a, a) == 0)
        // Antipodes: half the circumference, not NaN.
        let antipode = RoutePoint(time: 0, latitude: -10, longitude: -160)
        #expect(abs(RouteGeometry.haversine(a, antipode) - Double.pi * 6_371_008.8) < 1)
        // A metre-scale step, where the law of cosines would lose its digits.
        #expect(abs(RouteGeometry.haversine(Self.north(0, at: 0), Self.north(1, at: 1)) - 1) < 1e-6)
    }

    // MARK: segments

    @Test func hundredAndOnePointsGiveFiftyJoinedSegments() {
        let points = (0...100).map { Self.north(Double($0) * 3, at: Int64($0)) }
        let segments = RouteGeometry.segments(points, zones: .fourBands)
        #expect(segments.count == 50)
        #expect(segments.first?.first == 0)
        #expect(segments.last?.last == 100)
        #expect(segments.allSatisfy { (2...3).contains($0.last - $0.first + 1) })
        for (a, b) in zip(segments, segments.dropFirst()) { #expect(a.last == b.first) }
        // Deterministic.
        #expect(RouteGeometry.segments(points, zones: .fourBands) == segments)
    }

    @Test func shortRoutesGetOneSegmentPerStepOrNone() {
        let ten = (0..<10).map { Self.north(Double($0), at: Int64($0)) }
        let segments = RouteGeometry.segments(ten, zones: .fourBands)
        #expect(segments.count == 9)
        #expect(segments.map(\.first) == Array(0..<9))
        #expect(segments.map(\.last) == Array(1..<10))
        #expect(RouteGeometry.segments(Array(ten.prefix(2)), zones: .fourBands).count == 1)
        #expect(RouteGeometry.segments(Array(ten.prefix(1)), zones: .fourBands).isEmpty)
        #expect(RouteGeometry.segments([], zones: .fourBands).isEmpty)
        // Uneven split: 7 steps into 3 segments of 2, 2 and 3 steps.
        let eight = Array(ten.prefix(8))
        #expect(
            RouteGeometry.segments(eight, zones: .fourBands, target: 3).map { [$0.first, $0.last] }
                == [[0, 2], [2, 4], [4, 7]])
    }

    @Test func segmentColourFollowsTheMeanHeartRate() {
        // 5 points, target 2: segments [0…2] and [2…4].
        let bpms: [Double?] = [118, 122, 120, nil, nil]
        let points = bpms.enumerated().map { Self.north(Double($0.offset), at: Int64($0.offset), bpm: $0.element) }
        let s = RouteGeometry.segments(points, zones: .fourBands, target: 2)
        #expect(s.count == 2)
        #expect(s[0] == RouteSegment(first: 0, last: 2, meanBPM: 120, zone: 1, colour: "#1a9641", opacity: 0.4 + 0.6 * 0.5))
        // Only the shared end point has a heart rate: its mean alone.
        #expect(s[1] == RouteSegment(first: 2, last: 4, meanBPM: 120, zone: 1, colour: "#1a9641", opacity: 0.4 + 0.6 * 0.5))

        let maxZones = HeartRateZones.fromMaximum(200)
        let hard = [182.0, 186, 190].enumerated().map { Self.north(Double($0.offset), at: Int64($0.offset), bpm: $0.element) }
        let h = RouteGeometry.segments(hard, zones: maxZones, target: 1)
        #expect(h == [RouteSegment(first: 0, last: 2, meanBPM: 186, zone: 4, colour: "#d7191c", opacity: 0.4 + 0.6 * 0.3)])

        let bare = (0..<4).map { Self.north(Double($0), at: Int64($0)) }
        #expect(
            RouteGeometry.segments(bare, zones: .fourBands, target: 1)
                == [RouteSegment(first: 0, last: 3, meanBPM: nil, zone: nil, colour: "#9e9e9e", opacity: 1)])
    }

    // MARK: RouteStats

    @Test func distanceOfAStraightRouteIsTheSumOfItsSteps() throws {
        // Steps of 10, 20, …, 100 m along a meridian: 550 m.
        var metres = 0.0
        var points = [Self.north(0, at: 0)]
        for i in 1...10 { metres += Double(i) * 10; points.append(Self.north(metres, at: Int64(i) * 10)) }
        let s = Self.stats(points)
        #expect(abs(s.distance - 550) < 1e-6)
        #expect(s.points == 11)
        #expect(s.movingTime == 100)   // every step ≥ 1 m/s, 10 s long
        let pace = try #require(s.paceSecondsPerKilometre)
        #expect(abs(pace - 100 / 0.55) < 1e-6)
        #expect(Self.stats(Array(points.prefix(1))).distance == 0)
        #expect(Self.stats([Self.north(0, at: 0), Self.north(9, at: 5)]).paceSecondsPerKilometre == nil)
        #expect(RouteStats(zoneCount: 4).paceSecondsPerKilometre == nil)
    }

    @Test func movingTimeLeavesOutStopsAndLongGaps() {
        var points: [RoutePoint] = []
        var t: Int64 = 0, y = 0.0
        // 60 s running at 3 m/s.
        for _ in 0...60 { points.append(Self.north(y, at: t)); t += 1; y += 3 }
        t -= 1; y -= 3
        // A 5-minute stop, recorded every second, with GPS drift of 0.2 m back and forth.
        for i in 1...300 { points.append(Self.north(y + (i % 2 == 0 ? 0 : 0.2), at: t + Int64(i))) }
        t += 300
        // 60 s more running.
        for _ in 1...60 { t += 1; y += 3; points.append(Self.north(y, at: t)) }
        // A 2-minute gap (a tunnel) across 400 m: 3.3 m/s, a pace running allows: moving.
        t += 120; y += 400; points.append(Self.north(y, at: t))
        // A 2-minute gap across 30 m (0.25 m/s): a stop, not moving.
        t += 120; y += 30; points.append(Self.north(y, at: t))
        // A 1-minute gap across 600 m (10 m/s): faster than anyone runs for a minute, not moving.
        t += 60; y += 600; points.append(Self.north(y, at: t))
        // 30 s more running, the first step exactly 30 s long (counts), then 10 steps of 1 s.
        t += 30; y += 90; points.append(Self.north(y, at: t))
        for _ in 1...10 { t += 1; y += 3; points.append(Self.north(y, at: t)) }
        let s = Self.stats(points, limits: .forActivity("running"))
        #expect(s.movingTime == 60 + 60 + 120 + 30 + 10)
        // Distance counts every step, gaps included; the stop's drift adds 300 × 0.2 m.
        #expect(abs(s.distance - (y + 60)) < 1e-6)
    }

    /// Deterministic jitter in −2…2 m (a small LCG), so the tests do not depend on a seedable RNG.
    static func jitter(_ count: Int, seed: UInt64 = 42) -> [Double] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53) * 4 - 2
        }
    }

    @Test func elevationGainIgnoresJitterOnTheFlat() {
        for seed: UInt64 in [1, 42, 2024] {
            let noise = Self.jitter(600, seed: seed)
            let flat = noise.enumerated().map { Self.north(Double($0.offset) * 3, at: Int64($0.offset), ele: 200 + $0.element) }
            #expect(Self.stats(flat).elevationGain == 0, "seed \(seed)")
        }
        // The harshest ±2 m jitter, alternating every point: 4 m peak to peak.
        let alternating = (0..<600).map { Self.north(Double($0) * 3, at: Int64($0), ele: $0 % 2 == 0 ? 202 : 198) }
        #expect(Self.stats(alternating).elevationGain == 0)
        // Without elevation at all.
        #expect(Self.stats((0..<10).map { Self.north(Double($0), at: Int64($0)) }).elevationGain == 0)
    }

    /// 60 s flat at 100 m, 60 s climbing to 110 m, 60 s flat at 110 m, plus `noise`.
    static func climb(_ noise: (Int) -> Double) -> [RoutePoint] {
        (0..<180).map { i in
            let e = i < 60 ? 100 : i < 120 ? 100 + Double(i - 60) / 6 : 110
            return Self.north(Double(i) * 3, at: Int64(i), ele: e + noise(i))
        }
    }

    @Test func elevationGainOfATenMetreClimbWithJitter() {
        #expect(abs(Self.stats(Self.climb { _ in 0 }).elevationGain - 10) < 1e-9)
        // ±2 m alternating jitter: 4 m peak to peak, more than the 3 m threshold on its own.
        let alternating = Self.stats(Self.climb { $0 % 2 == 0 ? 2 : -2 }).elevationGain
        #expect(abs(alternating - 10) <= 1, "\(alternating)")
        // ±2 m of white (uniform) jitter: the climb counts from a noise trough of the bottom to a
        // noise crest of the top, so it reads high by ~1.3 m on average (documented on
        // `elevationWindow`); what matters is that it is counted once, not once per wiggle.
        for seed: UInt64 in [1, 42, 2024] {
            let noise = Self.jitter(180, seed: seed)
            let gain = Self.stats(Self.climb { noise[$0] }).elevationGain
            #expect(gain >= 9 && gain <= 13, "seed \(seed): \(gain)")
        }
        // Up 10, plateau, down 10, plateau, up 10, plateau, without noise: 20 m of climbing.
        let hills = (0..<120).map { i -> RoutePoint in
            let piece = i / 20, x = Double(i % 20) / 2
            let e = [x, 10, 10 - x, 0, x, 10][piece]
            return Self.north(Double(i) * 3, at: Int64(i), ele: e)
        }
        #expect(abs(Self.stats(hills).elevationGain - 20) < 1e-9)
    }

    @Test func timeInZoneFollowsAPiecewiseHeartRate() {
        // 1 s steps: 10 steps at 90 bpm, a 90→150 step (mean 120: moderate), 9 steps at 150, then a
        // stretch without heart rate next to one point with it, and a 60 s gap at 185.
        var bpms: [Double?] = Array(repeating: 90, count: 11) + Array(repeating: 150, count: 10)
        bpms += [nil, nil, 185]   // 150→nil: 150 (vigorous), nil→nil: none, nil→185: maximum
        var points = bpms.enumerated().map { Self.north(Double($0.offset) * 3, at: Int64($0.offset), bpm: $0.element) }
        points.append(Self.north(Double(points.count) * 3, at: Int64(points.count) - 1 + 60, bpm: 185))
        let s = Self.stats(points)
        #expect(s.timeInZone == [10, 1, 10, 1])
        // Five zones from a maximum of 200: 90 (below 50 %) counts in zone1, 120 in zone2
        // (120–140), 150 in zone3 (140–160), 185 in zone5 (≥ 180).
        let five = HeartRateZones.fromMaximum(200)
        #expect(Self.stats(points, zones: five).timeInZone == [10, 1, 10, 0, 1])
    }

    @Test func mergeSumsTheFiguresOfSeveralFiles() {
        let a = Self.stats((0...10).map { Self.north(Double($0) * 3, at: Int64($0), ele: Double($0), bpm: 120) })
        let b = Self.stats((0...20).map { Self.north(Double($0) * 2, at: 1000 + Int64($0), ele: 50 + Double($0) / 2, bpm: 150) })
        var merged = a
        merged.merge(b)
        #expect(merged.points == 32)
        #expect(abs(merged.distance - 70) < 1e-6)
        #expect(merged.movingTime == 30)
        #expect(abs(merged.elevationGain - (a.elevationGain + b.elevationGain)) < 1e-9)
        #expect(a.elevationGain > 3 && b.elevationGain > 3)
        #expect(merged.timeInZone == [0, 10, 20, 0])
        var empty = RouteStats(zoneCount: 4)
        empty.merge(a)
        #expect(empty == a)
        // A longer zone list widens the sums.
        var narrow = RouteStats(zoneCount: 2)
        narrow.merge(b)
        #expect(narrow.timeInZone == [0, 0, 20, 0])
    }
}

/// The stats of Apple's real route files agree with an independent haversine sum.
@Suite(.enabled(if: Support.hasRealFixtures, "../shared/fixtures/real is absent: real-export tests skipped"))
struct RouteGeometryRealGPXTests {
    /// Distances (m) and point counts computed by Python from the same files, independently of the
    /// project: in ../shared/fixtures/real/applehealth-gpx,
    ///
    ///     python3 -c "import re,math,glob;R=6371008.8;h=lambda a,b:2*R*math.asin(math.sqrt(math.sin(math.radians(b[0]-a[0])/2)**2+math.cos(math.radians(a[0]))*math.cos(math.radians(b[0]))*math.sin(math.radians(b[1]-a[1])/2)**2));[print(f,len(p),round(sum(h(a,b) for a,b in zip(p,p[1:])),2)) for f in sorted(glob.glob('*.gpx')) for p in [[(float(y),float(x)) for x,y in re.findall(r'<trkpt lon=\"([-0-9.]+)\" lat=\"([-0-9.]+)\"',open(f).read())]]]"
    static let python: [(String, Int, Double)] = [
        ("route_2019-08-21_4.20pm.gpx", 1352, 748.53),
        ("route_2022-01-19_6.33pm.gpx", 2370, 5941.38),
        ("route_2024-09-22_6.44pm.gpx", 95, 212.21),
        ("route_2024-11-14_6.05pm.gpx", 60, 182.32),
        ("route_2025-01-30_12.57pm.gpx", 100, 296.82),
        ("route_2025-03-27_6.01pm.gpx", 60, 223.70),
        ("route_2025-04-04_7.27pm.gpx", 40, 108.26),
    ]

    /// trkpt elements by a plain regex, attributes in either order (not the project's GPX decoder).
    static func points(_ path: String) throws -> [RoutePoint] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let trkpt = try Regex(#"<trkpt\s([^>]*)>(.*?)</trkpt>"#).dotMatchesNewlines()
        let lat = try Regex(#"lat="([-+0-9.eE]+)""#), lon = try Regex(#"lon="([-+0-9.eE]+)""#)
        let ele = try Regex(#"<ele>([^<]+)</ele>"#), time = try Regex(#"<time>([^<]+)</time>"#)
        func first(_ r: Regex<AnyRegexOutput>, _ s: Substring) -> String? {
            (try? r.firstMatch(in: s))?.output[1].substring.map(String.init)
        }
        return text.matches(of: trkpt).compactMap { m in
            guard let attributes = m.output[1].substring, let body = m.output[2].substring,
                let y = first(lat, attributes).flatMap(Double.init), let x = first(lon, attributes).flatMap(Double.init),
                let t = first(time, body).flatMap({ Timestamp.parse($0) })
            else { return nil }
            return RoutePoint(
                time: t.utcSeconds, latitude: y, longitude: x,
                elevation: first(ele, body).flatMap(Double.init))
        }
    }

    @Test(arguments: python)
    func distanceMatchesPython(_ name: String, _ count: Int, _ metres: Double) throws {
        let points = try Self.points(Support.fixture("applehealth-gpx/" + name))
        #expect(points.count == count)
        var stats = RouteStats(zoneCount: HeartRateZones.fourBands.zones.count)
        for p in points { stats.add(p, zones: .fourBands) }
        #expect(stats.points == count)
        #expect(abs(stats.distance - metres) / metres < 0.01, "\(name): \(stats.distance) vs \(metres)")
        // Sanity: moving time fits in the recording, and Apple's barometric elevation is smooth
        // enough that the gain stays within the file's elevation range times a few climbs.
        let span = Double(points.last!.time - points.first!.time)
        #expect(stats.movingTime > 0 && stats.movingTime <= span)
        #expect(stats.elevationGain >= 0)
        #expect(stats.timeInZone.allSatisfy { $0 == 0 })   // no heart rate in a bare GPX
        let segments = RouteGeometry.segments(points, zones: .fourBands)
        #expect(segments.count == min(50, count - 1))
        #expect(segments.last?.last == count - 1)
        #expect(segments.allSatisfy { $0.colour == "#9e9e9e" })
    }
}
