/// The kinds of workout the synthetic person does, with the physiology that drives the numbers.
package enum SynthActivity: Int, Sendable, CaseIterable {
    case running, walking, cycling, swimming, hiit, hiking

    package var workoutType: StaticString {
        switch self {
        case .running: return "HKWorkoutActivityTypeRunning"
        case .walking: return "HKWorkoutActivityTypeWalking"
        case .cycling: return "HKWorkoutActivityTypeCycling"
        case .swimming: return "HKWorkoutActivityTypeSwimming"
        case .hiit: return "HKWorkoutActivityTypeHighIntensityIntervalTraining"
        case .hiking: return "HKWorkoutActivityTypeHiking"
        }
    }

    /// Indoor workouts (pool swim, HIIT) have no route.
    package var outdoor: Bool { self != .swimming && self != .hiit }

    /// Typical moving speed in m/s (0 when distance means nothing).
    package var speed: Double {
        switch self {
        case .running: return 3.0
        case .walking: return 1.4
        case .cycling: return 6.5
        case .swimming: return 0.6
        case .hiit: return 0
        case .hiking: return 1.2
        }
    }

    /// Steps per minute counted by the Watch (0: no steps).
    package var cadence: Int {
        switch self {
        case .running: return 164
        case .walking: return 112
        case .hiking: return 98
        default: return 0
        }
    }

    /// Mean heart rate reached, count/min.
    package var heartRate: Double {
        switch self {
        case .running: return 152
        case .walking: return 104
        case .cycling: return 138
        case .swimming: return 128
        case .hiit: return 148
        case .hiking: return 116
        }
    }

    /// Active energy per minute, kcal.
    package var kcalPerMinute: Double {
        switch self {
        case .running: return 11.5
        case .walking: return 4.6
        case .cycling: return 9.0
        case .swimming: return 8.5
        case .hiit: return 10.5
        case .hiking: return 6.5
        }
    }

    /// Duration range in minutes.
    package var minutes: (Int, Int) {
        switch self {
        case .running: return (24, 58)
        case .walking: return (20, 55)
        case .cycling: return (35, 90)
        case .swimming: return (25, 45)
        case .hiit: return (15, 35)
        case .hiking: return (90, 170)
        }
    }

    /// The distance quantity type its statistics use.
    package var distanceType: StaticString? {
        switch self {
        case .running, .walking, .hiking: return "HKQuantityTypeIdentifierDistanceWalkingRunning"
        case .cycling: return "HKQuantityTypeIdentifierDistanceCycling"
        case .swimming: return "HKQuantityTypeIdentifierDistanceSwimming"
        case .hiit: return nil
        }
    }
}
