/// The stage timeline of one session after the source priority merge.
///
/// Time is cut into elementary segments at every boundary of every stage sample (InBed samples
/// are left out: they say nothing about sleep and are unioned separately). Each segment takes
/// the stage of the best sample covering it: lowest `sourceRank`, then source name (so rank
/// ties are deterministic), then within one source `SleepStage.overlapPrecedence`, so
/// overlapping samples never double count and an `Awake` stays awake. `SleepSession` hands it
/// the stages of one source per night; the ranking still settles a source's own overlaps and
/// keeps the timeline usable for several. Segments no stage sample covers are kept as gaps
/// (`stage == nil`), contiguous with the rest, for awakenings.
package struct SleepTimeline {
    package struct Segment: Equatable {
        package var start: Int64
        package var end: Int64
        /// The winning stage; nil for time no stage sample covers.
        package var stage: SleepStage?
        /// The source whose sample won; nil for a gap.
        package var source: String?
    }

    /// Contiguous, in time order, from the earliest stage start to the latest stage end.
    package let segments: [Segment]

    /// O(n log n): one sort of the boundaries and one of the samples by priority, then each
    /// sample paints only the still unpainted segments of its span, found through a
    /// "next unpainted segment" forest with path halving (near constant per step).
    package init(stageSamples: [SleepSample]) {
        let samples = stageSamples.filter { $0.stage != .inBed && $0.end.utcSeconds > $0.start.utcSeconds }
        var bounds: [Int64] = []
        bounds.reserveCapacity(samples.count * 2)
        for s in samples {
            bounds.append(s.start.utcSeconds)
            bounds.append(s.end.utcSeconds)
        }
        bounds.sort()
        bounds = Self.unique(bounds)
        guard bounds.count >= 2 else {
            segments = []
            return
        }
        let count = bounds.count - 1
        let ordered = samples.sorted(by: Self.outranks)
        var winner = [Int](repeating: -1, count: count)
        // next[i]: the first unpainted segment at or after i (count = past the end).
        var next = Array(0...count)
        func firstUnpainted(_ from: Int) -> Int {
            var i = from
            while next[i] != i {
                next[i] = next[next[i]]
                i = next[i]
            }
            return i
        }
        for (k, s) in ordered.enumerated() {
            let lo = Self.index(of: s.start.utcSeconds, in: bounds)
            let hi = Self.index(of: s.end.utcSeconds, in: bounds)
            var i = firstUnpainted(lo)
            while i < hi {
                winner[i] = k
                next[i] = i + 1
                i = firstUnpainted(i + 1)
            }
        }
        var result: [Segment] = []
        result.reserveCapacity(count)
        for i in 0..<count {
            let w = winner[i]
            let stage = w >= 0 ? ordered[w].stage : nil
            let source = w >= 0 ? ordered[w].source : nil
            // Neighbours with the same stage and source are one span: fewer, longer segments.
            if let last = result.last, last.stage == stage, last.source == source, last.end == bounds[i] {
                result[result.count - 1].end = bounds[i + 1]
            } else {
                result.append(Segment(start: bounds[i], end: bounds[i + 1], stage: stage, source: source))
            }
        }
        segments = result
    }

    /// Merge priority: rank, then source name, then the more specific stage, then time (total,
    /// so the result never depends on input order).
    package static func outranks(_ a: SleepSample, _ b: SleepSample) -> Bool {
        if a.sourceRank != b.sourceRank { return a.sourceRank < b.sourceRank }
        if a.source != b.source { return a.source < b.source }
        if a.stage != b.stage { return a.stage.overlapPrecedence < b.stage.overlapPrecedence }
        return SleepSample.precedes(a, b)
    }

    /// Position of `value` in the sorted, duplicate-free `bounds` (it is always present).
    package static func index(of value: Int64, in bounds: [Int64]) -> Int {
        var lo = 0, hi = bounds.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if bounds[mid] < value { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    package static func unique(_ sorted: [Int64]) -> [Int64] {
        var out: [Int64] = []
        out.reserveCapacity(sorted.count)
        for v in sorted where out.last != v { out.append(v) }
        return out
    }
}
