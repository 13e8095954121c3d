import HealthTrailBase

/// One workout's route for the SVG maps: the points of all its route files concatenated in
/// time order, its segments (indices into `points`) and the figures of its title and legend.
package struct MapRoute: Sendable {
    /// `20240102T060000Z-running`; the file is `svg/workouts/<workoutID>.svg`.
    package var workoutID: String
    /// Snake-case activity (`running`, `walking`, …): the title, and the colour on the
    /// overview (`GeoJSONWriter.colour(forActivity:)`, so map and GeoJSON agree).
    package var activity: String
    /// Start and end of the workout, UTC seconds.
    package var start: Int64
    package var end: Int64
    /// Offset of the workout's local time, minutes east of UTC: the title's date.
    package var utcOffsetMinutes: Int32
    /// Metres, as the title shows it (2 decimals of a kilometre).
    package var distanceMeters: Double
    /// Mean heart rate over the workout; nil without heart rate.
    package var meanBPM: Double?
    /// Seconds per zone index of the `HeartRateZones` the segments were coloured with
    /// (`RouteStats.timeInZone`); shorter arrays count the missing zones as 0.
    package var timeInZone: [Double]
    /// WGS84 points in time order. Points with a latitude or longitude out of range (or NaN)
    /// are left out of every drawing.
    package var points: [RoutePoint]
    /// Stretches of `points` drawn in one colour each (`RouteGeometry.segments`).
    package var segments: [RouteSegment]
    /// Spans of UTC seconds the line does not cross (a pause, the gap between two parts, a
    /// drive, a GPS jump): `points` on either side are joined by a dashed connector at most.
    package var gaps: [ClosedRange<Int64>] = []
    /// Points of the route that count in no figure (paused, outside the workout, driven), in
    /// time order, drawn greyed; `trimmedGaps` cut them into stretches like `gaps`.
    package var trimmed: [RoutePoint] = []
    package var trimmedGaps: [ClosedRange<Int64>] = []
    /// Where each split ended (`splits.csv`): a marker labelled with its number.
    package var splitMarks: [SplitMark] = []
    /// The piece goes on from the previous piece's last point (a part boundary's repeated
    /// point): no gap between them.
    package var joinsPrevious = false
    /// Active seconds, the title's duration; nil: from `start` to `end`.
    package var activeSeconds: Double?

    package init(
        workoutID: String, activity: String, start: Int64, end: Int64, utcOffsetMinutes: Int32 = 0,
        distanceMeters: Double, meanBPM: Double?, timeInZone: [Double] = [],
        points: [RoutePoint], segments: [RouteSegment] = []
    ) {
        self.workoutID = workoutID
        self.activity = activity
        self.start = start
        self.end = end
        self.utcOffsetMinutes = utcOffsetMinutes
        self.distanceMeters = distanceMeters
        self.meanBPM = meanBPM
        self.timeInZone = timeInZone
        self.points = points
        self.segments = segments
    }
}

/// The end of a split on a workout map: its number (`3` for the third kilometre) and UTC time.
package struct SplitMark: Sendable, Equatable {
    package var label: String
    package var time: Double

    package init(label: String, time: Double) {
        self.label = label
        self.time = time
    }
}

extension MapRoute {
    /// `points` cut at `gaps`: index ranges of stretches that cross none. A gap lies between
    /// two consecutive points when the first is at or before its start and the second at or
    /// after its end (with thinned points the pair may lie further apart).
    package static func stretches(of points: [RoutePoint], cutAt gaps: [ClosedRange<Int64>]) -> [ClosedRange<Int>] {
        guard !points.isEmpty else { return [] }
        var result: [ClosedRange<Int>] = []
        var start = 0, g = 0
        for i in 1..<points.count {
            while g < gaps.count && gaps[g].lowerBound < points[i - 1].time { g += 1 }
            if g < gaps.count && points[i - 1].time <= gaps[g].lowerBound && points[i].time >= gaps[g].upperBound {
                result.append(start...(i - 1))
                start = i
                g += 1
            }
        }
        result.append(start...(points.count - 1))
        return result
    }

    /// `segments` cut where they cross `gaps`, so that no drawn segment joins two points a gap
    /// separates.
    package static func segments(_ segments: [RouteSegment], of points: [RoutePoint], cutAt gaps: [ClosedRange<Int64>]) -> [RouteSegment] {
        guard !gaps.isEmpty else { return segments }
        let pieces = stretches(of: points, cutAt: gaps)
        var result: [RouteSegment] = []
        for segment in segments {
            for piece in pieces where piece.upperBound >= segment.first && piece.lowerBound <= segment.last {
                var part = segment
                part.first = Swift.max(segment.first, piece.lowerBound)
                part.last = Swift.min(segment.last, piece.upperBound)
                result.append(part)
            }
        }
        return result
    }
}

/// A WGS84 latitude/longitude box, degrees (no antimeridian crossing: `minLongitude` ≤
/// `maxLongitude`).
package struct GeoBoundingBox: Sendable, Equatable {
    package var minLatitude: Double
    package var minLongitude: Double
    package var maxLatitude: Double
    package var maxLongitude: Double

    package init(minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude
        self.minLongitude = minLongitude
        self.maxLatitude = maxLatitude
        self.maxLongitude = maxLongitude
    }

    /// A box from `[minLat, minLon, maxLat, maxLon]` (a pipeline file's or `--map-area`'s); nil
    /// unless latitudes lie in ±90, longitudes in ±180 and each minimum is below its maximum.
    package init?(checked v: [Double]) {
        guard v.count == 4, v[0] < v[2], v[1] < v[3], (-90...90).contains(v[0]), (-90...90).contains(v[2]),
            (-180...180).contains(v[1]), (-180...180).contains(v[3])
        else { return nil }
        self.init(minLatitude: v[0], minLongitude: v[1], maxLatitude: v[2], maxLongitude: v[3])
    }

    /// The box of the usable points of `tracks` (see `MapRoute.points`); nil when there is none.
    package init?(tracks: [[RoutePoint]]) {
        var box: GeoBoundingBox?
        for track in tracks { for p in track { GeoBoundingBox.extend(&box, with: p) } }
        guard let box else { return nil }
        self = box
    }

    /// Grows `box` (nil: none yet) to hold `p` when `p` is usable: a streaming first pass.
    package static func extend(_ box: inout GeoBoundingBox?, with p: RoutePoint) {
        guard MapGeometry.isUsable(p) else { return }
        if var b = box {
            b.minLatitude = min(b.minLatitude, p.latitude)
            b.maxLatitude = max(b.maxLatitude, p.latitude)
            b.minLongitude = min(b.minLongitude, p.longitude)
            b.maxLongitude = max(b.maxLongitude, p.longitude)
            box = b
        } else {
            box = GeoBoundingBox(
                minLatitude: p.latitude, minLongitude: p.longitude,
                maxLatitude: p.latitude, maxLongitude: p.longitude)
        }
    }
}

/// Options of every SVG output.
package struct SVGOptions: Sendable {
    /// Width in pixels of the maps (workout, overview, density) and of the calendars. Heights
    /// follow the data's shape (see each renderer).
    package var size: Int = 800
    /// Scale of the density map and the calendar heatmap.
    package var colourScale: ColourScale = .viridis
    /// Area of the density map; nil: the data's box padded by `densityPadding` on each side.
    package var densityBoundingBox: GeoBoundingBox?
    /// Fraction of the data's extent added on each side when the density map fits the data.
    package var densityPadding: Double = 0.05
    /// Side of a density cell in pixels: an 800 px map is a 400 × 400 grid at 2.
    package var densityCellSize: Int = 2
    /// Colour levels of the density map: cells of one level in a row form one `<rect>`.
    package var densityLevels: Int = 32
    /// Routes with fewer usable points are not drawn (overview) or drawn as empty (workout map).
    package var minimumPoints: Int = 2
    /// Douglas–Peucker tolerance, output pixels. 0.5 px, plus at most 0.07 px of rounding
    /// coordinates to 0.1 px, stays under a pixel: the simplified line covers the same pixels.
    package var simplificationTolerance: Double = 0.5

    package init(
        size: Int = 800, colourScale: ColourScale = .viridis, densityBoundingBox: GeoBoundingBox? = nil,
        minimumPoints: Int = 2
    ) {
        self.size = size
        self.colourScale = colourScale
        self.densityBoundingBox = densityBoundingBox
        self.minimumPoints = minimumPoints
    }

    /// `size` kept within 100…10 000 px, so a typo cannot produce a degenerate or huge file.
    package var mapWidth: Int { min(10_000, max(100, size)) }
}
