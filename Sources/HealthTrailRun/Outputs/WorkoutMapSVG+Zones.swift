import HealthTrailAnalysis
import HealthTrailWrite

extension WorkoutMapSVG {
    /// The map of `route` with the legend of `zones`: their names and colours, and "no heart
    /// rate" in `RouteGeometry.noHeartRateColour`, the colour of a segment without a zone.
    static func render(_ route: MapRoute, zones: HeartRateZones, options: SVGOptions = SVGOptions()) -> [UInt8] {
        render(
            route, zones: zones.zones.map { (name: $0.name, colour: $0.colour) }, noZoneColour: RouteGeometry.noHeartRateColour,
            options: options)
    }
}
