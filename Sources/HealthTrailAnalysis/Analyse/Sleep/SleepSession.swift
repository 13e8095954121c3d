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

    /// Measures `samples` (non-empty, in `SleepSample.precedes` order).
    package init(_ samples: [SleepSample]) {
        start = samples[0].start.utcSeconds
        let inBed = samples.filter { $0.stage == .inBed }
        // First InBed start; the samples are in start order, so the first one found.
        var bedStart = inBed.first?.start ?? samples[0].start
        // Latest end; on a tie the first in sample order, so the offset is deterministic.
        var wakeEnd = samples[0].end
        for s in samples where s.end.utcSeconds > wakeEnd.utcSeconds { wakeEnd = s.end }

        // One source per night for stages: the best-ranked source that recorded any. A gap in the
        // Watch's stages is time it did not see the person asleep; a phone app's legacy `Asleep`
        // must not fill it (nor be added to it). In-bed time still unions every source.
        let stageSamples = samples.filter { $0.stage != .inBed && $0.end.utcSeconds > $0.start.utcSeconds }
        let nightSource = stageSamples.min { ($0.sourceRank, $0.source) < ($1.sourceRank, $1.source) }?.source
        let timeline = SleepTimeline(stageSamples: stageSamples.filter { $0.source == nightSource })

        var asleep: Int64 = 0
        var perStage: [SleepStage: Int64] = [:]
        var firstAsleep: Int? = nil, lastAsleep: Int? = nil
        var winners = Set(inBed.map(\.source))
        for (i, seg) in timeline.segments.enumerated() {
            if let source = seg.source { winners.insert(source) }
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
            inBed.isEmpty
            ? wakeEnd.utcSeconds - bedStart.utcSeconds
            : Self.unionSeconds((inBed.map { ($0.start.utcSeconds, $0.end.utcSeconds) } + asleepSpans).sorted { $0.0 < $1.0 })
        if let first = asleepSpans.first?.0, first < bedStart.utcSeconds {
            bedStart = Timestamp(utcSeconds: first, offsetMinutes: bedStart.offsetMinutes)
        }
        var awakenings = 0
        if let first = firstAsleep, let last = lastAsleep {
            awakenings = Self.awakenings(in: timeline.segments[first...last])
        }
        let latency = firstAsleep.map { max(0, timeline.segments[$0].start - bedStart.utcSeconds) } ?? 0
        let efficiency = inBedSeconds > 0 ? Double(asleep) / Double(inBedSeconds) : 0

        var rankOf: [String: Int] = [:]
        for s in samples where winners.contains(s.source) { rankOf[s.source] = min(rankOf[s.source] ?? .max, s.sourceRank) }
        let sources = rankOf.sorted { $0.value != $1.value ? $0.value < $1.value : $0.key < $1.key }.map(\.key)

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
            remMinutes: stageMinutes(.rem), sources: sources)
        asleepSeconds = asleep
        self.inBedSeconds = inBedSeconds
        let sessionStart = samples[0].start.utcSeconds
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
