/// A stretch of a route drawn in one colour: about 50 per route.
package struct RouteSegment: Sendable, Equatable {
    /// Index of the segment's first point in the route's points.
    package var first: Int
    /// Index of its last point (inclusive). Consecutive segments share an end point, so the
    /// drawn line has no gaps: segment k ends at the point where segment k + 1 starts.
    package var last: Int
    /// Mean of the points' bpm that have one; nil when none has.
    package var meanBPM: Double?
    /// Index into `HeartRateZones.zones` of `meanBPM`; nil without heart rate.
    package var zone: Int?
    /// `#rrggbb` of the zone (grey without heart rate).
    package var colour: String
    /// 0.4 at the bottom of the zone to 1.0 at its top (1.0 without heart rate).
    package var opacity: Double

    package init(first: Int, last: Int, meanBPM: Double?, zone: Int?, colour: String, opacity: Double) {
        self.first = first
        self.last = last
        self.meanBPM = meanBPM
        self.zone = zone
        self.colour = colour
        self.opacity = opacity
    }
}
