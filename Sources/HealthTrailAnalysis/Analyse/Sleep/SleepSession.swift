import HealthTrailArchive
import HealthTrailBase
import HealthTrailDecode

/// A cluster of sleep samples (any stage, any source) close enough in time to be one sleep,
/// measured into a `SleepNight`. Whether it is the night or a nap is `SleepAnalysis`'s call.
package struct SleepSession {
    /// A sample that starts no more than this after the cluster's end so far joins the cluster.
    /// An hour keeps one night together through getting up, a bathroom trip or a phone that
    /// stopped tracking for a while, yet splits an afternoon nap from the night before, or
    /// going back to bed after being up for more than an hour.
    package static let joinGapSeconds: Int64 = 60 * 60
    /// The longest a sleep sample may be: a night or a day's sleep is shorter. A longer one is a
    /// broken record (an app's sample from 2000 to 2099), a fault that no night counts.
    package static let maxSampleSeconds: Int64 = 24 * 3_600
    /// A sample that starts this long or longer after the session's first sample starts a new
    /// session, however close it is: with samples of at most `maxSampleSeconds`, no session
    /// spans more than 48 hours, whatever an app chains together.
    package static let maxSessionStartSeconds: Int64 = 24 * 3_600

    /// UTC start of the session's first sample.
    package let start: Int64
    /// The session measured as a night.
    package let night: SleepNight
    package let asleepSeconds: Int64
    package let inBedSeconds: Int64
    /// Local time of day (seconds after midnight, in the wake sample's offset) of the middle of
    /// the session's span: what tells a night from a daytime nap.
    package let midpointSecondOfDay: Int64

    /// Measures the samples gathered in `tally` (at least one), whose sources are tallied in
    /// `sources` (left empty) by their `sourceIndex` in `names`.
    package init(_ tally: SleepSessionTally, sources: inout SleepSourceTally, names: NameBytes) {
        let first = tally.first!
        start = first.start.utcSeconds
        // First InBed start: the first InBed sample in sample order.
        var bedStart = tally.firstInBed?.start ?? first.start
        // Latest end; on a tie the first in sample order, so the offset is deterministic.
        let wakeEnd = tally.wake!.end

        // One source per night for stages: the best-ranked source that recorded any. A gap in the
        // Watch's stages is time it did not see the person asleep; a phone app's legacy `Asleep`
        // must not fill it (nor be added to it). In-bed time still unions every source.
        let timeline = SleepTimeline(stageSamples: tally.nightSamples)

        var asleep: Int64 = 0
        var perStage: [SleepStage: Int64] = [:]
        var firstAsleep: Int? = nil, lastAsleep: Int? = nil
        var nightSourceWon = false
        for (i, seg) in timeline.segments.enumerated() {
            if seg.source != nil { nightSourceWon = true }
            guard let stage = seg.stage, stage.isAsleep else { continue }
            asleep += seg.end - seg.start
            perStage[stage, default: 0] += seg.end - seg.start
            if firstAsleep == nil { firstAsleep = i }
            lastAsleep = i
        }
        // Time in bed is the union of the InBed spans and the time asleep: one cannot sleep out of
        // bed, and real nights have an app's asleep span start before another's InBed (Mi Fit
        // and Sleep Cycle), which would otherwise give an efficiency above 1.
        let asleepSpans = timeline.segments.filter { $0.stage?.isAsleep == true }.map { ($0.start, $0.end) }
        let inBedSeconds =
            tally.firstInBed == nil
            ? wakeEnd.utcSeconds - bedStart.utcSeconds
            : Self.unionSeconds((tally.inBedRuns + asleepSpans).sorted { $0.0 < $1.0 })
        if let first = asleepSpans.first?.0, first < bedStart.utcSeconds {
            bedStart = Timestamp(utcSeconds: first, offsetMinutes: bedStart.offsetMinutes)
        }
        var awakenings = 0
        if let first = firstAsleep, let last = lastAsleep {
            awakenings = Self.awakenings(in: timeline.segments[first...last])
        }
        let latency = firstAsleep.map { max(0, timeline.segments[$0].start - bedStart.utcSeconds) } ?? 0
        let efficiency = inBedSeconds > 0 ? Double(asleep) / Double(inBedSeconds) : 0

        let nightSource = tally.nightSource.map { (name: $0.name, index: $0.index) }
        let named = sources.takeNamed(nightSource: nightSourceWon ? nightSource : nil, names: names)

        func minutes(_ seconds: Int64) -> Double { Double(seconds) / 60 }
        // Stage minutes exist only where the night's source recorded stages: a legacy `Asleep`
        // night has unknown stages, which 0 would misstate as none.
        let staged = timeline.segments.contains { $0.stage == .core || $0.stage == .deep || $0.stage == .rem }
        func stageMinutes(_ stage: SleepStage) -> Double? { staged ? minutes(perStage[stage] ?? 0) : nil }
        night = SleepNight(
            date: wakeEnd.localDateString, bedStart: bedStart, wakeEnd: wakeEnd,
            inBedMinutes: minutes(inBedSeconds), asleepMinutes: minutes(asleep),
            latencyMinutes: minutes(latency), efficiency: efficiency, awakenings: awakenings,
            coreMinutes: stageMinutes(.core), deepMinutes: stageMinutes(.deep),
            remMinutes: stageMinutes(.rem), sourceNames: SleepNightSources(named, in: names))
        asleepSeconds = asleep
        self.inBedSeconds = inBedSeconds
        let sessionStart = first.start.utcSeconds
        let midpointLocal = sessionStart + (wakeEnd.utcSeconds - sessionStart) / 2 + Int64(wakeEnd.offsetMinutes) * 60
        midpointSecondOfDay = ((midpointLocal % 86_400) + 86_400) % 86_400
    }

    /// True when the session's middle falls between 12:00 and 18:00 local: an afternoon sleep,
    /// a nap whatever its length. (A day sleeper's main sleep is counted as naps: the price of a
    /// rule that needs no history; it keeps siestas out of the nights of everyone else.)
    package var isDaytime: Bool { midpointSecondOfDay >= 12 * 3600 && midpointSecondOfDay < 18 * 3600 }

    /// Seconds covered by the union of the intervals (given in start order).
    package static func unionSeconds(_ intervals: [(Int64, Int64)]) -> Int64 {
        var total: Int64 = 0
        var runStart = Int64.min, runEnd = Int64.min
        for (a, b) in intervals {
            if a > runEnd {
                if runEnd > runStart { total += runEnd - runStart }
                runStart = a
                runEnd = b
            } else {
                runEnd = max(runEnd, b)
            }
        }
        if runEnd > runStart { total += runEnd - runStart }
        return total
    }

    /// Counts the non-asleep runs between asleep segments (the slice starts and ends asleep).
    /// A run counts if it holds an explicit `Awake`, or lasts at least a minute: shorter
    /// uncovered slivers are records that do not quite abut, not a waking.
    package static func awakenings(in segments: ArraySlice<SleepTimeline.Segment>) -> Int {
        var count = 0
        var runSeconds: Int64 = 0
        var runHasAwake = false
        for seg in segments {
            if let stage = seg.stage, stage.isAsleep {
                if runHasAwake || runSeconds >= 60 { count += 1 }
                runSeconds = 0
                runHasAwake = false
            } else {
                runSeconds += seg.end - seg.start
                if seg.stage == .awake { runHasAwake = true }
            }
        }
        return count
    }
}

/// What `SleepSession` measures of a cluster's samples, gathered one sample at a time, so that a
/// session costs its distinct sources, its InBed time's separate stretches and the stage samples
/// of its best stage source, not all its samples: a night of millions of overlapping samples from
/// a few sources costs what a few do.
///
/// Every figure kept is one the order of equal-start samples cannot change: the first sample,
/// the first InBed sample and the waking sample are minima under the total order
/// `SleepSample.precedes`; the InBed time is a union; the best stage source is a minimum.
package struct SleepSessionTally {
    /// The first sample, and the first InBed sample, in `SleepSample.precedes` order.
    package private(set) var first: SleepSample?
    package private(set) var firstInBed: SleepSample?
    /// The first sample in `SleepSample.precedes` order among those that end latest.
    package private(set) var wake: SleepSample?
    /// The InBed spans as runs in start order, overlapping and touching spans merged (samples
    /// come in start order; one out of order is kept as a run of its own, and the union taken
    /// at the end comes out the same).
    package private(set) var inBedRuns: [(Int64, Int64)] = []
    /// The best (rank, name) of the stage samples (not InBed, covering time) so far, with the
    /// name's `sourceIndex`, and that name's stage samples.
    package private(set) var nightSource: (rank: Int, name: String, index: UInt32)?
    package private(set) var nightSamples: [SleepSample] = []

    /// An empty tally, before a session's first sample.
    package init() {}

    /// True before the first sample.
    package var isEmpty: Bool { first == nil }

    /// Adds a sample; samples come in start order, ties in any order.
    package mutating func add(_ s: SleepSample) {
        if first.map({ SleepSample.precedes(s, $0) }) ?? true { first = s }
        if let latest = wake {
            if s.end.utcSeconds > latest.end.utcSeconds
                || (s.end.utcSeconds == latest.end.utcSeconds && SleepSample.precedes(s, latest))
            {
                wake = s
            }
        } else {
            wake = s
        }
        if s.stage == .inBed {
            if firstInBed.map({ SleepSample.precedes(s, $0) }) ?? true { firstInBed = s }
            let span = (s.start.utcSeconds, s.end.utcSeconds)
            if let last = inBedRuns.last, span.0 >= last.0, span.0 <= last.1 {
                inBedRuns[inBedRuns.count - 1].1 = Swift.max(last.1, span.1)
            } else {
                inBedRuns.append(span)
            }
            return
        }
        guard s.end.utcSeconds > s.start.utcSeconds else { return }
        if let best = nightSource, (best.rank, best.name) <= (s.sourceRank, s.source) {
            if s.source == best.name { nightSamples.append(s) }
            return
        }
        // A better source: its samples replace the others', but for the same name at a better rank.
        if nightSource?.name != s.source { nightSamples.removeAll(keepingCapacity: true) }
        nightSource = (s.sourceRank, s.source, s.sourceIndex!)
        nightSamples.append(s)
    }
}
