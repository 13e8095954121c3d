import HealthTrailAnalysis
import HealthTrailWrite

extension WorkoutMapSVG {
    /// The map of `route` with the legend of `zones`: each zone's bpm range (`Z3 131–149 bpm`,
    /// `HeartRateZones.legendLabel`) and colour, and "no heart rate" in
    /// `RouteGeometry.noHeartRateColour`, the colour of a segment without a zone.
    static func render(_ route: MapRoute, zones: HeartRateZones, options: SVGOptions = SVGOptions()) -> [UInt8] {
        render(
            route, zones: zones.zones.indices.map { (name: zones.legendLabel($0), colour: zones.zones[$0].colour) },
            noZoneColour: RouteGeometry.noHeartRateColour,
            options: options)
    }
}
