import HealthTrailBase
import HealthTrailDecode
import HealthTrailWrite

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Distances on the Earth and the cutting of a route into coloured segments.
package enum RouteGeometry {
    /// Mean Earth radius, metres: the IUGG mean radius R₁ = (2a + b) / 3 of WGS84
    /// (6 371 008.8 m). A sphere is within about 0.5 % of the ellipsoid everywhere, far below
    /// GPS noise at the step lengths of a route.
    package static let earthRadius: Double = 6_371_008.8

    /// Colour of a segment without heart rate: a neutral grey no zone palette uses.
    package static let noHeartRateColour = "#9e9e9e"

    /// Great-circle distance in metres between two points (haversine on a sphere of
    /// `earthRadius`). The haversine form stays accurate for the metre-scale steps of a route,
    /// where the spherical law of cosines loses precision.
    package static func haversine(_ a: RoutePoint, _ b: RoutePoint) -> Double {
        let radian = Double.pi / 180
        let phi1 = a.latitude * radian, phi2 = b.latitude * radian
        let dPhi = phi2 - phi1
        let dLambda = (b.longitude - a.longitude) * radian
        let s1 = sin(dPhi / 2), s2 = sin(dLambda / 2)
        let h = s1 * s1 + cos(phi1) * cos(phi2) * s2 * s2
        // Rounding can push h a hair above 1 for antipodal points; asin would return NaN.
        return 2 * earthRadius * asin(min(1, h.squareRoot()))
    }

    /// Cuts a route into about `target` segments of consecutive points for drawing.
    ///
    /// A route of n ≥ 2 points gets min(target, n − 1) segments (none for n < 2); each has at
    /// least 2 points, and consecutive segments share their end point (segment k's `last` ==
    /// segment k + 1's `first`) so the drawn line has no gaps. The n − 1 steps are split evenly
    /// by count (segment k covers steps ⌊k(n−1)/m⌋ ..< ⌊(k+1)(n−1)/m⌋), so the result depends
    /// only on n and target. Splitting by count rather than by distance keeps segments short
    /// where the runner was slow, which is also where heart rate changes most per metre.
    ///
    /// Each segment carries the mean bpm of its points that have one (shared end points count
    /// in both neighbours), that mean's zone, colour and opacity; without any bpm: zone nil,
    /// colour `noHeartRateColour`, opacity 1.
    package static func segments(_ points: [RoutePoint], zones: HeartRateZones, target: Int = 50) -> [RouteSegment] {
        let steps = points.count - 1
        guard steps >= 1 else { return [] }
        let count = min(max(target, 1), steps)
        var result: [RouteSegment] = []
        result.reserveCapacity(count)
        for k in 0..<count {
            let first = k * steps / count
            let last = (k + 1) * steps / count
            var sum = 0.0, n = 0
            for p in points[first...last] {
                if let bpm = p.bpm { sum += bpm; n += 1 }
            }
            if n > 0, !zones.zones.isEmpty {
                let mean = sum / Double(n)
                let zone = zones.zoneIndex(for: mean)
                result.append(
                    RouteSegment(
                        first: first, last: last, meanBPM: mean, zone: zone,
                        colour: zones.zones[zone].colour, opacity: zones.opacity(for: mean)))
            } else {
                result.append(
                    RouteSegment(
                        first: first, last: last, meanBPM: n > 0 ? sum / Double(n) : nil, zone: nil,
                        colour: noHeartRateColour, opacity: 1))
            }
        }
        return result
    }
}
