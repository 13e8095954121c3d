import HealthTrailBase
import HealthTrailDecode

/// How heart-rate zones are chosen (`--max-hr`, `--max-hr-from-birth-date`).
package enum ZoneChoice: Sendable, Equatable {
    /// resting < 100, moderate 100–139, vigorous 140–179, maximum ≥ 180 bpm.
    case standard
    /// Five zones from a maximum heart rate.
    case maximum(Double)
    /// Five zones from 220 − age, age from the export's `Me` date of birth on the export date;
    /// the standard zones when the export has no date of birth.
    case fromDateOfBirth

    package func resolve(dateOfBirth: String?, on exportDate: Timestamp?) -> HeartRateZones {
        switch self {
        case .standard:
            return .default
        case .maximum(let bpm):
            return .fromMaximum(bpm)
        case .fromDateOfBirth:
            guard let dateOfBirth, let exportDate else { return .default }
            let day = Timestamp.civilFromDays(
                exportDate.localSeconds >= 0 ? exportDate.localSeconds / 86_400 : (exportDate.localSeconds - 86_399) / 86_400)
            return HeartRateZones.fromDateOfBirth(dateOfBirth, on: day) ?? .default
        }
    }
}
