import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailBase
@testable import HealthTrailCommit
@testable import HealthTrailDecode
@testable import HealthTrailRun
@testable import HealthTrailWrite

/// The SVG maps rendered by a real browser (Debian's Chromium, headless): what people see.
@Suite(.serialized, .enabled(if: BrowserRendering.isAvailable, "chromium is not installed: browser tests skipped"))
struct MapRenderingTests {
    /// Writes `bytes` as an SVG and renders it at its own size.
    func render(_ bytes: [UInt8], name: String) throws -> PNGImage {
        let path = Support.temporaryDirectory(name) + "/\(name).svg"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let text = String(decoding: bytes, as: UTF8.self)
        let width = try #require(Self.attribute("width", text)), height = try #require(Self.attribute("height", text))
        return try BrowserRendering.render(svgPath: path, width: width, height: height)
    }

    static func attribute(_ name: String, _ svg: String) -> Int? {
        guard let r = svg.range(of: " \(name)=\"") else { return nil }
        return Int(svg[r.upperBound...].prefix { $0.isNumber })
    }

    /// Bounding box and count of the pixels close to `hex` inside `area`.
    static func box(
        of hex: String, tolerance: Int, in area: (minX: Int, minY: Int, maxX: Int, maxY: Int),
        _ image: PNGImage
    ) -> (minX: Int, minY: Int, maxX: Int, maxY: Int, count: Int)? {
        var result: (minX: Int, minY: Int, maxX: Int, maxY: Int, count: Int)?
        for y in area.minY...area.maxY {
            for x in area.minX...area.maxX where close(image.pixel(x: x, y: y), hex, tolerance: tolerance) {
                if let r = result {
                    result = (min(r.minX, x), min(r.minY, y), max(r.maxX, x), max(r.maxY, y), r.count + 1)
                } else {
                    result = (x, y, x, y, 1)
                }
            }
        }
        return result
    }

    /// `fg` at `opacity` over `bg`, as the browser composites it.
    static func blend(_ fg: String, _ opacity: Double, over bg: String) -> String {
        func rgb(_ hex: String) -> [Double] {
            let v = Int(hex.dropFirst(), radix: 16)!
            return [Double(v >> 16 & 255), Double(v >> 8 & 255), Double(v & 255)]
        }
        let mixed = zip(rgb(fg), rgb(bg)).map { Int(($0 * opacity + $1 * (1 - opacity)).rounded()) }
        return String(format: "#%02x%02x%02x", mixed[0], mixed[1], mixed[2])
    }

    /// A run heading east: the first half at 200 bpm (top of the maximum zone, drawn opaque red),
    /// the second at 60 bpm (resting blue, drawn at 0.76 opacity over the map's background).
    @Test func theRoutesStartIsDrawnInItsZonesColour() throws {
        let zones = HeartRateZones.fourBands
        let start: Int64 = 1_717_228_800
        let points = (0...400).map { i in
            RoutePoint(
                time: start + Int64(i), latitude: 48.85, longitude: 2.30 + Double(i) * 0.0001,
                bpm: i <= 200 ? 200 : 60)
        }
        let segments = RouteGeometry.segments(points, zones: zones)
        let route = MapRoute(
            workoutID: "w", activity: "running", start: start, end: start + 400, distanceMeters: 2900,
            meanBPM: 130, timeInZone: [200, 0, 0, 200], points: points, segments: segments)
        let image = try render(WorkoutMapSVG.render(route, zones: zones), name: "workout")
        // The map area only: the title above and the legend's zone swatches below are left out.
        let mapArea = (minX: 0, minY: 50, maxX: image.width - 1, maxY: image.height - 130)

        let red = try #require(Self.box(of: zones.zones[3].colour, tolerance: 6, in: mapArea, image), "no maximum-zone red drawn")
        let blueHex = Self.blend(zones.zones[0].colour, zones.opacity(for: 60), over: "#f4f3ef")
        let blue = try #require(Self.box(of: blueHex, tolerance: 8, in: mapArea, image), "no resting blue (\(blueHex)) drawn")
        #expect(red.count > 200 && blue.count > 200)
        // West (left) is where the run starts: that end is red, the east end blue.
        #expect(red.minX < blue.minX)
        #expect(red.maxX <= blue.minX + 8)
        #expect(abs((red.minY + red.maxY) / 2 - (blue.minY + blue.maxY) / 2) <= 2)   // one straight line
    }

    /// Thirty passes along one north–south street, one crossing east–west: the street's cells are
    /// the busiest and must be the brightest of the map (the top colour of the scale).
    @Test func theBusiestCellsAreTheBrightest() throws {
        let busy = (0..<30).map { k in
            (0...200).map { i in RoutePoint(time: Int64(k * 1000 + i), latitude: 48.80 + Double(i) * 0.0005, longitude: 2.35) }
        }
        let crossing = (0...200).map { i in RoutePoint(time: Int64(i), latitude: 48.85, longitude: 2.30 + Double(i) * 0.0005) }
        let options = SVGOptions()
        let svg = DensityMapSVG.render(tracks: busy + [crossing], options: options)
        let image = try render(svg, name: "density")
        let top = options.colourScale.colour(at: 1)

        // Only the map area: the legend's colour bar at the bottom also shows the top colour.
        let mapArea = (minX: 0, minY: 40, maxX: image.width - 1, maxY: image.height - 110)
        func luminance(_ p: PNGImage.Pixel) -> Int { 2126 * p.r + 7152 * p.g + 722 * p.b }
        var brightest = (x: 0, y: 0, value: -1)
        for y in mapArea.minY...mapArea.maxY {
            for x in mapArea.minX...mapArea.maxX {
                let v = luminance(image.pixel(x: x, y: y))
                if v > brightest.value { brightest = (x, y, v) }
            }
        }
        #expect(close(image.pixel(x: brightest.x, y: brightest.y), top, tolerance: 4))
        let street = try #require(image.boundingBox(of: top, tolerance: 4), "the top colour is not drawn")
        // The top colour forms the north–south street: tall and narrow, not the crossing road.
        #expect(street.maxY - street.minY > 8 * (street.maxX - street.minX + 1))
        #expect(image.count(of: top, tolerance: 4, in: mapArea) > 100)
    }

    /// The issue's calendar, starting on Monday 2015-09-28: in the browser, the month labels of
    /// the 2015 block are separate marks of ink, one per label, each starting at its label's x
    /// and ending before the next label begins.
    @Test func calendarMonthLabelsDoNotOverlapOnScreen() throws {
        let first = Timestamp.daysFromCivil(year: 2015, month: 9, day: 28)
        let values = (0..<200).map { (CalendarHeatmapSVG.dateText(first + Int64($0)), Double(1000 + $0 % 50)) }
        let bytes = CalendarHeatmapSVG.render(metric: "steps", unit: "steps", values: values)
        let image = try render(bytes, name: "calendar-months")
        let text = String(decoding: bytes, as: UTF8.self)
        // The 2015 block's labels: `<text class="month" x="…"` before the 2016 block.
        let block2015 = String(text[..<(text.range(of: ">2016<")?.lowerBound ?? text.endIndex)])
        let xs = block2015.components(separatedBy: "<text class=\"month\" x=\"").dropFirst().compactMap { Double($0.prefix { $0 != "\"" }) }
        #expect(xs.count == 3)
        // Ink (a pixel darker than light grey) in the month row: baseline 56, 10 px type, right of
        // the year label. Columns with ink, split where at least four blank columns separate them.
        let inked = (Int(CalendarHeatmapSVG.left) - 2..<image.width).filter { x in
            (45...59).contains { y in
                let p = image.pixel(x: x, y: y); return p.a > 0 && min(p.r, p.g, p.b) < 200
            }
        }
        var marks: [(minX: Int, maxX: Int)] = []
        for x in inked {
            if let last = marks.last, x - last.maxX <= 4 { marks[marks.count - 1].maxX = x } else { marks.append((x, x)) }
        }
        #expect(marks.count == xs.count, "ink runs \(marks), labels at \(xs)")
        for (mark, x) in zip(marks, xs) { #expect(abs(Double(mark.minX) - x) <= 2, "\(mark) vs \(x)") }
        for (mark, next) in zip(marks, xs.dropFirst()) { #expect(Double(mark.maxX) < next, "\(mark) reaches \(next)") }
    }

    /// A narrow calendar (`--svg-size 360`) with outliers above and below: in the browser, each
    /// line of the legend's outliers ends inside the picture instead of running off its edge.
    @Test func calendarOutliersFitANarrowCalendarOnScreen() throws {
        let first = Timestamp.daysFromCivil(year: 2024, month: 1, day: 1)
        var values = (0..<120).map { (CalendarHeatmapSVG.dateText(first + Int64($0)), Double(5000 + ($0 * 37) % 5000)) }
        values[10].1 = 1_000_000
        values[11].1 = 900_000
        values[20].1 = 3
        values[21].1 = 2
        var options = SVGOptions()
        options.size = 360
        let bytes = CalendarHeatmapSVG.render(metric: "steps", unit: "steps", values: values, options: options)
        let text = String(decoding: bytes, as: UTF8.self)
        let width = try #require(Self.attribute("width", text))
        let baselines = text.components(separatedBy: "<text class=\"legend-outliers\" x=\"16\" y=\"").dropFirst()
            .compactMap { Double($0.prefix { $0 != "\"" }) }
        #expect(baselines.count == 3, "a heading and the two outlier phrases on a line each at \(width) px")
        let image = try render(bytes, name: "calendar-narrow-outliers")
        for baseline in baselines {
            // 10 px type: ink from 9 px above the baseline to 3 px below it.
            let rows = (Int(baseline) - 9)...(Int(baseline) + 3)
            let inked = (0..<min(width, image.width)).filter { x in
                rows.contains { y in
                    let p = image.pixel(x: x, y: y); return p.a > 0 && min(p.r, p.g, p.b) < 200
                }
            }
            let right = try #require(inked.last, "no ink on the outliers line at \(baseline)")
            #expect(right < width - 4, "the outliers line at \(baseline) reaches the edge (\(right) of \(width) px)")
        }
    }
}

/// The area the overview and density maps cover when none is given.
@Suite struct MapCoreAreaTests {
    /// Tracks around a centre: `count` points on a small square.
    static func track(_ tracks: MapTracks, lat: Double, lon: Double, points: Int) {
        var route: [RoutePoint] = []
        for i in 0..<points {
            let dLat = Double(i % 10) * 0.001, dLon = Double((i / 10) % 10) * 0.001
            route.append(RoutePoint(time: Int64(i), latitude: lat + dLat, longitude: lon + dLon))
        }
        tracks.add(workoutID: "w\(lat)\(lon)", activity: "running", points: route)
    }

    @Test func tripsAbroadDoNotStretchTheMapEvenWhenFrequent() throws {
        // 8 % of the points in New York: percentiles alone would span the Atlantic.
        let tracks = MapTracks()
        Self.track(tracks, lat: 48.85, lon: 2.33, points: 9200)
        Self.track(tracks, lat: 40.78, lon: -73.97, points: 800)
        let box = try #require(try MapOutputs.coreArea(of: tracks))
        #expect(box.minLatitude > 48.8 && box.maxLatitude < 48.9)
        #expect(box.minLongitude > 2.3 && box.maxLongitude < 2.4)
    }

    /// Five trips abroad once vanished from `svg/routes.svg` without a word (46 routes drawn,
    /// 51 in the CSV): they are counted in its caption and returned for the manifest.
    @Test func routesLeftOutOfTheOverviewAreSaid() throws {
        let tracks = MapTracks()
        for k in 0..<46 { Self.track(tracks, lat: 48.85 + Double(k % 5) * 0.0001, lon: 2.33, points: 200) }
        for k in 0..<5 { Self.track(tracks, lat: 40.78 + Double(k) * 0.001, lon: -73.97, points: 200) }
        let staging = try OutputStaging(outputDirectory: Support.temporaryDirectory())
        defer { staging.discard() }
        let outside = try MapOutputs.writeOverviewAndDensity(
            tracks, options: SVGOptions(), kinds: [.routes],
            staging: staging)
        #expect(outside == 5)
        let svg = try String(contentsOfFile: try staging.path("svg/routes.svg"), encoding: .utf8)
        #expect(svg.contains("<title>All routes · 46 routes"))
        #expect(svg.contains("class=\"note outside-area\""))
        #expect(svg.contains(">5 routes start outside this area and are not drawn"))
        #expect(svg.components(separatedBy: "<path class=\"route\"").count - 1 == 46)

        // Nothing left out, nothing said.
        let home = MapTracks()
        Self.track(home, lat: 48.85, lon: 2.33, points: 200)
        let quiet = try OutputStaging(outputDirectory: Support.temporaryDirectory())
        defer { quiet.discard() }
        #expect(try MapOutputs.writeOverviewAndDensity(home, options: SVGOptions(), kinds: [.routes], staging: quiet) == 0)
        #expect(!(try String(contentsOfFile: try quiet.path("svg/routes.svg"), encoding: .utf8)).contains("outside-area"))
        // No overview drawn: no count.
        #expect(try MapOutputs.writeOverviewAndDensity(home, options: SVGOptions(), kinds: [.density], staging: quiet) == nil)
    }

    /// Through a whole run: manifest.json's `routes.svg_routes_outside_area`.
    @Test func theManifestCountsRoutesLeftOutOfTheOverview() throws {
        let dir = Support.temporaryDirectory()
        var body = "", entries: [(String, String)] = []
        for (k, place) in [(48.85, 2.33), (48.851, 2.331), (48.852, 2.332), (40.78, -73.97)].enumerated() {
            let day = String(format: "2024-06-%02d", k + 1), name = "route_\(day).gpx"
            body += """
                 <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="W" startDate="\(day) 10:00:00 +0000" endDate="\(day) 10:10:00 +0000">
                  <WorkoutRoute sourceName="W" startDate="\(day) 10:00:00 +0000" endDate="\(day) 10:10:00 +0000">
                   <FileReference path="/workout-routes/\(name)"/>
                  </WorkoutRoute>
                 </Workout>

                """
            var gpx = "<gpx><trk><trkseg>\n"
            for i in 0..<20 {
                gpx +=
                    "<trkpt lat=\"\(place.0 + Double(i) * 0.0001)\" lon=\"\(place.1)\"><time>\(day)T10:00:\(String(format: "%02d", i))Z</time></trkpt>\n"
            }
            entries.append(("apple_health_export/workout-routes/\(name)", gpx + "</trkseg></trk></gpx>\n"))
        }
        try Support.makeZip(dir + "/export.zip", [("apple_health_export/export.xml", Support.exportXML(body))] + entries)
        let manifest = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out"))
        #expect(manifest.routes.svgRoutesOutsideArea == 1)
        let json = try String(contentsOfFile: dir + "/out/manifest.json", encoding: .utf8)
        #expect(json.contains("\"svg_routes_outside_area\""))
        #expect(
            try String(contentsOfFile: dir + "/out/svg/routes.svg", encoding: .utf8).contains("1 route starts outside this area and is not drawn"))
    }

    @Test func homeIsWhereMostPointsAreWhateverTheOrder() throws {
        let tracks = MapTracks()
        Self.track(tracks, lat: -33.87, lon: 151.2, points: 300)   // a trip, first in the file
        Self.track(tracks, lat: -37.81, lon: 144.96, points: 2000)   // home: Melbourne
        let box = try #require(try MapOutputs.coreArea(of: tracks))
        #expect(box.minLatitude > -37.9 && box.maxLatitude < -37.7 && box.minLongitude > 144.9 && box.maxLongitude < 145.0)
    }
}
