import Testing

@testable import HealthTrailDecode

@Suite struct ActivityCatalogTests {
    @Test func knownTypesMapToSnakeCase() {
        let cases: [(String, String)] = [
            ("HKWorkoutActivityTypeRunning", "running"),
            ("HKWorkoutActivityTypeHighIntensityIntervalTraining", "high_intensity_interval_training"),
            ("HKWorkoutActivityTypeMixedMetabolicCardioTraining", "mixed_metabolic_cardio_training"),
            ("HKWorkoutActivityTypeTraditionalStrengthTraining", "traditional_strength_training"),
            ("HKWorkoutActivityTypeSwimBikeRun", "swim_bike_run"),
            ("HKWorkoutActivityTypeTaiChi", "tai_chi"),
            ("HKWorkoutActivityTypeWheelchairRunPace", "wheelchair_run_pace"),
            ("HKWorkoutActivityTypeUnderwaterDiving", "underwater_diving"),
            ("HKWorkoutActivityTypeOther", "other"),
        ]
        for (raw, expected) in cases {
            let result = ActivityCatalog.name(for: raw)
            #expect(result.name == expected, "\(raw)")
            #expect(result.isKnown, "\(raw)")
        }
    }

    @Test func everyCatalogEntryHasAUniqueName() {
        let names = ActivityCatalog.knownTypes.map { type -> String in
            let raw = ActivityCatalog.prefix + type.prefix(1).uppercased() + type.dropFirst()
            let result = ActivityCatalog.name(for: raw)
            #expect(result.isKnown, "\(raw)")
            #expect(result.name.allSatisfy { $0.isLowercase || $0 == "_" }, "\(result.name)")
            return result.name
        }
        #expect(names.count == 84)
        #expect(Set(names).count == names.count)
        #expect(Set(ActivityCatalog.knownTypes).count == ActivityCatalog.knownTypes.count)
    }

    @Test func unknownTypesPassThroughAsSnakeCase() {
        let zorbing = ActivityCatalog.name(for: "HKWorkoutActivityTypeZorbing")
        #expect(zorbing.name == "zorbing" && !zorbing.isKnown)
        let chess = ActivityCatalog.name(for: "HKWorkoutActivityTypeSpeedChessBoxing")
        #expect(chess.name == "speed_chess_boxing" && !chess.isKnown)
        #expect(ActivityCatalog.name(for: "HKWorkoutActivityTypeHIITWorkout") == ("hiit_workout", false))
        #expect(ActivityCatalog.name(for: "") == ("unknown", false))
        #expect(ActivityCatalog.name(for: "HKWorkoutActivityType") == ("unknown", false))
    }

    @Test func rawTypeWithoutThePrefix() {
        #expect(ActivityCatalog.name(for: "Running") == ("running", true))
        #expect(ActivityCatalog.name(for: "highIntensityIntervalTraining") == ("high_intensity_interval_training", true))
        #expect(ActivityCatalog.name(for: "high_intensity_interval_training") == ("high_intensity_interval_training", true))
        #expect(ActivityCatalog.name(for: "Kite Surfing") == ("kite_surfing", false))
    }
}
