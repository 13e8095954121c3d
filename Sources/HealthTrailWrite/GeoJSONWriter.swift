import HealthTrailArchive
import HealthTrailBase

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `routes.geojson`: an RFC 7946 FeatureCollection of workout routes, styled for geojson.io
/// (simplestyle-spec keys) and loadable in QGIS, kepler.gl, Leaflet and GeoPandas.
///
/// Per route, in this order:
/// 1. the whole route, a `LineString` with `kind: "route"`, the workout's id, activity, route
///    file, times, distance, duration, mean heart rate and its activity's `colour` / `stroke`;
///    a `MultiLineString` of its stretches when gaps (pauses, parts, GPS jumps) cut it, so that no
///    line crosses a pause (with `includeTimes`, one `LineString`: kepler.gl's trip layer reads
///    no other);
/// 2. one `LineString` per segment (`kind: "segment"`), coloured by heart-rate zone;
/// 3. `Point`s at the first and last positions (`kind: "start"` / `"end"`).
///
/// A route with a single usable point is one `Point` feature carrying the route's properties
/// (`kind: "route"`), since a `LineString` needs two positions (RFC 7946 §3.1.4); a route with
/// none writes nothing. Points whose latitude or longitude is not finite or outside WGS84's
/// range are left out of every geometry.
///
/// Positions are `[longitude, latitude]` with at most 6 decimals (about 0.1 m, RFC 7946 §11.2),
/// trailing zeros trimmed. With `includeTimes` every position is instead
/// `[longitude, latitude, elevation, unix seconds]` (elevation 0 when the point has none): the
/// format of kepler.gl's trip layer, which animates a `LineString` whose positions carry the
/// time as a fourth element. RFC 7946 §3.1.1 says positions SHOULD NOT have more than three
/// elements, and strict validators (Python's `geojson`) reject them, so the plain output stays
/// two-dimensional; elevation is not written there because GPS altitude is noisy and some
/// points lack it (a line mixing 2- and 3-element positions is worse than none).
/// kepler.gl decides whether a file is a trip file from its first feature, so with
/// `includeTimes` the first route written should have two points or more.
///
/// No `crs` member (removed by RFC 7946) and no `bbox`. UTF-8 without a byte-order mark, one
/// feature per line, the same bytes for the same routes. Bytes are assembled in a buffer (the
/// sink is a header-less `CSVWriter`: owner-only 0600, buffered, fsync on close), with no
/// `String` or encoder per coordinate: routes hold millions of points.
///
/// A second thread can write its share of routes into a part file (`part: true`) that the first
/// thread appends with `append(featuresOf:)`. Not thread-safe: one writer per thread.
package final class GeoJSONWriter {
    /// The file being written.
    package let path: String
    /// Whether positions carry elevation and time (kepler.gl's trip format).
    package let includeTimes: Bool
    /// A part file holds only comma-separated features, to be appended to a full file.
    package let isPart: Bool
    /// Features written so far (every `Feature` object, segments and markers included).
    package private(set) var features: Int = 0
    /// Routes that produced at least one feature.
    package private(set) var routes: Int = 0

    private let out: CSVWriter
    private var closed = false

    /// Creates the file owner-only (0600). A full file gets the FeatureCollection's opening now
    /// and its closing in `close()`; with `part: true` the file holds only comma-separated
    /// features, for a second thread's share that `append(featuresOf:)` adds later.
    package init(path: String, includeTimes: Bool, part: Bool = false) throws {
        self.path = path
        self.includeTimes = includeTimes
        isPart = part
        out = try CSVWriter(path: path, header: [])
        if !part { literal("{\"type\":\"FeatureCollection\",\"features\":[") }
    }

    // MARK: Routes

    /// Writes the route's features (see the type's description). Write errors surface in `close()`.
    package func add(_ route: RouteFeature) {
        precondition(!closed, "GeoJSONWriter.add after close")
        let points = route.points
        var usable = 0, first = -1, last = -1
        for i in points.indices where Self.isUsable(points[i]) {
            if first < 0 { first = i }
            last = i
            usable += 1
        }
        guard usable > 0 else { return }
        routes += 1
        let colour = Self.colour(forActivity: route.activity)

        if usable == 1 {
            beginFeature()
            literal("{\"type\":\"Feature\",\"properties\":{\"kind\":\"route\"")
            routeProperties(route, colour)
            literal(",\"time_utc\":"); quotedUTC(points[first].time)
            literal(",\"marker-color\":"); string(colour)
            literal("},\"geometry\":{\"type\":\"Point\",\"coordinates\":")
            position(points[first])
            literal("}}")
            return
        }

        beginFeature()
        literal("{\"type\":\"Feature\",\"properties\":{\"kind\":\"route\"")
        routeProperties(route, colour)
        // Stretches between gaps with a line of their own: no line is drawn across a pause.
        let lines =
            includeTimes
            ? []
            : route.stretches.filter {
                $0.lowerBound >= 0 && $0.upperBound < points.count && hasLine(points, $0.lowerBound, $0.upperBound)
            }
        if lines.count > 1 {
            literal("},\"geometry\":{\"type\":\"MultiLineString\",\"coordinates\":[")
            for (k, line) in lines.enumerated() {
                if k > 0 { out.byte(0x2C) }
                out.byte(0x5B)
                positions(points, line.lowerBound, line.upperBound)
                out.byte(0x5D)
            }
            literal("]}}")
        } else {
            let line = lines.first ?? first...last
            literal("},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[")
            positions(points, line.lowerBound, line.upperBound)
            literal("]}}")
        }

        for (index, segment) in route.segments.enumerated() {
            // Clamped so a stale index cannot trap; a stretch left with one position has no line.
            let a = max(segment.first, 0), b = min(segment.last, points.count - 1)
            guard a < b, hasLine(points, a, b) else { continue }
            beginFeature()
            literal("{\"type\":\"Feature\",\"properties\":{\"kind\":\"segment\",\"workout_id\":")
            string(route.workoutID)
            literal(",\"segment\":"); out.int(Int64(index))
            literal(",\"zone\":")
            if let z = segment.zone, z >= 0, z < route.zoneNames.count { string(route.zoneNames[z]) } else { literal("null") }
            literal(",\"mean_bpm\":"); number(segment.meanBPM, digits: 1)
            literal(",\"colour\":"); string(segment.colour)
            literal(",\"opacity\":"); number(segment.opacity, digits: 2)
            literal(",\"stroke\":"); string(segment.colour)
            literal(",\"stroke-opacity\":"); number(segment.opacity, digits: 2)
            literal(",\"stroke-width\":4},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[")
            positions(points, a, b)
            literal("]}}")
        }

        marker("start", route.workoutID, points[first], colour: Self.startColour)
        marker("end", route.workoutID, points[last], colour: Self.endColour)
    }

    /// Appends a finished part's features after this writer's (closing and deleting the part file).
    package func append(featuresOf part: GeoJSONWriter) throws {
        precondition(part.isPart && part !== self && !closed, "GeoJSONWriter.append needs a part writer")
        precondition(part.includeTimes == includeTimes, "GeoJSONWriter.append mixes position formats")
        if part.features > 0 { separator() }
        part.closed = true
        // Closes the part's file (throwing its write error, if any), streams it and unlinks it.
        try out.append(rowsOf: part.out)
        features += part.features
        routes += part.routes
    }

    /// Writes the FeatureCollection's closing (full files), flushes and fsyncs. The file is
    /// complete only if this returns: write errors (disk full) are thrown here.
    package func close() throws {
        guard !closed else { return }
        closed = true
        if !isPart { literal("\n]}\n") }
        try out.close()
    }

    // MARK: Colours

    /// `#rrggbb` of a route by activity: fixed for the common outdoor activities, otherwise a
    /// palette entry picked by a hash of the name, the same in every run.
    package static func colour(forActivity activity: String) -> String {
        switch activity {
        case "walking": return "#2e7d32"   // green
        case "running": return "#c62828"   // red
        case "cycling": return "#1565c0"   // blue
        case "hiking": return "#6d4c41"   // brown
        case "swimming": return "#00796b"   // teal
        default:
            // FNV-1a, not `hashValue`: Swift seeds `Hasher` per process, and the file must be
            // the same bytes in every run.
            var h: UInt32 = 2_166_136_261
            for b in activity.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
            return otherColours[Int(h % UInt32(otherColours.count))]
        }
    }

    /// Distinct from the five fixed colours above and from the grey of segments without heart rate.
    package static let otherColours = [
        "#6a1b9a",   // purple
        "#ef6c00",   // orange
        "#ad1457",   // magenta
        "#283593",   // indigo
        "#827717",   // olive
        "#37474f",   // blue grey
        "#f9a825",   // gold
        "#00acc1",   // cyan
    ]

    /// `marker-color` of start points (green) and end points (near black, a finish flag).
    package static let startColour = "#43a047"
    package static let endColour = "#212121"

    // MARK: Pieces

    /// What a map can place: finite WGS84 degrees in range.
    @inline(__always)
    private static func isUsable(_ p: RoutePoint) -> Bool {
        p.latitude >= -90 && p.latitude <= 90 && p.longitude >= -180 && p.longitude <= 180
    }

    private func routeProperties(_ route: RouteFeature, _ colour: String) {
        literal(",\"workout_id\":"); string(route.workoutID)
        literal(",\"activity\":"); string(route.activity)
        literal(",\"route_file\":")
        if let file = route.routeFile { string(file) } else { literal("null") }
        literal(",\"start_utc\":"); quotedUTC(route.start)
        literal(",\"end_utc\":"); quotedUTC(route.end)
        literal(",\"distance_m\":"); number(route.distanceMeters, digits: 1)
        literal(",\"duration_s\":"); number(route.durationSeconds, digits: 1)
        literal(",\"avg_hr\":"); number(route.averageBPM, digits: 1)
        literal(",\"colour\":"); string(colour)
        literal(",\"stroke\":"); string(colour)
    }

    private func marker(_ kind: StaticString, _ workoutID: String, _ p: RoutePoint, colour: String) {
        beginFeature()
        literal("{\"type\":\"Feature\",\"properties\":{\"kind\":\""); literal(kind)
        literal("\",\"workout_id\":"); string(workoutID)
        literal(",\"time_utc\":"); quotedUTC(p.time)
        literal(",\"marker-color\":"); string(colour)
        literal("},\"geometry\":{\"type\":\"Point\",\"coordinates\":")
        position(p)
        literal("}}")
    }

    /// Whether `points[a...b]` has two usable points: a line to draw.
    private func hasLine(_ points: [RoutePoint], _ a: Int, _ b: Int) -> Bool {
        var n = 0
        for i in a...b where Self.isUsable(points[i]) {
            n += 1
            if n == 2 { return true }
        }
        return false
    }

    /// The usable points of `points[a...b]`, comma-separated.
    private func positions(_ points: [RoutePoint], _ a: Int, _ b: Int) {
        var any = false
        for i in a...b {
            let p = points[i]
            guard Self.isUsable(p) else { continue }
            if any { out.byte(0x2C) }
            any = true
            position(p)
        }
    }

    /// `[lon,lat]`, or `[lon,lat,ele,unix]` with `includeTimes`.
    @inline(__always)
    private func position(_ p: RoutePoint) {
        out.byte(0x5B)
        out.decimal(p.longitude, digits: 6)
        out.byte(0x2C)
        out.decimal(p.latitude, digits: 6)
        if includeTimes {
            out.byte(0x2C)
            if let e = p.elevation, e.isFinite, abs(e) < 1e9 { out.decimal(e, digits: 1) } else { out.byte(0x30) }
            out.byte(0x2C)
            out.int(p.time)
        }
        out.byte(0x5D)
    }

    /// Features are separated by `,\n`; the first of a full file starts on its own line.
    private func beginFeature() {
        separator()
        features += 1
    }

    private func separator() {
        if features > 0 { out.byte(0x2C); out.byte(0x0A) } else if !isPart { out.byte(0x0A) }
    }

    /// A JSON number with up to `digits` decimals, or `null` when there is none: JSON has no
    /// NaN or infinity, and `decimal` would trap past Int64's range.
    private func number(_ v: Double?, digits: Int) {
        guard let v, v.isFinite, abs(v) < 1e12 else { literal("null"); return }
        out.decimal(v, digits: digits)
    }

    @inline(__always)
    private func quotedUTC(_ seconds: Int64) {
        out.byte(0x22)
        out.utc(seconds)
        out.byte(0x22)
    }

    @inline(__always)
    private func literal(_ s: StaticString) {
        out.raw(ByteSpan(s))
    }

    /// A JSON string (RFC 8259 §7): `"` and `\` escaped, control characters as `\n`-style or
    /// `\u00XX` escapes, all other UTF-8 (route file names in any script) copied as it is.
    private func string(_ s: String) {
        out.byte(0x22)
        ByteSpan.withUTF8(s) { b in
            var run = 0
            for i in 0..<b.count {
                let c = b[i]
                guard c == 0x22 || c == 0x5C || c < 0x20 else { continue }
                if i > run { out.raw(b.dropFirst(run).prefix(i - run)) }
                escape(c)
                run = i + 1
            }
            if b.count > run { out.raw(b.dropFirst(run)) }
        }
        out.byte(0x22)
    }

    private func escape(_ c: UInt8) {
        out.byte(0x5C)
        switch c {
        case 0x22: out.byte(0x22)
        case 0x5C: out.byte(0x5C)
        case 0x08: out.byte(0x62)   // b
        case 0x0C: out.byte(0x66)   // f
        case 0x0A: out.byte(0x6E)   // n
        case 0x0D: out.byte(0x72)   // r
        case 0x09: out.byte(0x74)   // t
        default:
            let hex = ByteSpan("0123456789abcdef")
            literal("u00")
            out.byte(hex[Int(c >> 4)])
            out.byte(hex[Int(c & 0xF)])
        }
    }
}
