/// What a record type feeds beyond its own `records/<type>.csv`.
package enum RecordRole: Equatable {
    case heartRate
    case restingHeartRate
    case heartRateVariability
    case cumulative(CumulativeKind)
    case sleep
    case standHour
    case other

    package init(identifier: String) {
        switch identifier {
        case "HKQuantityTypeIdentifierHeartRate": self = .heartRate
        case "HKQuantityTypeIdentifierRestingHeartRate": self = .restingHeartRate
        case "HKQuantityTypeIdentifierHeartRateVariabilitySDNN": self = .heartRateVariability
        case "HKQuantityTypeIdentifierStepCount": self = .cumulative(.steps)
        // The day's distance is on foot, as the Health app's "Walking + Running Distance".
        case "HKQuantityTypeIdentifierDistanceWalkingRunning": self = .cumulative(.distance)
        case "HKQuantityTypeIdentifierActiveEnergyBurned": self = .cumulative(.activeEnergy)
        case "HKQuantityTypeIdentifierBasalEnergyBurned": self = .cumulative(.basalEnergy)
        case "HKQuantityTypeIdentifierFlightsClimbed": self = .cumulative(.flights)
        case "HKQuantityTypeIdentifierAppleExerciseTime": self = .cumulative(.exerciseTime)
        case "HKCategoryTypeIdentifierSleepAnalysis": self = .sleep
        case "HKCategoryTypeIdentifierAppleStandHour": self = .standHour
        default: self = .other
        }
    }
}
