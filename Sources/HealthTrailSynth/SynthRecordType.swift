/// The record types the synthetic export contains, in the order their groups appear.
package enum SynthRecordType: Int, CaseIterable {
    case height, bodyMass, heartRate, oxygenSaturation, bloodPressureSystolic, bloodPressureDiastolic
    case bodyTemperature, stepCount, distanceWalkingRunning, basalEnergyBurned, activeEnergyBurned
    case flightsClimbed, appleExerciseTime, restingHeartRate, walkingHeartRateAverage, appleStandTime
    case sleepAnalysis, appleStandHour, heartRateVariabilitySDNN

    package var identifier: StaticString {
        switch self {
        case .height: return "HKQuantityTypeIdentifierHeight"
        case .bodyMass: return "HKQuantityTypeIdentifierBodyMass"
        case .heartRate: return "HKQuantityTypeIdentifierHeartRate"
        case .oxygenSaturation: return "HKQuantityTypeIdentifierOxygenSaturation"
        case .bloodPressureSystolic: return "HKQuantityTypeIdentifierBloodPressureSystolic"
        case .bloodPressureDiastolic: return "HKQuantityTypeIdentifierBloodPressureDiastolic"
        case .bodyTemperature: return "HKQuantityTypeIdentifierBodyTemperature"
        case .stepCount: return "HKQuantityTypeIdentifierStepCount"
        case .distanceWalkingRunning: return "HKQuantityTypeIdentifierDistanceWalkingRunning"
        case .basalEnergyBurned: return "HKQuantityTypeIdentifierBasalEnergyBurned"
        case .activeEnergyBurned: return "HKQuantityTypeIdentifierActiveEnergyBurned"
        case .flightsClimbed: return "HKQuantityTypeIdentifierFlightsClimbed"
        case .appleExerciseTime: return "HKQuantityTypeIdentifierAppleExerciseTime"
        case .restingHeartRate: return "HKQuantityTypeIdentifierRestingHeartRate"
        case .walkingHeartRateAverage: return "HKQuantityTypeIdentifierWalkingHeartRateAverage"
        case .appleStandTime: return "HKQuantityTypeIdentifierAppleStandTime"
        case .sleepAnalysis: return "HKCategoryTypeIdentifierSleepAnalysis"
        case .appleStandHour: return "HKCategoryTypeIdentifierAppleStandHour"
        case .heartRateVariabilitySDNN: return "HKQuantityTypeIdentifierHeartRateVariabilitySDNN"
        }
    }

    /// The identifier as a Swift string, for the summary's keys.
    package var name: String { identifier.description }
}
