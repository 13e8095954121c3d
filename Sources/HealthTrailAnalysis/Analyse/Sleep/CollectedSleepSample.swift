import HealthTrailBase
import HealthTrailDecode

/// A sleep sample as decoded, before source names are ranked for the night analysis.
package struct CollectedSleepSample: BitwiseCopyable {
    package var start: Timestamp
    package var end: Timestamp
    package var stage: SleepStage
    package var source: Int

    package init(start: Timestamp, end: Timestamp, stage: SleepStage, source: Int) {
        self.start = start
        self.end = end
        self.stage = stage
        self.source = source
    }
}
