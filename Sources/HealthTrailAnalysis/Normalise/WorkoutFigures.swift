import Foundation
import HealthTrailBase
import HealthTrailDecode

/// A workout's totals in canonical units, from `WorkoutStatistics` when present, else from the
/// legacy attributes (`totalDistance` in km or mi, `totalEnergyBurned` in kcal, Cal or kJ).
package struct WorkoutFigures: Sendable, Equatable {
    package var distanceMeters: Double?
    package var energyKcal: Double?
    package var averageHeartRate: Double?
    package var maximumHeartRate: Double?
    package var minimumHeartRate: Double?
    /// `HKElevationAscended` (`4500 cm`) in metres.
    package var elevationAscendedMeters: Double?
    /// `HKWeatherTemperature` (`68 degF`) in °C.
    package var weatherTemperatureC: Double?
    /// `HKWeatherHumidity` in percent. Apple writes `5600 %` for 56 %: hundredths of a percent.
    package var weatherHumidityPercent: Double?
    /// `HKIndoorWorkout` metadata: true, false, or unknown.
    package var indoor: Bool?
    /// `HKTimeZone` metadata (`Europe/Paris`).
    package var timeZone: String?
    /// The UTC offset at the start in `timeZone` when it is known, else the stamped one. Real
    /// exports stamp every date with the offset in force at export time, so the zone wins.
    package var offsetMinutes: Int32
    /// Parts of a multi-part workout (`WorkoutActivity`), at least 1.
    package var parts: Int

    package init(_ w: Workout) {
        func canonical(_ value: Double?, _ unit: String?) -> Double? {
            guard let value, let unit, let c = UnitConversion.forUnit(unit) else { return nil }
            return c.convert(value)
        }
        let distance = w.statistics.filter { $0.type.hasPrefix("HKQuantityTypeIdentifierDistance") }
            .compactMap { canonical($0.sum, $0.unit) }
        distanceMeters = distance.isEmpty ? canonical(w.totalDistance?.value, w.totalDistance?.unit) : distance.reduce(0, +)
        let energy = w.statistics.first { $0.type == "HKQuantityTypeIdentifierActiveEnergyBurned" }
        energyKcal = canonical(energy?.sum, energy?.unit) ?? canonical(w.totalEnergyBurned?.value, w.totalEnergyBurned?.unit)
        let heart = w.statistics.first { $0.type == "HKQuantityTypeIdentifierHeartRate" }
        averageHeartRate = heart?.average
        maximumHeartRate = heart?.maximum
        minimumHeartRate = heart?.minimum
        elevationAscendedMeters = Self.quantity(w.metadataValue("HKElevationAscended"))
        weatherTemperatureC = Self.quantity(w.metadataValue("HKWeatherTemperature"))
        weatherHumidityPercent = w.metadataValue("HKWeatherHumidity").flatMap { text in
            Double(text.split(separator: " ").first ?? "").map { $0 / 100 }
        }
        indoor = w.metadataValue("HKIndoorWorkout").map { $0 == "1" }
        timeZone = w.metadataValue("HKTimeZone")
        if let name = timeZone, let zone = TimeZone(identifier: name) {
            let date = Date(timeIntervalSince1970: TimeInterval(w.start.utcSeconds))
            offsetMinutes = Int32(zone.secondsFromGMT(for: date) / 60)
        } else {
            offsetMinutes = w.start.offsetMinutes
        }
        parts = max(1, w.activities.count)
    }

    /// A metadata quantity written `value unit` (`4500 cm`, `68 degF`) in its canonical unit.
    package static func quantity(_ text: String?) -> Double? {
        guard let parts = text?.split(separator: " ", maxSplits: 1), parts.count == 2,
            let value = Double(parts[0]), let conversion = UnitConversion.forUnit(String(parts[1]))
        else { return nil }
        return conversion.convert(value)
    }

    /// The local start of the workout in its own zone.
    package func localStart(_ w: Workout) -> Timestamp {
        Timestamp(utcSeconds: w.start.utcSeconds, offsetMinutes: offsetMinutes)
    }
}
