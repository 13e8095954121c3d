import HealthTrailBase
import HealthTrailDecode

/// The points of one route kept for drawing: every point up to `cap`, then every second, every
/// fourth, … point, so that what a route holds in memory is bounded however long its track.
///
/// `route_points.csv` and every route figure (distance, zones, heart rate) take each point as
/// it arrives; only what is drawn (the `routes.geojson` feature, the workout map, the overview
/// and density tracks) comes from the kept points. When the kept points reach `cap`, every
/// other one is dropped and the stride doubles: the kept points stay evenly spaced in the
/// route's point order, and its first and last points are always kept. A route of `cap` points
/// or fewer is kept whole, so ordinary workouts (a day at one point a second is 86,400) are
/// drawn from every point.
package struct DrawnPoints {
    /// Points kept per route (and per workout map) unless a test asks for fewer.
    package static let defaultCap = 100_000

    /// Kept points at most, the route's last point aside. Even and at least 2.
    package let cap: Int
    /// Every `stride`-th point of the route, from its first.
    private(set) var kept: [RoutePoint] = []
    /// Points of the route so far.
    private(set) var seen = 0
    /// A power of two: a point is kept when its index is a multiple of it.
    private var stride = 1
    /// The latest point when it is not kept: appended by `finish()`, so the drawn line ends
    /// where the route ends.
    private var latestSkipped: RoutePoint?

    package init(cap: Int = DrawnPoints.defaultCap) {
        precondition(cap >= 2 && cap % 2 == 0, "the cap on drawn points must be even and at least 2")
        self.cap = cap
    }

    /// Points of the route left out of `kept` (the last point counts as kept).
    package var thinned: Int { seen - kept.count - (latestSkipped == nil ? 0 : 1) }

    /// Starts a new route, keeping the buffer's capacity.
    package mutating func reset() {
        kept.removeAll(keepingCapacity: true)
        seen = 0
        stride = 1
        latestSkipped = nil
    }

    @inline(__always)
    package mutating func append(_ point: RoutePoint) {
        defer { seen += 1 }
        guard seen & (stride - 1) == 0 else {
            latestSkipped = point
            return
        }
        if kept.count == cap {
            // The kept indices are 0, s, …, (cap − 1)s and `seen` is cap·s: with cap even,
            // dropping the odd positions leaves the multiples of 2s, `seen` among them.
            Self.dropOddPositions(&kept)
            stride *= 2
        }
        kept.append(point)
        latestSkipped = nil
    }

    /// The kept points, ending with the route's last point.
    package func finish() -> [RoutePoint] {
        guard let latestSkipped else { return kept }
        return kept + [latestSkipped]
    }

    /// Halves a drawn line: the points at even positions, and the last point, so that the
    /// line's ends stay put. Lines of 2 points or fewer are returned whole.
    package static func halvedKeepingEnds(_ points: [RoutePoint]) -> [RoutePoint] {
        guard points.count > 2 else { return points }
        var result = points
        dropOddPositions(&result)
        if points.count % 2 == 0 { result.append(points[points.count - 1]) }
        return result
    }

    /// Keeps the points at positions 0, 2, 4, … in place.
    private static func dropOddPositions(_ points: inout [RoutePoint]) {
        var j = 0
        for i in Swift.stride(from: 0, to: points.count, by: 2) {
            points[j] = points[i]
            j += 1
        }
        points.removeLast(points.count - j)
    }
}
