/// Normalised sleep stage of a `HKCategoryTypeIdentifierSleepAnalysis` record.
///
/// The raw values are the CSV spelling (`in_bed`, `asleep`, `core`, …).
package enum SleepStage: String, Sendable, CaseIterable, BitwiseCopyable {
    /// The person was in bed (iPhone bedtime, third-party apps). Not a statement about sleep.
    case inBed = "in_bed"
    /// Asleep, stage unknown: legacy `Asleep` (before iOS 16) and `AsleepUnspecified`.
    case asleep
    /// Apple Watch "Core" (light) sleep.
    case core
    /// Apple Watch "Deep" sleep.
    case deep
    /// Apple Watch REM sleep.
    case rem
    /// Awake during the sleep session.
    case awake

    /// The stage of an export `value`.
    ///
    /// Accepts `HKCategoryValueSleepAnalysisInBed` → `.inBed`, `…Asleep` (legacy) and
    /// `…AsleepUnspecified` → `.asleep`, `…AsleepCore` → `.core`, `…AsleepDeep` → `.deep`,
    /// `…AsleepREM` → `.rem`, `…Awake` → `.awake`; the same names without the prefix
    /// (`InBed`, `Asleep`, …); and HealthKit's integer codes (`0` inBed, `1` asleepUnspecified,
    /// `2` awake, `3` core, `4` deep, `5` rem), which some third-party exporters write.
    /// Returns nil for anything else: an unknown value is a fault for the caller to count,
    /// never silently a stage.
    package init?(exportValue: some StringProtocol) {
        let prefix = "HKCategoryValueSleepAnalysis"
        if exportValue.hasPrefix(prefix) {
            guard let stage = Self(name: exportValue.dropFirst(prefix.count)) else { return nil }
            self = stage
            return
        }
        switch exportValue {
        case "0": self = .inBed
        case "1": self = .asleep
        case "2": self = .awake
        case "3": self = .core
        case "4": self = .deep
        case "5": self = .rem
        default:
            guard let stage = Self(name: exportValue[...]) else { return nil }
            self = stage
        }
    }

    /// The stage of a bare name (`InBed`, `AsleepCore`, …).
    private init?(name: some StringProtocol) {
        switch name {
        case "InBed": self = .inBed
        case "Asleep", "AsleepUnspecified": self = .asleep
        case "Awake": self = .awake
        case "AsleepCore": self = .core
        case "AsleepDeep": self = .deep
        case "AsleepREM": self = .rem
        default: return nil
        }
    }

    /// True for the stages that count as sleep: `asleep`, `core`, `deep`, `rem`.
    package var isAsleep: Bool {
        switch self {
        case .asleep, .core, .deep, .rem: return true
        case .inBed, .awake: return false
        }
    }

    /// Which stage wins when one source's own samples overlap (lower wins). An explicit `Awake`
    /// inside an asleep span marks an interruption, and a named stage refines an unspecified
    /// `Asleep`, so the more specific statement wins. `inBed` never enters the stage timeline.
    package var overlapPrecedence: Int {
        switch self {
        case .awake: return 0
        case .deep: return 1
        case .rem: return 2
        case .core: return 3
        case .asleep: return 4
        case .inBed: return 5
        }
    }
}
