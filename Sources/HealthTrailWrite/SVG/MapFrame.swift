import HealthTrailBase

/// Pieces the route maps share: which points are drawable, the fitting of Web Mercator world
/// units into the map's pixels, the scale bar and the lines of a route.
package enum MapGeometry {
    /// What a map can place: finite WGS84 degrees in range.
    @inline(__always)
    package static func isUsable(_ p: RoutePoint) -> Bool {
        p.latitude >= -90 && p.latitude <= 90 && p.longitude >= -180 && p.longitude <= 180
    }

    /// Smallest extent a map shows, metres: a route of one spot (or a few metres) is drawn at a
    /// street scale rather than blown up to fill the page.
    package static let minimumSpanMetres: Double = 200

    /// Margin inside the map area, pixels: room for the line width and the markers.
    package static let margin: Double = 24
}

/// A box in world units (`WebMercator.project`), y down.
package struct WorldBox {
    package var minX = Double.infinity, minY = Double.infinity
    package var maxX = -Double.infinity, maxY = -Double.infinity

    package var isEmpty: Bool { !(minX <= maxX && minY <= maxY) }

    package mutating func add(_ x: Double, _ y: Double) {
        minX = min(minX, x); maxX = max(maxX, x)
        minY = min(minY, y); maxY = max(maxY, y)
    }

    package init() {}

    package init(_ box: GeoBoundingBox) {
        let a = WebMercator.project(lat: box.maxLatitude, lon: box.minLongitude)
        let b = WebMercator.project(lat: box.minLatitude, lon: box.maxLongitude)
        add(a.x, a.y)
        add(b.x, b.y)
    }

    /// At least `metres` across in both directions (grown about the centre), measured at the
    /// box's middle latitude; an empty box becomes that span around (0°, 0°).
    package func atLeast(metres: Double) -> WorldBox {
        var b = self
        if b.isEmpty { b = WorldBox(); b.add(0.5, 0.5) }
        let lat = WebMercator.latitude(y: (b.minY + b.maxY) / 2)
        let span = metres / WebMercator.metresPerWorldUnit(atLatitude: lat)
        if b.maxX - b.minX < span {
            let c = (b.minX + b.maxX) / 2
            b.minX = c - span / 2; b.maxX = c + span / 2
        }
        if b.maxY - b.minY < span {
            let c = (b.minY + b.maxY) / 2
            b.minY = c - span / 2; b.maxY = c + span / 2
        }
        return b
    }

    /// Grown by `fraction` of its width and height on every side.
    package func padded(_ fraction: Double) -> WorldBox {
        var b = self
        let px = (maxX - minX) * fraction, py = (maxY - minY) * fraction
        b.minX -= px; b.maxX += px; b.minY -= py; b.maxY += py
        return b
    }
}

/// World units → pixels for a map `width` wide whose top edge is at `top`.
///
/// The inner area (`width` less a margin on each side) takes the box's aspect ratio, clamped so
/// the map is 0.4 to 1.5 times as tall as it is wide; the box is scaled uniformly (Mercator
/// must not be stretched) and centred.
package struct MapFrame {
    package let width: Double
    package let top: Double
    package let height: Double
    /// Pixels per world unit.
    package let scale: Double
    package let offsetX: Double
    package let offsetY: Double
    /// The box drawn (after `atLeast`).
    package let box: WorldBox

    package init(box: WorldBox, width: Int, top: Double, margin: Double = MapGeometry.margin) {
        let box = box.atLeast(metres: MapGeometry.minimumSpanMetres)
        let w = Double(width)
        let innerW = max(1, w - 2 * margin)
        let bw = box.maxX - box.minX, bh = box.maxY - box.minY
        let innerH = (innerW * bh / bw).clamped(0.4 * innerW, 1.5 * innerW).rounded()
        let s = min(innerW / bw, innerH / bh)
        self.width = w
        self.top = top
        self.height = innerH + 2 * margin
        self.scale = s
        self.offsetX = margin + (innerW - bw * s) / 2 - box.minX * s
        self.offsetY = top + margin + (innerH - bh * s) / 2 - box.minY * s
        self.box = box
    }

    @inline(__always)
    package func pixel(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        (x * scale + offsetX, y * scale + offsetY)
    }

    @inline(__always)
    package func pixel(_ p: RoutePoint) -> (x: Double, y: Double) {
        let w = WebMercator.project(lat: p.latitude, lon: p.longitude)
        return pixel(w.x, w.y)
    }

    /// Ground metres per pixel at the middle latitude of the box.
    package var metresPerPixel: Double {
        let lat = WebMercator.latitude(y: (box.minY + box.maxY) / 2)
        return WebMercator.metresPerWorldUnit(atLatitude: lat) / scale
    }
}

extension Double {
    package func clamped(_ lo: Double, _ hi: Double) -> Double { Swift.min(hi, Swift.max(lo, self)) }
}

/// The scale bar: a round length (1, 2 or 5 × 10ⁿ metres) no longer than a quarter of the width.
package enum ScaleBar {
    /// The longest of 1, 2, 5 × 10ⁿ metres (n ≥ 0) at most `maxMetres`; 1 m below that.
    package static func roundLength(atMost maxMetres: Double) -> Double {
        guard maxMetres.isFinite, maxMetres > 1 else { return 1 }
        var unit = 1.0
        while unit * 10 <= maxMetres { unit *= 10 }
        for m in [5.0, 2.0, 1.0] where m * unit <= maxMetres { return m * unit }
        return unit
    }

    /// `500 m`, `1 km`, `20 km`.
    package static func label(_ metres: Double) -> String {
        metres >= 1000 ? SVGFormat.label(metres / 1000) + " km" : SVGFormat.label(metres) + " m"
    }

    /// Draws the bar with its right end at `right`, its line at `y`.
    package static func draw(_ out: inout SVGBytes, frame: MapFrame, right: Double, y: Double) {
        draw(&out, metresPerPixel: frame.metresPerPixel, width: frame.width, right: right, y: y)
    }

    /// Draws the bar for a map `width` px wide at `metresPerPixel`.
    package static func draw(
        _ out: inout SVGBytes, metresPerPixel mpp: Double, width: Double, right: Double, y: Double,
        dark: Bool = false
    ) {
        let metres = roundLength(atMost: mpp * width / 4)
        let length = metres / mpp
        let left = right - length
        let ink: StaticString = dark ? "#e0e0e0" : "#222222"
        out.literal("<g id=\"scale-bar\" fill=\"none\" stroke=\""); out.literal(ink)
        out.literal("\" stroke-width=\"2\">\n<path d=\"M")
        out.number(left); out.byte(0x20); out.number(y - 5)
        out.literal("V"); out.number(y); out.literal("H"); out.number(right)
        out.literal("V"); out.number(y - 5); out.literal("\"/>\n</g>\n")
        out.textElement(
            label(metres), x: (left + right) / 2, y: y - 8, size: 12, anchor: "middle",
            fill: ink, cls: "scale-label")
    }
}

/// Route lines as path data: projected, simplified, rounded to 0.1 px.
package enum RoutePath {
    /// Pixel positions of `points` (NaN for unusable points).
    package static func project(_ points: [RoutePoint], frame: MapFrame) -> [(x: Double, y: Double)] {
        points.map { MapGeometry.isUsable($0) ? frame.pixel($0) : (Double.nan, Double.nan) }
    }

    /// Appends ` d="M…L…"` for `pixels[a...b]` (usable ones), Douglas–Peucker simplified at
    /// `tolerance` px, consecutive duplicates after rounding dropped. Returns false (writing
    /// nothing) when the stretch has no usable point.
    @discardableResult
    package static func appendData(
        _ out: inout SVGBytes, _ pixels: [(x: Double, y: Double)], _ a: Int, _ b: Int,
        tolerance: Double
    ) -> Bool {
        var stretch: [(x: Double, y: Double)] = []
        stretch.reserveCapacity(b - a + 1)
        for i in a...b where pixels[i].x.isFinite { stretch.append(pixels[i]) }
        guard !stretch.isEmpty else { return false }
        let kept = PolylineSimplification.douglasPeucker(stretch, tolerance: tolerance)
        out.literal(" d=\"M")
        var lastX = Int64.min, lastY = Int64.min
        var count = 0
        for k in kept {
            let p = stretch[k]
            let rx = Int64((p.x * 10).rounded()), ry = Int64((p.y * 10).rounded())
            if rx == lastX && ry == lastY { continue }
            if count == 1 { out.byte(0x4C) } else if count > 1 { out.byte(0x20) }
            out.number(p.x); out.byte(0x20); out.number(p.y)
            lastX = rx; lastY = ry
            count += 1
        }
        // A stretch standing on one pixel is still a visible dot with round caps.
        if count == 1 { out.byte(0x4C); out.number(stretch[0].x); out.byte(0x20); out.number(stretch[0].y) }
        out.byte(0x22)
        return true
    }

    /// Start and end markers: green and near black circles with a white ring (the GeoJSON's
    /// `marker-color`s).
    package static func markers(
        _ out: inout SVGBytes, start: (x: Double, y: Double), end: (x: Double, y: Double),
        radius: Double
    ) {
        out.literal("<circle class=\"marker start\"")
        out.attribute("cx", start.x); out.attribute("cy", start.y); out.attribute("r", radius)
        out.literal(" fill=\""); out.plain(GeoJSONWriter.startColour)
        out.literal("\" stroke=\"#ffffff\" stroke-width=\""); out.number(radius / 3); out.literal("\"/>\n")
        out.literal("<circle class=\"marker end\"")
        out.attribute("cx", end.x); out.attribute("cy", end.y); out.attribute("r", radius)
        out.literal(" fill=\""); out.plain(GeoJSONWriter.endColour)
        out.literal("\" stroke=\"#ffffff\" stroke-width=\""); out.number(radius / 3); out.literal("\"/>\n")
    }
}

extension MapFrame {
    /// The document's `<title>`, white page, the map area's paper colour and the bold title line:
    /// the same head on every map.
    package func drawHead(_ out: inout SVGBytes, title: String) {
        out.literal("<title>"); out.text(title); out.literal("</title>\n")
        out.literal("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n")
        out.literal("<rect class=\"map-area\" x=\"0\""); out.attribute("y", top)
        out.attribute("width", width); out.attribute("height", height)
        out.literal(" fill=\"#f4f3ef\"/>\n")
        out.textElement(title, x: 16, y: 30, size: 18, weight: "bold", cls: "title")
    }
}
