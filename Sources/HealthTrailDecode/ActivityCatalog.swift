/// Workout activity names: `HKWorkoutActivityTypeRunning` → `running`.
///
/// Exports write the Objective-C constant name in `workoutActivityType`. The catalog holds every
/// case of HealthKit's `HKWorkoutActivityType` (iOS 18 SDK), so a name can be flagged when Apple
/// adds a type HealthTrail has not seen: it still gets a readable snake_case name, but `isKnown`
/// is false so the run can report it.
package enum ActivityCatalog {
    /// The prefix of every exported activity type.
    package static let prefix = "HKWorkoutActivityType"

    /// Every HealthKit activity type, as its Swift case name (the exported name without `prefix`,
    /// first letter lowered), in HealthKit's declaration order.
    package static let knownTypes: [String] = [
        "americanFootball", "archery", "australianFootball", "badminton", "baseball", "basketball",
        "bowling", "boxing", "climbing", "cricket", "crossTraining", "curling", "cycling", "dance",
        "danceInspiredTraining", "elliptical", "equestrianSports", "fencing", "fishing",
        "functionalStrengthTraining", "golf", "gymnastics", "handball", "hiking", "hockey", "hunting",
        "lacrosse", "martialArts", "mindAndBody", "mixedMetabolicCardioTraining", "paddleSports",
        "play", "preparationAndRecovery", "racquetball", "rowing", "rugby", "running", "sailing",
        "skatingSports", "snowSports", "soccer", "softball", "squash", "stairClimbing",
        "surfingSports", "swimming", "tableTennis", "tennis", "trackAndField",
        "traditionalStrengthTraining", "volleyball", "walking", "waterFitness", "waterPolo",
        "waterSports", "wrestling", "yoga",
        // iOS 10
        "barre", "coreTraining", "crossCountrySkiing", "downhillSkiing", "flexibility",
        "highIntensityIntervalTraining", "jumpRope", "kickboxing", "pilates", "snowboarding",
        "stairs", "stepTraining", "wheelchairWalkPace", "wheelchairRunPace",
        // iOS 11 – 14
        "taiChi", "mixedCardio", "handCycling", "discSports", "fitnessGaming",
        // iOS 14 – 17
        "cardioDance", "socialDance", "pickleball", "cooldown", "swimBikeRun", "transition",
        "underwaterDiving",
        "other",
    ]

    /// Case name → snake_case name, built once.
    private static let names: [String: String] = {
        var map: [String: String] = [:]
        for type in knownTypes { map[type] = snakeCase(type) }
        return map
    }()

    /// The snake_case names of `knownTypes`, so that an already normalised name is recognised too.
    private static let snakeNames: Set<String> = Set(names.values)

    /// `HKWorkoutActivityTypeRunning` → (`running`, true).
    ///
    /// Accepts the exported constant, the bare case name (`Running`, `running`) or an already
    /// normalised name (`high_intensity_interval_training`). Anything else passes through as
    /// lower-cased snake_case (at most `maxNameBytes`) with `isKnown` false; an empty type
    /// becomes `unknown`.
    package static func name(for rawType: String) -> (name: String, isKnown: Bool) {
        var bare = Substring(rawType)
        if bare.hasPrefix(prefix) { bare = bare.dropFirst(prefix.utf8.count) }
        guard let first = bare.first else { return ("unknown", false) }
        let caseName = first.lowercased() + bare.dropFirst()
        if let name = names[caseName] { return (name, true) }
        if snakeNames.contains(String(bare)) { return (String(bare), true) }
        let name = snakeCase(bare)
        return (name.isEmpty ? "unknown" : DataFileName.bounded(name, original: rawType, maxBytes: maxNameBytes), false)
    }

    /// The longest name an unknown type gets (HealthKit's longest is 32 bytes): the name is part
    /// of a workout id and so of a file name (`svg/workouts/<id>.svg`), and an export's type can
    /// be of any length. A longer one is shortened and ends in a hash of the type.
    package static let maxNameBytes = 64

    /// `HighIntensityIntervalTraining` → `high_intensity_interval_training`; a run of capitals
    /// stays one word (`HIITWorkout` → `hiit_workout`); anything but ASCII letters and digits
    /// becomes `_`. Names end up in file names (workout ids, map files), so an export must not be
    /// able to put `/` or `..` in one.
    package static func snakeCase<S: StringProtocol>(_ text: S) -> String {
        let chars = Array(text)
        var out = ""
        out.reserveCapacity(chars.count + 8)
        for (i, ch) in chars.enumerated() {
            if !(ch.isASCII && (ch.isLetter || ch.isNumber)) {
                if !out.isEmpty && out.last != "_" { out.append("_") }
                continue
            }
            if ch.isUppercase {
                let previous = i > 0 ? chars[i - 1] : nil
                let next = i + 1 < chars.count ? chars[i + 1] : nil
                // A word starts at a capital after a lower-case letter or digit, or at the last
                // capital of a run that is followed by lower case (the `W` of `HIITWorkout`).
                let startsWord =
                    previous.map { $0.isLowercase || $0.isNumber } ?? false
                    || (previous?.isUppercase == true && next?.isLowercase == true)
                if startsWord && !out.isEmpty && out.last != "_" { out.append("_") }
                out.append(contentsOf: ch.lowercased())
            } else {
                out.append(ch)
            }
        }
        while out.last == "_" { out.removeLast() }
        return out
    }
}
