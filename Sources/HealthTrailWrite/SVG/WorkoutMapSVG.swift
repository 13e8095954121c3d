/// `svg/workouts/<workout_id>.svg`: one workout's route on a plain background, coloured by
/// heart-rate zone.
///
/// Layout, top to bottom: a 48 px title band (activity, local date, distance in km with 2
/// decimals, duration h:mm:ss, mean bpm); the map, `options.size` wide and 0.4–1.5 times as tall
/// following the route's shape, in Web Mercator; a legend band listing every zone of `zones`
/// with its colour and time in zone (m:ss), plus "no heart rate" in `noZoneColour` when a
/// segment has none, and the scale bar. The zones are plain names and colours: which zones a run
/// uses is the analysis' business, not the drawing's.
///
/// The route is one `<path class="segment">` per `RouteSegment` (its `colour` as `stroke`, its
/// `opacity` as `stroke-opacity`), 4 px wide with round caps and joins, then a start marker
/// (green) and an end marker (near black). Without segments the route is one
/// `<path class="route">` in the activity's colour. Each segment's points are simplified with
/// Douglas–Peucker at `options.simplificationTolerance` px (its end points, shared with the
/// neighbours, are always kept). A route with fewer than `options.minimumPoints` usable points
/// gives the title, the legend and a "No route to draw" note.
package enum WorkoutMapSVG {
    static let titleBand: Double = 48

    /// A heart-rate zone as the legend shows it: its name and `#rrggbb` colour, in the order of
    /// the zone indices of `route.segments`.
    package typealias Zone = (name: String, colour: String)

    /// The map's SVG bytes.
    package static func render(
        _ route: MapRoute, zones: [Zone], noZoneColour: String, options: SVGOptions = SVGOptions()
    ) -> [UInt8] {
        let width = options.mapWidth
        var box = WorldBox()
        var usable = 0, first = -1, last = -1
        for (i, p) in route.points.enumerated() where MapGeometry.isUsable(p) {
            let w = WebMercator.project(lat: p.latitude, lon: p.longitude)
            box.add(w.x, w.y)
            if first < 0 { first = i }
            last = i
            usable += 1
        }
        for p in route.trimmed where MapGeometry.isUsable(p) {
            let w = WebMercator.project(lat: p.latitude, lon: p.longitude)
            box.add(w.x, w.y)
        }
        let drawn = usable >= max(1, options.minimumPoints)
        let frame = MapFrame(box: box, width: width, top: titleBand)

        // Legend rows: every zone, then "no heart rate" when some drawn segment lacks a zone.
        let lacksZone = drawn && route.segments.contains { $0.zone == nil || $0.zone! >= zones.count }
        let rows = zones.count + (lacksZone ? 1 : 0)
        let legendTop = frame.top + frame.height
        let height = Int((legendTop + 30 + Double(max(rows, 1)) * SVGBytes.legendRowHeight + 12).rounded(.up))

        var out = SVGBytes(capacity: 4096 + route.points.count * 8)
        out.open(width: width, height: height)
        let title = titleText(route)
        frame.drawHead(&out, title: title)

        if drawn {
            let pixels = RoutePath.project(route.points, frame: frame)
            drawTrimmed(&out, route, frame: frame, tolerance: options.simplificationTolerance)
            drawGaps(&out, route, pixels: pixels)
            out.literal("<g class=\"route-lines\" fill=\"none\" stroke-width=\"4\" stroke-linecap=\"round\" stroke-linejoin=\"round\">\n")
            if route.segments.isEmpty {
                out.literal("<path class=\"route\"")
                RoutePath.appendData(&out, pixels, first, last, tolerance: options.simplificationTolerance)
                out.literal(" stroke=\""); out.text(GeoJSONWriter.colour(forActivity: route.activity))
                out.literal("\"/>\n")
            }
            for segment in route.segments {
                // Clamped so a stale index cannot trap; an empty stretch still gets its path
                // (a dot at the nearest point) so paths and segments correspond one to one.
                let a = min(max(segment.first, 0), route.points.count - 1)
                let b = min(max(segment.last, a), route.points.count - 1)
                out.literal("<path class=\"segment\"")
                if !RoutePath.appendData(&out, pixels, a, b, tolerance: options.simplificationTolerance) {
                    let p = pixels[a <= first ? first : last]
                    out.literal(" d=\"M"); out.number(p.x); out.byte(0x20); out.number(p.y)
                    out.literal("L"); out.number(p.x); out.byte(0x20); out.number(p.y); out.byte(0x22)
                }
                out.literal(" stroke=\""); out.text(segment.colour)
                out.literal("\" stroke-opacity=\""); out.number(segment.opacity.clamped(0, 1), digits: 2)
                out.literal("\"/>\n")
            }
            out.literal("</g>\n")
            drawSplitMarks(&out, route, pixels: pixels)
            RoutePath.markers(&out, start: pixels[first], end: pixels[last], radius: 6)
        } else {
            out.textElement(
                "No route to draw", x: frame.width / 2, y: frame.top + frame.height / 2, size: 16,
                anchor: "middle", fill: "#666666", cls: "note")
        }

        // Legend: zones with their time.
        out.literal("<g class=\"legend\">\n")
        out.textElement("Heart-rate zones (time in zone)", x: 16, y: legendTop + 22, size: 13, weight: "bold")
        for (i, zone) in zones.enumerated() {
            let seconds = i < route.timeInZone.count ? route.timeInZone[i] : 0
            out.legendRow(
                index: i, top: legendTop + 30, colour: zone.colour,
                label: zone.name + "  " + SVGFormat.minutesSeconds(seconds))
        }
        if lacksZone {
            out.legendRow(
                index: zones.count, top: legendTop + 30, colour: noZoneColour,
                label: "no heart rate")
        }
        out.literal("</g>\n")
        if drawn {
            ScaleBar.draw(&out, frame: frame, right: frame.width - 16, y: legendTop + 40)
        }
        out.close()
        return out.bytes
    }

    /// The points that count in no figure (paused, outside, driven), greyed under the route: a
    /// `<path class="trimmed">` per stretch.
    static func drawTrimmed(_ out: inout SVGBytes, _ route: MapRoute, frame: MapFrame, tolerance: Double) {
        guard !route.trimmed.isEmpty else { return }
        let pixels = RoutePath.project(route.trimmed, frame: frame)
        out.literal("<g class=\"trimmed-lines\" fill=\"none\" stroke=\"#b0b0b0\" stroke-width=\"3\" stroke-linecap=\"round\">\n")
        for stretch in MapRoute.stretches(of: route.trimmed, cutAt: route.trimmedGaps) {
            out.literal("<path class=\"trimmed\"")
            if RoutePath.appendData(&out, pixels, stretch.lowerBound, stretch.upperBound, tolerance: tolerance) {
                out.literal("/>\n")
            } else {
                out.literal(" d=\"\"/>\n")
            }
        }
        out.literal("</g>\n")
    }

    /// A thin dashed connector across each gap (a pause, between parts, a jump) instead of the
    /// route's line: from the last point before it to the first after.
    static func drawGaps(_ out: inout SVGBytes, _ route: MapRoute, pixels: [(x: Double, y: Double)]) {
        let times = route.points.map(\.time)
        for gap in route.gaps {
            let after = times.partitioningIndex { $0 >= gap.upperBound }
            guard after > 0, after < times.count else { continue }
            let (a, b) = (pixels[after - 1], pixels[after])
            guard a.x.isFinite, b.x.isFinite else { continue }
            out.literal("<path class=\"gap\" d=\"M"); out.number(a.x); out.byte(0x20); out.number(a.y)
            out.literal("L"); out.number(b.x); out.byte(0x20); out.number(b.y)
            out.literal("\" fill=\"none\" stroke=\"#808080\" stroke-width=\"1.5\" stroke-dasharray=\"4 4\"/>\n")
        }
    }

    /// A numbered marker where each split ended, placed along the line by time.
    static func drawSplitMarks(_ out: inout SVGBytes, _ route: MapRoute, pixels: [(x: Double, y: Double)]) {
        guard !route.splitMarks.isEmpty else { return }
        let times = route.points.map { Double($0.time) }
        out.literal("<g class=\"split-marks\">\n")
        for mark in route.splitMarks {
            let k = times.partitioningIndex { $0 >= mark.time }
            guard k < times.count else { continue }
            var p = pixels[k]
            if k > 0 && times[k] > times[k - 1] {
                let f = (mark.time - times[k - 1]) / (times[k] - times[k - 1])
                let q = pixels[k - 1]
                p = (q.x + f * (p.x - q.x), q.y + f * (p.y - q.y))
            }
            guard p.x.isFinite, p.y.isFinite else { continue }
            out.literal("<circle class=\"split-mark\"")
            out.attribute("cx", p.x); out.attribute("cy", p.y); out.attribute("r", 7)
            out.literal(" fill=\"#ffffff\" stroke=\"#333333\" stroke-width=\"1.5\"/>\n")
            out.textElement(mark.label, x: p.x, y: p.y + 3.5, size: 9, anchor: "middle", fill: "#333333", cls: "split-label")
        }
        out.literal("</g>\n")
    }

    /// `Running · 2024-01-02 · 10.02 km · 0:52:13 · 142 bpm` (the bpm part only with heart rate).
    static func titleText(_ route: MapRoute) -> String {
        var parts = [
            SVGFormat.activityTitle(route.activity),
            SVGFormat.localDate(route.start, offsetMinutes: route.utcOffsetMinutes),
            SVGFormat.decimals(route.distanceMeters / 1000, 2) + " km",
            SVGFormat.hoursMinutesSeconds(route.activeSeconds ?? Double(route.end - route.start)),
        ]
        if let bpm = route.meanBPM, bpm.isFinite { parts.append(SVGFormat.decimals(bpm, 0) + " bpm") }
        return parts.joined(separator: " · ")
    }
}

extension Array {
    /// The first index whose element satisfies `isAtOrAfter`, the array being partitioned by it.
    fileprivate func partitioningIndex(where isAtOrAfter: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if isAtOrAfter(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
