import HealthTrailDecode

/// A sleep sample as decoded, before source names are ranked for the night analysis.
struct CollectedSleepSample: BitwiseCopyable {
    var start: Timestamp
    var end: Timestamp
    var stage: SleepStage
    var source: Int
}
