import Foundation
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailRun
@testable import HealthTrailSynth
@testable import HealthTrailWrite

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The SVG maps, parsed back with Foundation's `XMLParser` (an independent, strict XML reader).
@Suite struct SVGRenderingTests {
    // MARK: XML

    final class Node {
        let name: String
        let attributes: [String: String]
        weak var parent: Node?
        var children: [Node] = []
        var text = ""
        init(name: String, attributes: [String: String], parent: Node?) {
            self.name = name
            self.attributes = attributes
            self.parent = parent
        }

        subscript(_ key: String) -> String? { attributes[key] }

        /// Every descendant (self first), document order.
        var all: [Node] { [self] + children.flatMap(\.all) }

        func elements(_ name: String, class cls: String? = nil) -> [Node] {
            all.filter { $0.name == name && (cls == nil || $0["class"] == cls) }
        }

        /// `fill` of the nearest element (self or ancestor) that has one.
        var inheritedFill: String? { self["fill"] ?? parent?.inheritedFill }
    }

    final class TreeBuilder: NSObject, XMLParserDelegate {
        var root: Node?
        var stack: [Node] = []
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            let node = Node(name: name, attributes: attributes, parent: stack.last)
            if let parent = stack.last { parent.children.append(node) } else { root = node }
            stack.append(node)
        }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }
    }

    /// The parsed document; fails the test when the bytes are not well-formed XML or the root is
    /// not an `svg` with `xmlns`, `width`, `height` and a matching `viewBox`.
    static func parse(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> Node {
        let parser = XMLParser(data: Data(bytes))
        let builder = TreeBuilder()
        parser.delegate = builder
        let ok = parser.parse()
        #expect(ok, "XML error: \(String(describing: parser.parserError))", sourceLocation: sourceLocation)
        let root = try #require(builder.root, sourceLocation: sourceLocation)
        #expect(root.name == "svg", sourceLocation: sourceLocation)
        let text = String(decoding: bytes.prefix(400), as: UTF8.self)
        #expect(text.contains("xmlns=\"http://www.w3.org/2000/svg\""), sourceLocation: sourceLocation)
        let w = try #require(root["width"].flatMap(Int.init), sourceLocation: sourceLocation)
        let h = try #require(root["height"].flatMap(Int.init), sourceLocation: sourceLocation)
        #expect(w > 0 && h > 0, sourceLocation: sourceLocation)
        #expect(root["viewBox"] == "0 0 \(w) \(h)", sourceLocation: sourceLocation)
        return root
    }

    /// With `HEALTHTRAIL_SVG_DUMP=/some/dir` the tests also write their SVGs there, to look at.
    static func dump(_ name: String, _ bytes: [UInt8]) {
        guard let dir = ProcessInfo.processInfo.environment["HEALTHTRAIL_SVG_DUMP"] else { return }
        _ = FileManager.default.createFile(atPath: dir + "/" + name, contents: Data(bytes))
    }

    // MARK: Synthetic routes

    static let metresPerDegree = 6_371_008.8 * Double.pi / 180
    static let t0: Int64 = 1_700_000_000   // 2023-11-14T22:13:20Z

    /// `count` points one second apart heading north-east from (48.85° N, 2.35° E), about
    /// `step` metres apart, with the bpm `bpm(i)`.
    static func route(
        count: Int, step: Double = 3, bpm: (Int) -> Double? = { _ in nil },
        lat: Double = 48.85, lon: Double = 2.35
    ) -> [RoutePoint] {
        (0..<count).map { i in
            let d = Double(i) * step / metresPerDegree
            return RoutePoint(
                time: t0 + Int64(i), latitude: lat + d * 0.8,
                longitude: lon + d * 0.6 / cos(lat * Double.pi / 180), bpm: bpm(i))
        }
    }

    /// 600 s through the four default zones: 150 s each of 90, 120, 160 and 190 bpm.
    static func zonedRoute() -> (MapRoute, RouteStats) {
        let points = route(count: 601, bpm: { i in [90.0, 120, 160, 190][min(3, i / 150)] })
        let zones = HeartRateZones.fourBands
        var stats = RouteStats(zoneCount: zones.zones.count)
        for p in points { stats.add(p, zones: zones) }
        let segments = RouteGeometry.segments(points, zones: zones)
        let mean = points.compactMap(\.bpm).reduce(0, +) / Double(points.count)
        let route = MapRoute(
            workoutID: "20231114T221320Z-running", activity: "running", start: t0, end: t0 + 600,
            utcOffsetMinutes: 60, distanceMeters: stats.distance, meanBPM: mean,
            timeInZone: stats.timeInZone, points: points, segments: segments)
        return (route, stats)
    }

    // MARK: Workout map

    @Test func workoutMapDrawsOnePathPerSegmentInZoneColours() throws {
        let (route, stats) = Self.zonedRoute()
        let bytes = WorkoutMapSVG.render(route, zones: .fourBands, options: SVGOptions())
        Self.dump("workout.svg", bytes)
        let svg = try Self.parse(bytes)
        #expect(svg["width"] == "800")

        let paths = svg.elements("path", class: "segment")
        #expect(paths.count == route.segments.count)
        #expect(route.segments.count == 50)
        // Colours and opacities, segment by segment, and the zones present are all four.
        for (path, segment) in zip(paths, route.segments) {
            #expect(path["stroke"] == segment.colour)
            #expect(path["stroke-opacity"].flatMap(Double.init).map { abs($0 - segment.opacity) <= 0.005 } == true)
        }
        let zonesPresent = Set(route.segments.compactMap(\.zone).map { HeartRateZones.fourBands.zones[$0].colour })
        #expect(Set(paths.compactMap { $0["stroke"] }) == zonesPresent)
        #expect(zonesPresent == ["#2c7bb6", "#1a9641", "#fdae61", "#d7191c"])
        // Round caps and joins on the lines' group.
        let lines = try #require(svg.elements("g", class: "route-lines").first)
        #expect(lines["stroke-linecap"] == "round" && lines["stroke-linejoin"] == "round" && lines["fill"] == "none")

        // Title: activity, local date (+01:00 makes 22:13Z the 14th still), km, h:mm:ss, bpm.
        let km = String(format: "%.2f", stats.distance / 1000)
        let expected = "Running · 2023-11-14 · \(km) km · 0:10:00 · 140 bpm"
        #expect(svg.elements("title").first?.text == expected)
        #expect(svg.elements("text", class: "title").first?.text == expected)

        // Legend: each zone's bpm range with its time in m:ss (150 s each, the boundary steps averaged).
        let entries = svg.elements("g", class: "legend-entry").map { $0.elements("text").first?.text ?? "" }
        #expect(
            entries
                == HeartRateZones.fourBands.zones.indices.map { i in
                    HeartRateZones.fourBands.legendLabel(i) + "  " + SVGFormat.minutesSeconds(stats.timeInZone[i])
                })
        // Each boundary step counts in the zone of its mean: 90→120 averages 105 (second zone),
        // 120→160 averages 140 (third), 160→190 averages 175 (third): 149, 150, 151 and 150 s.
        #expect(entries == ["Z1 <100 bpm  2:29", "Z2 100–139 bpm  2:30", "Z3 140–179 bpm  2:31", "Z4 ≥180 bpm  2:30"])
        let legendColours = svg.elements("g", class: "legend-entry").compactMap { $0.elements("rect").first?["fill"] }
        #expect(legendColours == HeartRateZones.fourBands.zones.map(\.colour))

        // Scale bar: a round length within a quarter of the width.
        #expect(svg.elements("g").contains { $0["id"] == "scale-bar" })
        let label = try #require(svg.elements("text", class: "scale-label").first?.text)
        let allowed = ["10 m", "20 m", "50 m", "100 m", "200 m", "500 m", "1 km", "2 km", "5 km"]
        #expect(allowed.contains(label), "\(label)")

        // Markers: start at the south-west end (larger y, smaller x on screen), end north-east.
        let start = try #require(svg.elements("circle", class: "marker start").first)
        let end = try #require(svg.elements("circle", class: "marker end").first)
        #expect(svg.elements("circle").count == 2)
        let sy = try #require(start["cy"].flatMap(Double.init)), ey = try #require(end["cy"].flatMap(Double.init))
        let sx = try #require(start["cx"].flatMap(Double.init)), ex = try #require(end["cx"].flatMap(Double.init))
        #expect(sy > ey && sx < ex)

        // Deterministic.
        #expect(WorkoutMapSVG.render(route, zones: .fourBands, options: SVGOptions()) == bytes)
    }

    @Test func scaleBarMatchesMercatorMetresPerPixel() throws {
        // A 1.8 km route fitted into ~752 px: about 2.4 m/px along the diagonal's larger side.
        let (route, _) = Self.zonedRoute()
        let svg = try Self.parse(WorkoutMapSVG.render(route, zones: .fourBands, options: SVGOptions()))
        let d = try #require(svg.elements("g").first { $0["id"] == "scale-bar" }?.elements("path").first?["d"])
        // "M<left> <y-5>V<y>H<right>V<y-5>"
        let numbers = d.split(whereSeparator: { "MVH ".contains($0) }).compactMap { Double($0) }
        let length = numbers[3] - numbers[0]
        let label = try #require(svg.elements("text", class: "scale-label").first?.text)
        let metres = label.hasSuffix(" km") ? Double(label.dropLast(3))! * 1000 : Double(label.dropLast(2))!
        // Independent metres per pixel: the route's projected extent against its pixel extent.
        let a = WebMercator.project(lat: route.points.first!.latitude, lon: route.points.first!.longitude)
        let b = WebMercator.project(lat: route.points.last!.latitude, lon: route.points.last!.longitude)
        let start = svg.elements("circle", class: "marker start")[0], end = svg.elements("circle", class: "marker end")[0]
        let pixelsY = Double(start["cy"]!)! - Double(end["cy"]!)!
        let midLat = WebMercator.latitude(y: (a.y + b.y) / 2)
        let mpp = (a.y - b.y) * WebMercator.metresPerWorldUnit(atLatitude: midLat) / pixelsY
        #expect(abs(length * mpp - metres) / metres < 0.01, "bar \(length) px × \(mpp) m/px vs \(metres) m")
        #expect(length <= 800 / 4 + 0.1 && length >= 800 / 10)
        #expect(ScaleBar.roundLength(atMost: 2600) == 2000)
        #expect(ScaleBar.roundLength(atMost: 740) == 500)
        #expect(ScaleBar.roundLength(atMost: 100) == 100)
        #expect(ScaleBar.label(1000) == "1 km" && ScaleBar.label(200) == "200 m")
    }

    @Test func workoutMapWithoutHeartRateEscapesTextAndShowsNote() throws {
        let points = Self.route(count: 40)
        let segments = RouteGeometry.segments(points, zones: .fourBands, target: 5)
        let route = MapRoute(
            workoutID: "w<1>", activity: "rock_&_\"roll\"", start: Self.t0, end: Self.t0 + 3725,
            utcOffsetMinutes: 120, distanceMeters: 1234.5, meanBPM: nil, timeInZone: [],
            points: points, segments: segments)
        let svg = try Self.parse(WorkoutMapSVG.render(route, zones: .fourBands))
        // 22:13Z + 2 h is the 15th locally.
        #expect(svg.elements("title").first?.text == "Rock & \"roll\" · 2023-11-15 · 1.23 km · 1:02:05")
        #expect(Set(svg.elements("path", class: "segment").compactMap { $0["stroke"] }) == [RouteGeometry.noHeartRateColour])
        let entries = svg.elements("g", class: "legend-entry").map { $0.elements("text").first?.text ?? "" }
        #expect(entries.last == "no heart rate")
        #expect(entries.first == "Z1 <100 bpm  0:00")

        // Below the minimum: title and legend, a note, no lines or markers.
        var options = SVGOptions()
        options.minimumPoints = 100
        let empty = try Self.parse(WorkoutMapSVG.render(route, zones: .fourBands, options: options))
        #expect(empty.elements("path").isEmpty && empty.elements("circle").isEmpty)
        #expect(empty.elements("text", class: "note").first?.text == "No route to draw")
    }

    @Test func longRouteIsSimplifiedWithinEachSegment() throws {
        // 10 000 points along a straight line with ±0.5 m of jitter: at ~1.2 m/px the jitter is
        // under the tolerance, so each of the 50 segments needs only its two ends.
        var rng = SynthRandom(seed: 3, stream: 0, index: 0)
        let points = Self.route(count: 10_000, step: 0.5).map { p -> RoutePoint in
            var q = p
            q.latitude += (rng.unit() - 0.5) / Self.metresPerDegree
            q.bpm = 130
            return q
        }
        let segments = RouteGeometry.segments(points, zones: .fourBands)
        let route = MapRoute(
            workoutID: "long", activity: "walking", start: Self.t0, end: Self.t0 + 10_000,
            distanceMeters: 5000, meanBPM: 130, timeInZone: [0, 10_000, 0, 0], points: points,
            segments: segments)
        let bytes = WorkoutMapSVG.render(route, zones: .fourBands)
        let svg = try Self.parse(bytes)
        let paths = svg.elements("path", class: "segment")
        #expect(paths.count == 50)
        let vertices = paths.map { $0["d"]!.split(whereSeparator: { "ML ".contains($0) }).count / 2 }
        #expect(vertices.reduce(0, +) < 50 * 6, "\(vertices)")
        print("10 000-point workout map: \(bytes.count) bytes, \(vertices.reduce(0, +)) vertices drawn")
    }

    // MARK: Simplification

    @Test func douglasPeuckerKeepsFewPointsOfANoisyLineWithinTolerance() {
        var rng = SynthRandom(seed: 11, stream: 0, index: 0)
        let line = (0..<10_000).map { i in (x: Double(i) * 0.1, y: Double(i) * 0.05 + (rng.unit() - 0.5) * 0.6) }
        let tolerance = 0.5
        let kept = PolylineSimplification.douglasPeucker(line, tolerance: tolerance)
        #expect(kept.first == 0 && kept.last == line.count - 1)
        #expect(kept.count < 20, "\(kept.count)")
        #expect(Self.maxDeviation(line, kept) < tolerance)

        // A circle of radius 200 px: the chords are within tolerance, a few dozen vertices.
        let circle = (0..<10_000).map { i -> (x: Double, y: Double) in
            let a = Double(i) / 10_000 * 2 * Double.pi
            return (200 * cos(a), 200 * sin(a))
        }
        let keptCircle = PolylineSimplification.douglasPeucker(circle, tolerance: tolerance)
        #expect(keptCircle.count < 200 && keptCircle.count > 20, "\(keptCircle.count)")
        #expect(Self.maxDeviation(circle, keptCircle) < tolerance)

        // Out and back: the turning point stays.
        let outAndBack = (0...200).map { i in (x: Double(100 - abs(100 - i)), y: 0.0) }
        #expect(PolylineSimplification.douglasPeucker(outAndBack, tolerance: tolerance) == [0, 100, 200])
        #expect(PolylineSimplification.douglasPeucker([], tolerance: 1) == [])
        #expect(PolylineSimplification.douglasPeucker([(x: 1, y: 1)], tolerance: 1) == [0])
        #expect(PolylineSimplification.douglasPeucker([(x: 1, y: 1), (x: 1, y: 1), (x: 1, y: 1)], tolerance: 1) == [0, 2])
    }

    /// Largest distance of any point from the kept segment spanning it.
    static func maxDeviation(_ points: [(x: Double, y: Double)], _ kept: [Int]) -> Double {
        var worst = 0.0
        for (a, b) in zip(kept, kept.dropFirst()) {
            let p = points[a], q = points[b]
            let dx = q.x - p.x, dy = q.y - p.y, l2 = dx * dx + dy * dy
            for i in a...b {
                let t = l2 > 0 ? min(1, max(0, ((points[i].x - p.x) * dx + (points[i].y - p.y) * dy) / l2)) : 0
                let ex = points[i].x - p.x - t * dx, ey = points[i].y - p.y - t * dy
                worst = max(worst, (ex * ex + ey * ey).squareRoot())
            }
        }
        return worst
    }

    // MARK: Overview

    @Test func overviewColoursByActivityWithCountsAndMarkers() throws {
        func make(_ id: String, _ activity: String, _ day: Int64, lat: Double, count: Int = 50) -> MapRoute {
            MapRoute(
                workoutID: id, activity: activity, start: Self.t0 + day * 86_400, end: Self.t0 + day * 86_400 + 600,
                distanceMeters: 150, meanBPM: nil, points: Self.route(count: count, lat: lat))
        }
        let routes = [
            make("w1", "walking", 0, lat: 48.85), make("r1", "running", 1, lat: 48.851),
            make("w2", "walking", 2, lat: 48.852), make("c1", "cycling", 3, lat: 48.853),
            make("w3", "walking", 4, lat: 48.854), make("r2", "running", 5, lat: 48.855),
            make("x1", "swimming", 6, lat: 48.856, count: 1),   // one point: below minimumPoints
        ]
        let bytes = RoutesOverviewSVG.render(routes, options: SVGOptions())
        Self.dump("routes.svg", bytes)
        let svg = try Self.parse(bytes)
        let paths = svg.elements("path", class: "route")
        #expect(paths.map { $0.elements("title").first?.text } == ["w1", "r1", "w2", "c1", "w3", "r2"])
        #expect(paths.map { $0["stroke"] } == ["#2e7d32", "#c62828", "#2e7d32", "#1565c0", "#2e7d32", "#c62828"])
        #expect(svg.elements("circle", class: "marker start").count == 6)
        #expect(svg.elements("circle", class: "marker end").count == 6)
        let legend = svg.elements("g", class: "legend-entry")
        #expect(legend.map { $0.elements("text").first?.text } == ["Walking (3)", "Running (2)", "Cycling (1)"])
        #expect(legend.map { $0.elements("rect").first?["fill"] } == ["#2e7d32", "#c62828", "#1565c0"])
        #expect(svg.elements("title").first?.text == "All routes · 6 routes · 2023-11-14 – 2023-11-19")
        #expect(svg.elements("g").contains { $0["id"] == "scale-bar" })
        // Input order does not matter.
        #expect(RoutesOverviewSVG.render(routes.reversed(), options: SVGOptions()) == bytes)
    }

    // MARK: Density

    @Test func densityGridRasterisesLinesBetweenSparsePoints() {
        let box = GeoBoundingBox(minLatitude: 48.80, minLongitude: 2.28, maxLatitude: 48.90, maxLongitude: 2.42)
        var grid = DensityGrid(bounds: box, columns: 100)
        grid.maxStepMetres = 20_000
        #expect(grid.width == 100)
        // Two points 8 km apart along a parallel: one row of cells, continuous between them.
        grid.add(track: [
            RoutePoint(time: 0, latitude: 48.85, longitude: 2.31),
            RoutePoint(time: 60, latitude: 48.85, longitude: 2.39),
        ])
        let y = Int(((WebMercator.project(lat: 48.85, lon: 2.31).y - grid.originY) / grid.cellWorldSize).rounded(.down))
        let x0 = Int((WebMercator.project(lat: 48.85, lon: 2.31).x - grid.originX) / grid.cellWorldSize)
        let x1 = Int((WebMercator.project(lat: 48.85, lon: 2.39).x - grid.originX) / grid.cellWorldSize)
        #expect(x1 - x0 > 50)
        for x in x0...x1 { #expect(grid[x, y] == 1, "cell \(x)") }
        #expect(grid.counts.reduce(0, +) == UInt32(x1 - x0 + 1))
        // A diagonal: every cell it crosses, 4-connected, once each.
        var diagonal = DensityGrid(bounds: box, columns: 100)
        diagonal.maxStepMetres = 20_000
        diagonal.add(track: [
            RoutePoint(time: 0, latitude: 48.81, longitude: 2.31),
            RoutePoint(time: 60, latitude: 48.89, longitude: 2.39),
        ])
        #expect(diagonal.maximum == 1)
        func cell(_ lat: Double, _ lon: Double) -> (Int, Int) {
            let w = WebMercator.project(lat: lat, lon: lon)
            return (
                Int(((w.x - diagonal.originX) / diagonal.cellWorldSize).rounded(.down)),
                Int(((w.y - diagonal.originY) / diagonal.cellWorldSize).rounded(.down))
            )
        }
        let (sx, sy) = cell(48.81, 2.31), (ex, ey) = cell(48.89, 2.39)
        // A 4-connected walk: one cell per grid line crossed, plus the first.
        #expect(diagonal.counts.filter { $0 > 0 }.count == abs(ex - sx) + abs(ey - sy) + 1)
        #expect(diagonal[sx, sy] == 1 && diagonal[ex, ey] == 1)
        // Standing still: every fix counts in its cell, the zero-length steps add nothing.
        var still = DensityGrid(bounds: box, columns: 100)
        still.add(track: Array(repeating: RoutePoint(time: 0, latitude: 48.85, longitude: 2.35), count: 30))
        #expect(still.maximum == 30 && still.counts.filter { $0 > 0 }.count == 1)
        // A gap longer than maxStepMetres is not drawn; far-away points cost nothing.
        var gap = DensityGrid(bounds: box, columns: 100)
        gap.maxStepMetres = 1000
        gap.add(track: [
            RoutePoint(time: 0, latitude: 48.85, longitude: 2.31),
            RoutePoint(time: 60, latitude: 48.85, longitude: 2.39),
            RoutePoint(time: 120, latitude: -33.9, longitude: 151.2),
        ])
        #expect(gap.counts.reduce(0, +) == 2)
    }

    @Test func densityMapRunsLevelsAndTopColour() throws {
        var tracks: [[RoutePoint]] = []
        // A commute run 40 times, a loop 3 times, a one-off, and a café where a watch sat 500 fixes.
        for k in 0..<40 { tracks.append(Self.route(count: 300, step: 10, lat: 48.85 + Double(k % 3) * 1e-5)) }
        for _ in 0..<3 { tracks.append(Self.route(count: 200, step: 12, lat: 48.86, lon: 2.33)) }
        tracks.append(Self.route(count: 100, step: 30, lat: 48.84, lon: 2.36))
        tracks.append(Array(repeating: RoutePoint(time: 0, latitude: 48.852, longitude: 2.345), count: 500))

        for scale in ColourScale.allCases {
            var options = SVGOptions()
            options.colourScale = scale
            let bytes = DensityMapSVG.render(tracks: tracks, options: options)
            Self.dump("density-small-\(scale.rawValue).svg", bytes)
            let svg = try Self.parse(bytes)
            let grid = DensityTracks.build(tracks).grid(options: options)
            #expect(grid.maximum >= 500)

            // Expected runs, from the grid with the documented log quantisation.
            let levels = options.densityLevels
            func level(_ c: UInt32) -> Int { min(levels - 1, Int(log1p(Double(c)) / log1p(Double(grid.maximum)) * Double(levels))) }
            var runs = 0, busiest = (0, 0)
            for y in 0..<grid.height {
                var previous = -1
                for x in 0..<grid.width {
                    let c = grid[x, y]
                    let l = c > 0 ? level(c) : -1
                    if l >= 0 && l != previous { runs += 1 }
                    previous = l
                    if c == grid.maximum { busiest = (x, y) }
                }
            }
            let density = try #require(svg.elements("g").first { $0["id"] == "density" })
            let boxes = Self.densityRuns(density)
            #expect(boxes.count == runs)
            // Empty cells are not drawn: the runs cover exactly the non-empty cells.
            #expect(boxes.reduce(0) { $0 + $1.width } == grid.counts.filter { $0 > 0 }.count)
            // The busiest cell wears the scale's top colour.
            let top = try #require(boxes.first { b in b.y == busiest.1 && b.x <= busiest.0 && busiest.0 < b.x + b.width })
            #expect(top.fill == scale.colour(at: 1))
            #expect(top.fill == (scale == .viridis ? "#fde725" : "#fcffa4"))
            // Legend: bar, min and max labels, the log note.
            #expect(svg.elements("text", class: "legend-max").first?.text == "\(grid.maximum)")
            #expect(svg.elements("text", class: "legend-min").first?.text == "1")
            #expect(svg.elements("text", class: "legend-note").first?.text.contains("log(1 + n) / log(1 + max)") == true)
            #expect(svg.elements("g", class: "legend-bar").first?.elements("rect").last?["fill"] == scale.colour(at: 1))
            #expect(DensityMapSVG.render(tracks: tracks, options: options) == bytes)
        }
    }

    @Test func densityStreamingMatchesBatch() {
        let tracks = (0..<6).map { Self.route(count: 120, step: 8, lat: 48.85 + Double($0) * 0.001) }
        var options = SVGOptions()
        options.densityBoundingBox = GeoBoundingBox(
            minLatitude: 48.84, minLongitude: 2.34, maxLatitude: 48.87,
            maxLongitude: 2.37)
        var grid = DensityGrid(bounds: options.densityBoundingBox!, options: options)
        for t in tracks { grid.add(track: t) }   // as routes finish
        #expect(DensityMapSVG.render(grid: grid, options: options) == DensityMapSVG.render(tracks: tracks, options: options))
        // Two half grids merged equal one.
        var a = DensityGrid(bounds: options.densityBoundingBox!, options: options), b = a
        for t in tracks.prefix(3) { a.add(track: t) }
        for t in tracks.dropFirst(3) { b.add(track: t) }
        a.merge(b)
        #expect(a.counts == grid.counts && a.maximum == grid.maximum && a.points == grid.points)
    }

    @Test func twoMillionPointHistoryStaysSmall() throws {
        // 500 routes of 4 000 points: random walks with momentum around one city, 1 s / ~3 m apart.
        var rng = SynthRandom(seed: 2024, stream: 0, index: 0)
        var stored = DensityTracks()
        for _ in 0..<500 {
            var lat = 48.80 + rng.unit() * 0.12, lon = 2.25 + rng.unit() * 0.2
            var heading = rng.unit() * 2 * Double.pi
            var track: [RoutePoint] = []
            track.reserveCapacity(4000)
            for i in 0..<4000 {
                heading += (rng.unit() - 0.5) * 0.3
                lat += cos(heading) * 3 / Self.metresPerDegree
                lon += sin(heading) * 3 / Self.metresPerDegree / cos(lat * Double.pi / 180)
                track.append(RoutePoint(time: Self.t0 + Int64(i), latitude: lat, longitude: lon))
            }
            stored.add(track: track)
        }
        #expect(stored.points == 2_000_000)
        let clock = ContinuousClock()
        let begin = clock.now
        let grid = stored.grid(options: SVGOptions())
        let bytes = DensityMapSVG.render(grid: grid, options: SVGOptions())
        let elapsed = clock.now - begin
        Self.dump("density.svg", bytes)
        let svg = try Self.parse(bytes)
        let rects = svg.elements("g").first { $0["id"] == "density" }.map { Self.densityRuns($0).count } ?? 0
        print(
            "density.svg for 2 000 000 points: \(bytes.count) bytes (\(String(format: "%.2f", Double(bytes.count) / 1_048_576)) MiB), \(rects) rects, grid \(grid.width)×\(grid.height), max \(grid.maximum), \(elapsed)"
        )
        #expect(bytes.count < 5_000_000)
        #expect(rects > 1000)
    }

    // MARK: Calendar

    @Test func calendarHasOneRectPerDayMonthAndWeekdayLabels() throws {
        // 2023-12-20 … 2024-02-10 (53 days), every third day missing, values 0…
        var values: [(date: String, value: Double)] = []
        let first = Timestamp.daysFromCivil(year: 2023, month: 12, day: 20)
        let last = Timestamp.daysFromCivil(year: 2024, month: 2, day: 10)
        var missing = 0
        for day in first...last {
            let i = Int(day - first)
            if i % 3 == 2 { missing += 1; continue }
            values.append((CalendarHeatmapSVG.dateText(day), Double(5000 + i * 100)))
        }
        values.append(("2024-02-30", 1))   // not a date: ignored
        values.append(("2024-01-05", .nan))   // no value: ignored
        let bytes = CalendarHeatmapSVG.render(metric: "steps", unit: "count", values: values, options: SVGOptions())
        Self.dump("calendar-steps.svg", bytes)
        let svg = try Self.parse(bytes)
        let days = svg.all.filter { $0.name == "rect" && ($0["class"] ?? "").hasPrefix("day") }
        #expect(days.count == 53)
        #expect(days.filter { $0["class"] == "day missing" }.count == missing)
        #expect(svg.elements("text", class: "month").map(\.text) == ["Dec", "Jan", "Feb"])
        #expect(svg.elements("text", class: "year-label").map(\.text) == ["2023", "2024"])
        #expect(
            svg.elements("text", class: "weekday").map(\.text) == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] + [
                "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun",
            ])
        #expect(svg.elements("title").first?.text == "steps per day (count) · 2023-12-20 – 2024-02-10")

        // Scale ends: the 5th and 95th percentiles of the 36 values 5000, 5100, 5300, 5400 … 10100,
        // 10200 (numpy.percentile: 5250 and 9950); the lowest and highest days take the end colours.
        let filled = days.filter { $0["class"] == "day" }
        func rect(_ date: String) -> Node? { days.first { $0.elements("title").first?.text.hasPrefix(date) == true } }
        #expect(rect("2023-12-20")?["fill"] == "#440154")
        #expect(rect("2024-02-10")?["fill"] == "#fde725")
        #expect(rect("2024-02-10")?.elements("title").first?.text == "2024-02-10: 10200 count")
        #expect(filled.count == 53 - missing)
        #expect(svg.elements("text", class: "legend-min").first?.text == "≤ 5250")
        #expect(svg.elements("text", class: "legend-max").first?.text == "≥ 9950 count")
        #expect(
            svg.elements("text", class: "legend-outliers").map(\.text) == [
                "Outliers in the end colours:", "2 days above 9950 (highest 10200 count, 2024-02-10)",
                "2 days below 5250 (lowest 5000 count, 2023-12-20)",
            ])
        #expect(
            svg.elements("desc").first?.text
                == "A calendar of 53 days, one square a day, weeks as columns from Monday to Sunday: 36 days with a value, 17 days without. Colours (viridis, dark to light) span 5250 count to 9950 count (the 5th to 95th percentile of the days); 2 days below and 2 days above take the end colours."
        )
        // Rows are weekdays: 2024-01-01 (a Monday) and 2024-01-08 share a row, a column apart.
        let monday = try #require(rect("2024-01-01")), next = try #require(rect("2024-01-08"))
        let tuesday = try #require(rect("2024-01-02"))
        #expect(monday["y"] == next["y"])
        // 53 week columns beside 44 px of labels in the default 800 px: 13 px apart, days of 11 px.
        #expect(Double(next["x"]!)! - Double(monday["x"]!)! == 13)
        #expect(Double(tuesday["y"]!)! - Double(monday["y"]!)! == 13)
        #expect(monday["width"] == "11")
        #expect(svg["width"] == "800")
        #expect(CalendarHeatmapSVG.weekday(Timestamp.daysFromCivil(year: 2024, month: 1, day: 1)) == 0)
        #expect(CalendarHeatmapSVG.weeks(inYear: 2024) == 53)
        // As wide as the maps: larger days in a wider picture; a given title heads it.
        let wide = try Self.parse(
            CalendarHeatmapSVG.render(
                metric: "steps", unit: "steps", values: values,
                options: SVGOptions(size: 1200), title: "Steps per day"))
        #expect(wide["width"] == "1200")
        #expect(wide.elements("title").first?.text == "Steps per day · 2023-12-20 – 2024-02-10")
        let wideDays = wide.all.filter { $0.name == "rect" && $0["class"] == "day" }
        #expect(wideDays.first?["width"] == "19")
        // Too narrow for 4 px days: as wide as they need.
        let narrow = try Self.parse(CalendarHeatmapSVG.render(metric: "steps", unit: "steps", values: values, options: SVGOptions(size: 100)))
        #expect((Int(narrow["width"] ?? "") ?? 0) > 100)
        #expect(narrow.all.first { $0.name == "rect" && $0["class"] == "day" }?["width"] == "4")
        // Deterministic, whatever the order of the values.
        #expect(CalendarHeatmapSVG.render(metric: "steps", unit: "count", values: values.reversed()) == bytes)
        // No data: still a valid file.
        let empty = try Self.parse(CalendarHeatmapSVG.render(metric: "resting HR", unit: "bpm", values: []))
        #expect(empty.elements("text", class: "note").first?.text == "No data")
    }

    /// 2024-03-04 … 2024-05-02 at 5000, 5100 … 10900 steps, then one day of 1 000 000 steps
    /// (2024-05-03) and two of 0.
    static let outlierCalendar: [(date: String, value: Double)] = {
        let first = Timestamp.daysFromCivil(year: 2024, month: 3, day: 4)
        var values = (0..<60).map { (CalendarHeatmapSVG.dateText(first + Int64($0)), Double(5000 + 100 * $0)) }
        values.append(("2024-05-03", 1_000_000))
        values.append(("2024-05-04", 0))
        values.append(("2024-05-05", 0))
        return values
    }()

    @Test func oneOutlierDayDoesNotPaintEveryOtherDayTheSameColour() throws {
        let values = Self.outlierCalendar
        let bytes = CalendarHeatmapSVG.render(metric: "steps", unit: "steps", values: values, title: "Steps per day")
        Self.dump("calendar-outlier.svg", bytes)
        let svg = try Self.parse(bytes)
        let days = svg.all.filter { $0.name == "rect" && ($0["class"] ?? "").hasPrefix("day") }
        func rect(_ date: String) -> Node? { days.first { $0.elements("title").first?.text.hasPrefix(date) == true } }
        // From the lowest to the highest day, 5000 … 10900 would all sit in the first 1/168 of
        // the scale: entries 0 and 1 of the 256, two fills for sixty days.
        let linear = Set((0..<60).map { ColourScale.viridis.colour(at: Double(100 * $0) / 995_000) })
        #expect(linear.count == 2)
        // Over the 5th to 95th percentile (5300 … 10700, numpy.percentile of the 61 non-zero
        // values) the sixty ordinary days spread over the scale, each step of 100 almost five
        // of its 256 entries: 5000 … 5300 in the first colour, 5400 … 10600 in 53 colours of
        // their own, 10700 … 10900 in the last.
        let ordinary = (0..<60).compactMap {
            rect(CalendarHeatmapSVG.dateText(Timestamp.daysFromCivil(year: 2024, month: 3, day: 4) + Int64($0)))?["fill"]
        }
        #expect(ordinary.count == 60)
        #expect(Set(ordinary).count == 55)
        #expect(rect("2024-03-04")?["fill"] == "#440154")   // 5000: below the range
        #expect(rect("2024-03-07")?["fill"] == "#440154")   // 5300: its low end
        #expect(rect("2024-04-03")?["fill"] == "#21918c")   // 8000: the middle, entry 128
        #expect(rect("2024-04-30")?["fill"] == "#fde725")   // 10700: its high end
        #expect(rect("2024-05-03")?["fill"] == "#fde725")   // the outlier
        // Zero days: their own light grey, no part of the scale (it would otherwise start at 0).
        #expect(rect("2024-05-04")?["class"] == "day zero" && rect("2024-05-04")?["fill"] == "#ebedf0")
        #expect(rect("2024-05-05")?.elements("title").first?.text == "2024-05-05: 0 steps")
        #expect(svg.elements("rect", class: "legend-zero").first?["fill"] == "#ebedf0")
        // The legend: the range's ends, marked as shared with the outliers, and the outliers named.
        #expect(svg.elements("text", class: "legend-min").first?.text == "≤ 5300")
        #expect(svg.elements("text", class: "legend-max").first?.text == "≥ 10700 steps")
        // Too long for one line of an 800 px calendar at about 6 px a character: a heading and a
        // line each.
        #expect(
            svg.elements("text", class: "legend-outliers").map(\.text) == [
                "Outliers in the end colours:", "3 days above 10700 (highest 1000000 steps, 2024-05-03)",
                "3 days below 5300 (lowest 5000 steps, 2024-03-04)",
            ])
        // A wider calendar has room for them on one line.
        var wide = SVGOptions()
        wide.size = 1200
        let wideSVG = try Self.parse(CalendarHeatmapSVG.render(metric: "steps", unit: "steps", values: values, options: wide))
        #expect(
            wideSVG.elements("text", class: "legend-outliers").map(\.text) == [
                "Outliers in the end colours: 3 days above 10700 (highest 1000000 steps, 2024-05-03); 3 days below 5300 (lowest 5000 steps, 2024-03-04)"
            ])
        #expect(svg.elements("text", class: "legend-note").last?.text == "colours span the 5th to 95th percentile of the days, viridis")
        // Accessible: a title and a description, first in the document.
        #expect(svg.children.first?.name == "title" && svg.children.dropFirst().first?.name == "desc")
        #expect(svg.elements("desc").first?.text.contains("2 days of 0 in light grey") == true)
        // Few days: the scale spans the lowest to the highest, no outliers.
        let few = try Self.parse(CalendarHeatmapSVG.render(metric: "steps", unit: "steps", values: Array(values.suffix(12))))
        #expect(few.elements("text", class: "legend-min").first?.text == "10100")
        #expect(few.elements("text", class: "legend-max").first?.text == "1000000 steps")
        #expect(few.elements("text", class: "legend-outliers").isEmpty)
        #expect(few.elements("text", class: "legend-note").last?.text == "linear scale from the lowest to the highest day, viridis")
    }

    @Test func calendarScalePercentilesAndPositions() {
        // numpy.percentile([1, 2, 3, 4, 100] * 4 sorted, [5, 95]) = [1, 100], linear interpolation.
        let twenty = (0..<20).map { Double([1, 2, 3, 4, 100][$0 % 5]) }
        let scale = CalendarScale(values: twenty)
        #expect(scale.low == 1 && scale.high == 100 && scale.isPercentileRange)
        #expect(scale.daysBelow == 0 && scale.daysAbove == 0)
        // 1 … 21: the 5th percentile is 2, the 95th 20 (ranks 1 and 19 of 0…20).
        let ramp = CalendarScale(values: (1...21).map(Double.init).reversed())
        #expect((ramp.low, ramp.high, ramp.daysBelow, ramp.daysAbove) == (2, 20, 1, 1))
        #expect(ramp.position(of: 11) == 0.5 && ramp.position(of: 1) == 0 && ramp.position(of: 50) == 1)
        // One value: every day is the top colour.
        #expect(CalendarScale(values: [7]).position(of: 7) == 1)
        // 96 days of 5, two of 1 and two of 9: both percentiles are 5 (ranks 4.95 and 94.05 of
        // 0…99 fall among the 5s), so the range is one value; the two low days are outliers
        // below it and take the first colour, the two high ones the last.
        let flat = CalendarScale(values: [1, 1, 9, 9] + Array(repeating: 5, count: 96))
        #expect((flat.low, flat.high, flat.daysBelow, flat.daysAbove) == (5, 5, 2, 2))
        #expect(flat.position(of: 1) == 0 && flat.position(of: 5) == 1 && flat.position(of: 9) == 1)
        #expect(CalendarScale(values: []) == CalendarScale(low: 0, high: 0, isPercentileRange: false, daysBelow: 0, daysAbove: 0))
    }

    @Test func calendarValuesReadAsHoursMinutesAndPace() throws {
        #expect(CalendarValueFormat.hoursMinutes.text(452) == "7:32")
        #expect(CalendarValueFormat.hoursMinutes.text(451.6) == "7:32")
        #expect(CalendarValueFormat.hoursMinutes.text(59.5) == "1:00")
        #expect(CalendarValueFormat.hoursMinutes.text(5) == "0:05")
        #expect(CalendarValueFormat.hoursMinutes.text(0) == "0:00")
        #expect(CalendarValueFormat.hoursMinutes.text(-90) == "-1:30")
        #expect(CalendarValueFormat.hoursMinutes.text(1510) == "25:10")
        #expect(CalendarValueFormat.pacePerKilometre.text(307) == "5:07 /km")
        #expect(CalendarValueFormat.pacePerKilometre.text(306.6) == "5:07 /km")
        #expect(CalendarValueFormat.pacePerKilometre.text(59.6) == "1:00 /km")
        #expect(CalendarValueFormat.number.text(8432.4) == "8432" && CalendarValueFormat.number.text(61.5) == "61.5")
        // In a calendar: the tooltips and the legend's ends.
        let sleep: [(date: String, value: Double)] = [("2024-01-01", 452), ("2024-01-02", 390), ("2024-01-03", 550)]
        let svg = try Self.parse(
            CalendarHeatmapSVG.render(
                metric: "sleep", unit: "asleep", values: sleep, title: "Time asleep per night (h:mm)", format: .hoursMinutes))
        #expect(
            svg.elements("rect", class: "day").compactMap { $0.elements("title").first?.text } == [
                "2024-01-01: 7:32 asleep", "2024-01-02: 6:30 asleep", "2024-01-03: 9:10 asleep",
            ])
        #expect(svg.elements("text", class: "legend-min").first?.text == "6:30")
        #expect(svg.elements("text", class: "legend-max").first?.text == "9:10 asleep")
        let pace: [(date: String, value: Double)] = [("2024-01-01", 307), ("2024-01-03", 331.4)]
        let runs = try Self.parse(CalendarHeatmapSVG.render(metric: "pace", unit: "", values: pace, format: .pacePerKilometre))
        #expect(
            runs.elements("rect", class: "day").compactMap { $0.elements("title").first?.text } == [
                "2024-01-01: 5:07 /km", "2024-01-03: 5:31 /km",
            ])
        #expect(runs.elements("text", class: "legend-min").first?.text == "5:07 /km")
        #expect(runs.elements("text", class: "legend-max").first?.text == "5:31 /km")
    }

    /// The issue's case: a calendar starting on Monday 2015-09-28, whose Sep and Oct would both
    /// sit over the first week. Every label is at least the width of three letters of 10 px type
    /// (about 0.6 em each: 18 px) from the next.
    @Test func monthLabelsDoNotOverlap() throws {
        let first = Timestamp.daysFromCivil(year: 2015, month: 9, day: 28)
        let values = (0..<400).map { (CalendarHeatmapSVG.dateText(first + Int64($0)), Double(1000 + $0 % 50)) }
        for size in [800, 100, 1200] {
            let svg = try Self.parse(CalendarHeatmapSVG.render(metric: "steps", unit: "steps", values: values, options: SVGOptions(size: size)))
            let blocks = svg.elements("g", class: "year")
            #expect(blocks.count == 2)
            let months = blocks.map { $0.elements("text", class: "month") }
            #expect(months[0].map(\.text) == ["Oct", "Nov", "Dec"], "\(size)")
            #expect(months[1].map(\.text) == ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct"], "\(size)")
            for labels in months {
                let xs = labels.compactMap { $0["x"].flatMap(Double.init) }
                #expect(xs.count == labels.count)
                #expect(zip(xs, xs.dropFirst()).allSatisfy { $1 - $0 >= 18 }, "\(size): \(xs)")
            }
        }
        // Two weeks of September before October: room for both.
        let september = Timestamp.daysFromCivil(year: 2015, month: 9, day: 14)
        let longer = (0..<40).map { (CalendarHeatmapSVG.dateText(september + Int64($0)), 1.0) }
        let both = try Self.parse(CalendarHeatmapSVG.render(metric: "steps", unit: "steps", values: longer))
        let labels = both.elements("text", class: "month")
        #expect(labels.map(\.text) == ["Sep", "Oct"])
        // 2015-09-14 is in the 38th week column of 2015 (from Monday 2014-12-29), 1 October in the 40th.
        #expect(labels.compactMap { $0["x"] } == ["525", "551"])
    }

    // MARK: Pieces

    @Test func colourScalesAndProjection() {
        #expect(ColourScale.viridis.table.count == 256 && ColourScale.inferno.table.count == 256)
        #expect(ColourScale.viridis.colour(at: 0) == "#440154")
        #expect(ColourScale.viridis.colour(at: 0.5) == "#21918c")
        #expect(ColourScale.viridis.colour(at: 1) == "#fde725")
        #expect(ColourScale.inferno.colour(at: 0) == "#000004")
        #expect(ColourScale.inferno.colour(at: 1) == "#fcffa4")
        #expect(ColourScale.inferno.colour(at: 7) == "#fcffa4" && ColourScale.inferno.colour(at: .nan) == "#000004")
        // Lightness (Rec. 709 luma) rises along both scales.
        for scale in ColourScale.allCases {
            let luma = scale.table.map { v in 0.2126 * Double(v >> 16) + 0.7152 * Double((v >> 8) & 0xFF) + 0.0722 * Double(v & 0xFF) }
            #expect(zip(luma, luma.dropFirst(8)).allSatisfy { $0 < $1 })
        }

        let centre = WebMercator.project(lat: 0, lon: 0)
        #expect(centre.x == 0.5 && abs(centre.y - 0.5) < 1e-15)
        let corner = WebMercator.project(lat: 89, lon: 180)
        #expect(corner.x == 1 && abs(corner.y) < 1e-12)
        #expect(abs(WebMercator.latitude(y: WebMercator.project(lat: 48.85, lon: 2.35).y) - 48.85) < 1e-10)
        #expect(abs(WebMercator.metresPerWorldUnit(atLatitude: 0) - 40_075_016.686) < 0.01)
        #expect(abs(WebMercator.metresPerWorldUnit(atLatitude: 60) - 20_037_508.343) < 0.01)

        var b = SVGBytes()
        b.number(12.25); b.byte(0x20); b.number(-0.04); b.byte(0x20); b.number(3.0); b.byte(0x20); b.number(-7.96)
        b.byte(0x20); b.text("a&b<\u{1}>'\"")
        #expect(String(decoding: b.bytes, as: UTF8.self) == "12.3 0 3 -8 a&amp;b&lt; &gt;&apos;&quot;")
        #expect(SVGFormat.minutesSeconds(4385) == "73:05" && SVGFormat.hoursMinutesSeconds(3725) == "1:02:05")
    }
}

extension DensityTracks {
    static func build(_ tracks: [[RoutePoint]]) -> DensityTracks {
        var t = DensityTracks()
        for track in tracks { t.add(track: track) }
        return t
    }
}

extension SVGRenderingTests {
    /// The density map's runs: each level is a `<path>` of `M x y h w v1 h-w z` boxes.
    static func densityRuns(_ density: Node) -> [(x: Int, y: Int, width: Int, fill: String)] {
        density.elements("path").flatMap { path -> [(x: Int, y: Int, width: Int, fill: String)] in
            let d = (path["d"] ?? "").replacingOccurrences(of: "\n", with: "")
            return d.split(separator: "z").compactMap { box in
                let numbers = box.split(whereSeparator: { !"-0123456789".contains($0) }).compactMap { Int($0) }
                guard numbers.count >= 3 else { return nil }
                return (numbers[0], numbers[1], numbers[2], path["fill"] ?? "")
            }
        }
    }
}
