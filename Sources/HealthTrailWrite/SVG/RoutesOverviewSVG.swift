import HealthTrailBase

/// `svg/routes.svg`: every route on one Web Mercator map, coloured by activity
/// (`GeoJSONWriter.colour(forActivity:)`: walks green, runs red, others their own colour).
///
/// Routes are drawn oldest first (by start, then workout id, whatever order they arrive in), each
/// one `<path class="route">` 2.5 px wide at 0.75 opacity so overlaps darken, simplified with
/// Douglas–Peucker at `options.simplificationTolerance` px; then every route's start and end
/// markers above all lines. Routes with fewer than `options.minimumPoints` usable points are
/// left out (and not counted). Routes a run left out because they start outside the map's area
/// are counted under the title (`class="note outside-area"`), never dropped silently. The legend
/// lists the activities drawn with their route counts, most routes first (ties by name); the
/// scale bar sits beside it.
package enum RoutesOverviewSVG {
    package static let titleBand: Double = 48

    /// - Parameter outsideArea: routes not given because they start outside the area drawn.
    package static func render(_ routes: [MapRoute], options: SVGOptions = SVGOptions(), outsideArea: Int = 0) -> [UInt8] {
        render(routes.map { OverviewRoute($0) }, options: options, outsideArea: outsideArea)
    }

    /// A route as the overview needs it: its shape as `Float` latitude, longitude pairs (8 bytes
    /// a point, not a `RoutePoint`'s 70: a long history keeps tens of thousands of them).
    package struct OverviewRoute {
        package var workoutID: String
        package var activity: String
        package var start: Int64
        package var utcOffsetMinutes: Int32
        package var coordinates: [Float]

        package init(workoutID: String, activity: String, start: Int64, utcOffsetMinutes: Int32 = 0, coordinates: [Float]) {
            self.workoutID = workoutID
            self.activity = activity
            self.start = start
            self.utcOffsetMinutes = utcOffsetMinutes
            self.coordinates = coordinates
        }

        package init(_ route: MapRoute) {
            var c: [Float] = []
            c.reserveCapacity(route.points.count * 2)
            for p in route.points { c.append(Float(p.latitude)); c.append(Float(p.longitude)) }
            self.init(
                workoutID: route.workoutID, activity: route.activity, start: route.start,
                utcOffsetMinutes: route.utcOffsetMinutes, coordinates: c)
        }

        /// The points, made when drawn (time only on the first).
        package var points: [RoutePoint] {
            stride(from: 0, to: coordinates.count, by: 2).map {
                RoutePoint(time: start, latitude: Double(coordinates[$0]), longitude: Double(coordinates[$0 + 1]))
            }
        }
    }

    package static func render(_ routes: [OverviewRoute], options: SVGOptions = SVGOptions(), outsideArea: Int = 0) -> [UInt8] {
        let width = options.mapWidth
        var box = WorldBox()
        var drawn: [(route: OverviewRoute, first: Int, last: Int)] = []
        for route in routes {
            let points = route.points
            var usable = 0, first = -1, last = -1
            for (i, p) in points.enumerated() where MapGeometry.isUsable(p) {
                if first < 0 { first = i }
                last = i
                usable += 1
            }
            guard usable >= max(1, options.minimumPoints) else { continue }
            for p in points where MapGeometry.isUsable(p) {
                let w = WebMercator.project(lat: p.latitude, lon: p.longitude)
                box.add(w.x, w.y)
            }
            drawn.append((route, first, last))
        }
        drawn.sort { ($0.route.start, $0.route.workoutID) < ($1.route.start, $1.route.workoutID) }

        var counts: [String: Int] = [:]
        for d in drawn { counts[d.route.activity, default: 0] += 1 }
        let activities = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }

        let frame = MapFrame(box: box, width: width, top: titleBand)
        let legendTop = frame.top + frame.height
        let height = Int((legendTop + 30 + Double(max(activities.count, 1)) * SVGBytes.legendRowHeight + 12).rounded(.up))

        var out = SVGBytes(capacity: 4096 + drawn.reduce(0) { $0 + $1.route.coordinates.count } * 2)
        out.open(width: width, height: height)
        var title = "All routes · \(drawn.count) route" + (drawn.count == 1 ? "" : "s")
        if let a = drawn.first?.route, let b = drawn.last?.route {
            let from = SVGFormat.localDate(a.start, offsetMinutes: a.utcOffsetMinutes)
            let to = SVGFormat.localDate(b.start, offsetMinutes: b.utcOffsetMinutes)
            title += " · " + (from == to ? from : from + " – " + to)
        }
        frame.drawHead(&out, title: title)
        if outsideArea > 0 {
            let routes = outsideArea == 1 ? "1 route starts" : "\(outsideArea) routes start"
            out.textElement(
                "\(routes) outside this area and \(outsideArea == 1 ? "is" : "are") not drawn "
                    + "(the area is where most points lie; each workout keeps its own map)",
                x: 16, y: 44, size: 11, fill: "#666666", cls: "note outside-area")
        }

        var ends: [((x: Double, y: Double), (x: Double, y: Double))] = []
        out.literal(
            "<g class=\"route-lines\" fill=\"none\" stroke-width=\"2.5\" stroke-opacity=\"0.75\" stroke-linecap=\"round\" stroke-linejoin=\"round\">\n"
        )
        for d in drawn {
            let pixels = RoutePath.project(d.route.points, frame: frame)
            out.literal("<path class=\"route\"")
            RoutePath.appendData(&out, pixels, d.first, d.last, tolerance: options.simplificationTolerance)
            out.literal(" stroke=\""); out.text(GeoJSONWriter.colour(forActivity: d.route.activity))
            out.literal("\"><title>"); out.text(d.route.workoutID); out.literal("</title></path>\n")
            ends.append((pixels[d.first], pixels[d.last]))
        }
        out.literal("</g>\n<g class=\"markers\">\n")
        for (start, end) in ends { RoutePath.markers(&out, start: start, end: end, radius: 3.5) }
        out.literal("</g>\n")
        if drawn.isEmpty {
            out.textElement(
                "No route to draw", x: frame.width / 2, y: frame.top + frame.height / 2, size: 16,
                anchor: "middle", fill: "#666666", cls: "note")
        }

        out.literal("<g class=\"legend\">\n")
        out.textElement("Activities (routes)", x: 16, y: legendTop + 22, size: 13, weight: "bold")
        for (i, entry) in activities.enumerated() {
            out.legendRow(
                index: i, top: legendTop + 30,
                colour: GeoJSONWriter.colour(forActivity: entry.key),
                label: SVGFormat.activityTitle(entry.key) + " (\(entry.value))")
        }
        out.literal("</g>\n")
        if !drawn.isEmpty {
            ScaleBar.draw(&out, frame: frame, right: frame.width - 16, y: legendTop + 40)
        }
        out.close()
        return out.bytes
    }
}
