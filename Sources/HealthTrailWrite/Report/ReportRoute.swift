/// A workout's route as `report.html` draws it: a map coloured by heart rate, the points a
/// hover reads, and a thumbnail for the table, each small enough for a report of hundreds of
/// workouts (simplified to half a view-box unit, hover points thinned to `hoverPoints`).
package struct ReportRoute: Sendable, Equatable {
    /// One point of the route: active points only, in time order.
    package struct Point: Sendable, Equatable {
        /// UTC seconds.
        package var time: Int64
        package var latitude: Double
        package var longitude: Double
        /// Metres above sea level.
        package var elevation: Double?
        /// Heart rate at that moment.
        package var bpm: Double?
        /// Metres along the route.
        package var distance: Double?

        package init(time: Int64, latitude: Double, longitude: Double, elevation: Double?, bpm: Double?, distance: Double?) {
            self.time = time
            self.latitude = latitude
            self.longitude = longitude
            self.elevation = elevation
            self.bpm = bpm
            self.distance = distance
        }
    }

    /// The map's drawing: `<path>` elements of runs of one colour step (or its neighbours), in a view box of
    /// `width` × `height`.
    package var mapPaths: String
    /// The view box's size.
    package var width: Int, height: Int
    /// `x,y,seconds since the start,bpm,pace s/km,elevation` per hover point, `;`-separated,
    /// whole numbers, empty fields where unknown.
    package var hoverData: String
    /// The lowest and highest heart rate the colours span, nil without heart rate.
    package var bpmRange: ClosedRange<Double>?
    /// UTC seconds of the first point: the hover's times count from it.
    package var startTime: Int64
    /// The thumbnail's `points` attribute, in a 60 × 40 box.
    package var thumbnail: String

    /// The map's longest side, in view-box units.
    package static let mapSize = 600.0
    /// The hover points kept at most.
    package static let hoverPoints = 160
    /// The thumbnail's points at most.
    package static let thumbnailPoints = 40
    /// Colour steps of the heart-rate ramp: runs of one step are drawn as one path.
    package static let colourSteps = 24

    /// The route of `points` (at least two), nil for fewer.
    package init?(_ points: [Point]) {
        guard points.count >= 2 else { return nil }
        startTime = points[0].time
        let projected = points.map { WebMercator.project(lat: $0.latitude, lon: $0.longitude) }
        let minX = projected.map(\.x).min()!, maxX = projected.map(\.x).max()!
        let minY = projected.map(\.y).min()!, maxY = projected.map(\.y).max()!
        let span = max(maxX - minX, maxY - minY, 1e-9)
        let scale = Self.mapSize / span
        let margin = 10.0
        width = Int(((maxX - minX) * scale + 2 * margin).rounded(.up))
        height = Int(((maxY - minY) * scale + 2 * margin).rounded(.up))
        let xy = projected.map { (x: ($0.x - minX) * scale + margin, y: ($0.y - minY) * scale + margin) }

        let bpms = points.compactMap(\.bpm).sorted()
        if bpms.isEmpty {
            bpmRange = nil
        } else {
            // The 2nd to 98th percentile: one spike must not wash out the rest of the ramp.
            let low = bpms[bpms.count * 2 / 100], high = bpms[min(bpms.count - 1, bpms.count * 98 / 100)]
            bpmRange = low...max(high, low + 1)
        }

        // The map: simplified to half a view-box unit, each stretch coloured by its mean bpm.
        // Every 30th point is kept too, so that no stretch of one colour runs far past a change.
        let simplified = PolylineSimplification.douglasPeucker(xy, tolerance: 0.5)
        let kept = Array(Set(simplified).union(stride(from: 0, to: points.count, by: 30))).sorted()
        var paths = SVGBytes(capacity: kept.count * 12)
        var runStep: Int?
        for (a, b) in zip(kept, kept.dropFirst()) {
            var sum = 0.0, count = 0.0
            for p in points[a...b] { if let bpm = p.bpm { sum += bpm; count += 1 } }
            let step: Int
            if count > 0, let r = bpmRange {
                let t = ((sum / count) - r.lowerBound) / (r.upperBound - r.lowerBound)
                step = min(Self.colourSteps - 1, max(0, Int(t * Double(Self.colourSteps))))
            } else {
                step = -1
            }
            // A step next to the current one continues its path: heart rate wavering across a
            // step's edge would otherwise start a path at every other stretch.
            if runStep == nil || (step < 0) != (runStep! < 0) || abs(step - runStep!) > 1 {
                if runStep != nil { paths.literal("\"/>") }
                paths.literal("<path class=\"")
                if step < 0 { paths.literal("nohr") } else { paths.literal("h"); paths.int(step) }
                paths.literal("\" d=\"M"); paths.number(xy[a].x, digits: 0); paths.byte(0x20); paths.number(xy[a].y, digits: 0)
                runStep = step
            }
            paths.byte(0x4C); paths.number(xy[b].x, digits: 0); paths.byte(0x20); paths.number(xy[b].y, digits: 0)
        }
        if runStep != nil { paths.literal("\"/>") }
        mapPaths = String(decoding: paths.bytes, as: UTF8.self)

        // Hover points: evenly by time along the route, each with the pace of its neighbourhood.
        let n = min(points.count, Self.hoverPoints)
        var hover = SVGBytes(capacity: n * 24)
        let start = points[0].time
        for k in 0..<n {
            let i = n == 1 ? 0 : k * (points.count - 1) / (n - 1)
            let p = points[i]
            if k > 0 { hover.byte(0x3B) }
            hover.number(xy[i].x, digits: 0); hover.byte(0x2C); hover.number(xy[i].y, digits: 0); hover.byte(0x2C)
            hover.int(Int(p.time - start)); hover.byte(0x2C)
            if let bpm = p.bpm { hover.number(bpm, digits: 0) }
            hover.byte(0x2C)
            let before = points[max(0, i - 10)], after = points[min(points.count - 1, i + 10)]
            if let d0 = before.distance, let d1 = after.distance, d1 - d0 > 1, after.time > before.time {
                hover.number(Double(after.time - before.time) / ((d1 - d0) / 1000), digits: 0)
            }
            hover.byte(0x2C)
            if let ele = p.elevation { hover.number(ele, digits: 0) }
        }
        hoverData = String(decoding: hover.bytes, as: UTF8.self)

        // The thumbnail: the coarsest tolerance that leaves at most `thumbnailPoints` points.
        let thumbScale = min(56 / max(Double(width) - 2 * margin, 1), 36 / max(Double(height) - 2 * margin, 1))
        let thumbXY = xy.map { (x: ($0.x - margin) * thumbScale + 2, y: ($0.y - margin) * thumbScale + 2) }
        var tolerance = 0.5
        var thumbKept = PolylineSimplification.douglasPeucker(thumbXY, tolerance: tolerance)
        while thumbKept.count > Self.thumbnailPoints {
            tolerance *= 2
            thumbKept = PolylineSimplification.douglasPeucker(thumbXY, tolerance: tolerance)
        }
        var thumb = SVGBytes(capacity: thumbKept.count * 6)
        for (k, i) in thumbKept.enumerated() {
            if k > 0 { thumb.byte(0x20) }
            thumb.number(thumbXY[i].x, digits: 0); thumb.byte(0x2C); thumb.number(thumbXY[i].y, digits: 0)
        }
        thumbnail = String(decoding: thumb.bytes, as: UTF8.self)
    }

    /// The colour of ramp step `step` (0 … `colourSteps − 1`): inferno from dark purple to
    /// orange, leaving out its near-black and pale-yellow ends, which vanish on a white page.
    package static func colour(step: Int) -> String {
        let t = 0.12 + 0.72 * (Double(step) + 0.5) / Double(colourSteps)
        return ColourScale.inferno.colour(at: t)
    }
}
