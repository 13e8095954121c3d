#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The spherical ("Web") Mercator projection of web maps (EPSG:3857), in world units: the whole
/// world is the square 0…1, x growing east from the antimeridian, y growing south from the
/// projection's northern limit (so y points down, like SVG). Scale is equal in x and y at every
/// point (conformal), so a route keeps its shape; lengths grow by 1 / cos(latitude).
package enum WebMercator {
    /// Latitude limit of the square world, degrees: atan(sinh π) ≈ 85.0511°.
    package static let maxLatitude: Double = 85.051_128_779_806_59

    /// Radius of the sphere EPSG:3857 is defined on: WGS84's semi-major axis, metres.
    package static let earthRadius: Double = 6_378_137

    /// World units (0…1) of a WGS84 position. Latitude is clamped to ±`maxLatitude`; longitude
    /// is not wrapped (−180 → 0, 180 → 1).
    package static func project(lat: Double, lon: Double) -> (x: Double, y: Double) {
        let phi = min(maxLatitude, max(-maxLatitude, lat)) * Double.pi / 180
        let x = (lon + 180) / 360
        let y = 0.5 - log(tan(Double.pi / 4 + phi / 2)) / (2 * Double.pi)
        return (x, y)
    }

    /// Latitude, degrees, of world y (the inverse of `project` in y).
    package static func latitude(y: Double) -> Double {
        atan(sinh(Double.pi * (1 - 2 * y))) * 180 / Double.pi
    }

    /// Longitude, degrees, of world x.
    package static func longitude(x: Double) -> Double {
        x * 360 - 180
    }

    /// Ground metres per world unit at a latitude: the equator's length (2πR) shrunk by
    /// cos(latitude), the Mercator scale factor's inverse.
    package static func metresPerWorldUnit(atLatitude lat: Double) -> Double {
        2 * Double.pi * earthRadius * cos(min(maxLatitude, max(-maxLatitude, lat)) * Double.pi / 180)
    }
}
