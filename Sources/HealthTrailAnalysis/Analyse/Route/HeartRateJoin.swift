/// Heart rate at any moment of a route: a merge join of route points with heart-rate samples.
///
/// Built from the spill with only the samples inside the windows routes need (workouts, ± the
/// tolerance), sorted once. Each route file then walks it with a `Cursor`: its points come in
/// time order, so the cursor only moves forward, O(points + samples in the window).
///
/// A point gets the bpm linearly interpolated between the samples just before and just after
/// it when both lie within `tolerance`; else the nearer one within `tolerance`; else nothing.
///
/// Samples at one instant (two sources, or a background reading beside a workout's own at the
/// same second) become one value: the best-ranked source's (`SourcePriority`), and where that
/// source wrote several, their mean. Health itself prefers one source per span, so a worse
/// source never pulls the value; between readings of equal rank nothing says which is right,
/// and picking one would let the order of the input decide (a 149 bpm ride dipping to 76 for a
/// second). The mean is bounded by the readings and independent of their order: samples are
/// sorted by time, rank and bpm, so the same set of samples always sums in the same order.
package final class HeartRateJoin: Sendable {
    package let tolerance: Int64
    /// Sample times, UTC seconds (32 bits: 1970…2106, like the spill) and their bpm: 8 bytes a
    /// sample inside the windows.
    package let times: [UInt32]
    package let bpms: [Float]

    /// A sample inside a window, on its way through the sort.
    package struct WindowSample: BitwiseCopyable {
        package var time: UInt32
        package var rank: UInt32
        package var bpm: Float
    }

    /// - Parameters:
    ///   - windows: UTC spans routes need (merged internally); samples outside them are skipped.
    ///   - sourceOrder: position of each source index in the priority order (0 best).
    ///   - sortSpillPath: where sorted runs of the windows' samples go while they are sorted
    ///     (nil: in memory).
    package init(
        spill: HeartRateSpill, windows: [(Int64, Int64)], tolerance: Int64, sourceOrder: [UInt32],
        sortSpillPath: String? = nil, runLength: Int = 1 << 16
    ) throws {
        self.tolerance = tolerance
        var set = IntervalSet()
        set.insert(contentsOf: windows.map { ($0.0 - tolerance, $0.1 + tolerance + 1) })
        // A total order (bpm last): which samples meet at one second, and the order their mean
        // sums them in, never depend on the order the spill or the sort delivered them.
        let kept = SortedRunFile<WindowSample>(path: sortSpillPath, runLength: runLength) {
            ($0.time, $0.rank, $0.bpm) < ($1.time, $1.rank, $1.bpm)
        }
        try spill.forEach { r in
            if set.contains(Int64(r.time)) {
                let rank = Int(r.source) < sourceOrder.count ? sourceOrder[Int(r.source)] : UInt32.max
                kept.append(WindowSample(time: r.time, rank: rank, bpm: r.bpm))
            }
        }
        var merged = SecondMerger(capacity: kept.count)
        try kept.drain { merged.add($0) }
        (times, bpms) = merged.finish()
    }

    /// A join from samples given directly (tests, and exports without a spill): all of one rank,
    /// so samples at one second are averaged.
    package init(samples: [(time: Int64, bpm: Double)], tolerance: Int64) {
        self.tolerance = tolerance
        let sorted = samples.map { WindowSample(time: UInt32(clamping: $0.time), rank: 0, bpm: Float($0.bpm)) }
            .sorted { ($0.time, $0.bpm) < ($1.time, $1.bpm) }
        var merged = SecondMerger(capacity: sorted.count)
        for s in sorted { merged.add(s) }
        (times, bpms) = merged.finish()
    }

    /// One value per second from samples sorted by time, rank and bpm: the best rank's mean.
    package struct SecondMerger {
        package var times: [UInt32] = [], bpms: [Float] = []
        package var rank: UInt32 = 0, sum = 0.0, n = 0.0

        package init(capacity: Int) { times.reserveCapacity(capacity); bpms.reserveCapacity(capacity) }

        package mutating func add(_ s: WindowSample) {
            if times.last != s.time {
                times.append(s.time)
                bpms.append(s.bpm)
                (rank, sum, n) = (s.rank, Double(s.bpm), 1)
            } else if s.rank == rank {
                // Another reading of the best source at this second: the value is their mean.
                sum += Double(s.bpm)
                n += 1
                bpms[bpms.count - 1] = Float(sum / n)
            }
        }

        package func finish() -> ([UInt32], [Float]) { (times, bpms) }
    }

    package var sampleCount: Int { times.count }

    /// The highest bpm the join holds from `start` to `end` (UTC seconds, both included); nil
    /// when it holds none there. Only samples inside the join's windows are held.
    package func maximum(from start: Int64, to end: Int64) -> Double? {
        guard start <= end, end >= 0, start <= Int64(UInt32.max) else { return nil }
        let lowTime = UInt32(clamping: start), highTime = UInt32(clamping: end)
        var lo = 0, hi = times.count
        while lo < hi { let mid = (lo + hi) / 2; if times[mid] < lowTime { lo = mid + 1 } else { hi = mid } }
        var best: Float? = nil
        var i = lo
        while i < times.count && times[i] <= highTime {
            best = max(best ?? bpms[i], bpms[i])
            i += 1
        }
        return best.map(Double.init)
    }

    /// Walks the samples forward for one route's points, in time order.
    package struct Cursor {
        package let join: HeartRateJoin
        /// Index of the first sample later than the last point asked for.
        package var next = 0
        package var started = false

        package init(_ join: HeartRateJoin) { self.join = join }

        /// The heart rate at `t` (UTC seconds), or nil.
        package mutating func bpm(at t: Int64) -> Double? {
            let times = join.times
            guard !times.isEmpty else { return nil }
            // Points outside 1970…2106 cannot match a sample (the spill keeps 32-bit seconds).
            guard t >= 0 && t <= Int64(UInt32.max) else { return nil }
            let t = UInt32(t)
            if !started || (next > 0 && times[next - 1] > t) {
                // First point, or a point earlier than the previous one: binary search.
                var lo = 0, hi = times.count
                while lo < hi { let mid = (lo + hi) / 2; if times[mid] <= t { lo = mid + 1 } else { hi = mid } }
                next = lo
                started = true
            }
            while next < times.count && times[next] <= t { next += 1 }
            // times[next - 1] <= t < times[next]
            let before = next - 1
            let tolerance = join.tolerance
            if before >= 0 && times[before] == t { return Double(join.bpms[before]) }
            let hasBefore = before >= 0 && Int64(t - times[before]) <= tolerance
            let hasAfter = next < times.count && Int64(times[next] - t) <= tolerance
            if hasBefore && hasAfter {
                let t0 = times[before], t1 = times[next]
                let b0 = Double(join.bpms[before]), b1 = Double(join.bpms[next])
                return b0 + (b1 - b0) * Double(t - t0) / Double(t1 - t0)
            }
            if hasBefore && (!hasAfter) { return Double(join.bpms[before]) }
            if hasAfter { return Double(join.bpms[next]) }
            return nil
        }
    }
}
