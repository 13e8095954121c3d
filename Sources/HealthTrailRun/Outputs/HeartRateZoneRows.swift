import HealthTrailAnalysis
import HealthTrailWrite

/// `heart_rate_zones.csv`: the five zones a run used, a row each, with the maximum heart rate
/// they were split from and where it came from.
///
/// The maximum and the bounds are health values, so they are written here, in an owner-only
/// output file like every other value from the data, and never in the manifest, which names
/// only the basis (`Manifest.Routes.zoneBasis`).
enum HeartRateZoneRows {
    static func write(_ choice: ZoneChoice.Resolved, to out: CSVWriter) {
        for (index, zone) in choice.zones.zones.enumerated() {
            out.int(Int64(index + 1)); out.comma()
            out.decimal(zone.lower, digits: 1); out.comma()
            if let upper = zone.upper { out.decimal(upper, digits: 1) }
            out.comma()
            out.decimal(choice.maximum, digits: 1); out.comma()
            out.field(choice.basis.rawValue)
            out.endRow()
        }
    }
}
