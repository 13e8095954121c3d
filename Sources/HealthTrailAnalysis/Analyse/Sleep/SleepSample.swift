import HealthTrailBase
import HealthTrailDecode

/// One sleep record ready for the night analysis: its span, stage and ranked source.
package struct SleepSample: Sendable, Equatable {
    /// Start instant, with the offset the record was stamped with.
    package var start: Timestamp
    /// End instant, with the offset the record was stamped with.
    package var end: Timestamp
    package var stage: SleepStage
    /// The record's `sourceName`.
    package var source: String
    /// Source priority: 0 is the most preferred (Health's own order, Watch first).
    package var sourceRank: Int
    /// The number of `source` in the `NameBytes` given to `SleepNightBuilder`; nil when the
    /// builder is to number the names itself. A night tallies its sources by this number, so
    /// that a night of millions of sources holds no `String` per source.
    package var sourceIndex: UInt32?

    package init(start: Timestamp, end: Timestamp, stage: SleepStage, source: String, sourceRank: Int) {
        self.start = start
        self.end = end
        self.stage = stage
        self.source = source
        self.sourceRank = sourceRank
    }

    /// A sample whose source is name `sourceIndex` of the builder's `NameBytes`.
    package init(start: Timestamp, end: Timestamp, stage: SleepStage, source: String, sourceRank: Int, sourceIndex: UInt32) {
        self.init(start: start, end: end, stage: stage, source: source, sourceRank: sourceRank)
        self.sourceIndex = sourceIndex
    }

    /// A total order (start, end, rank, source, stage, offsets): equal samples under it are equal
    /// in every field, so shuffled input sorts to the same sequence and gives the same nights.
    package static func precedes(_ a: SleepSample, _ b: SleepSample) -> Bool {
        if a.start.utcSeconds != b.start.utcSeconds { return a.start.utcSeconds < b.start.utcSeconds }
        if a.end.utcSeconds != b.end.utcSeconds { return a.end.utcSeconds < b.end.utcSeconds }
        if a.sourceRank != b.sourceRank { return a.sourceRank < b.sourceRank }
        if a.source != b.source { return a.source < b.source }
        if a.stage != b.stage { return a.stage.overlapPrecedence < b.stage.overlapPrecedence }
        if a.start.offsetMinutes != b.start.offsetMinutes { return a.start.offsetMinutes < b.start.offsetMinutes }
        return a.end.offsetMinutes < b.end.offsetMinutes
    }
}
