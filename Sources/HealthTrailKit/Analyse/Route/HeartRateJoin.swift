/// Heart rate at any moment of a route: a merge join of route points with heart-rate samples.
///
/// Built from the spill with only the samples inside the windows routes need (workouts, ± the
/// tolerance), sorted once. Each route file then walks it with a `Cursor`: its points come in
/// time order, so the cursor only moves forward, O(points + samples in the window).
///
/// A point gets the bpm linearly interpolated between the samples just before and just after
/// it when both lie within `tolerance`; else the nearer one within `tolerance`; else nothing.
/// Where two sources wrote a sample at the same second, the better-ranked one is kept.
public final class HeartRateJoin: @unchecked Sendable {
    public let tolerance: Int64
    /// Sample times, UTC seconds (32 bits: 1970…2106, like the spill) and their bpm: 8 bytes a
    /// sample inside the windows.
    let times: [UInt32]
    let bpms: [Float]

    /// A sample inside a window, on its way through the sort.
    struct WindowSample {
        var time: UInt32
        var rank: UInt32
        var bpm: Float
    }

    /// - Parameters:
    ///   - windows: UTC spans routes need (merged internally); samples outside them are skipped.
    ///   - sourceOrder: position of each source index in the priority order (0 best).
    ///   - sortSpillPath: where sorted runs of the windows' samples go while they are sorted
    ///     (nil: in memory).
    init(spill: HeartRateSpill, windows: [(Int64, Int64)], tolerance: Int64, sourceOrder: [Int],
         sortSpillPath: String? = nil, runLength: Int = 1 << 16) throws {
        self.tolerance = tolerance
        var set = IntervalSet()
        set.insert(contentsOf: windows.map { ($0.0 - tolerance, $0.1 + tolerance + 1) })
        let kept = SortedRunFile<WindowSample>(path: sortSpillPath, runLength: runLength) {
            $0.time != $1.time ? $0.time < $1.time : $0.rank < $1.rank
        }
        try spill.forEach { r in
            if set.contains(Int64(r.time)) {
                let rank = Int(r.source) < sourceOrder.count ? sourceOrder[Int(r.source)] : Int(UInt32.max)
                kept.append(WindowSample(time: r.time, rank: UInt32(clamping: rank), bpm: r.bpm))
            }
        }
        var times: [UInt32] = [], bpms: [Float] = []
        times.reserveCapacity(kept.count); bpms.reserveCapacity(kept.count)
        // Sorted by time, best source first: the first sample of each second wins.
        try kept.drain { s in
            if times.last != s.time {
                times.append(s.time)
                bpms.append(s.bpm)
            }
        }
        self.times = times
        self.bpms = bpms
    }

    /// A join from samples given directly (tests, and exports without a spill).
    init(samples: [(time: Int64, bpm: Double)], tolerance: Int64) {
        self.tolerance = tolerance
        let sorted = samples.sorted { $0.time < $1.time }
        times = sorted.map { UInt32(clamping: $0.time) }
        bpms = sorted.map { Float($0.bpm) }
    }

    public var sampleCount: Int { times.count }

    /// Walks the samples forward for one route's points, in time order.
    public struct Cursor {
        let join: HeartRateJoin
        /// Index of the first sample later than the last point asked for.
        var next = 0
        var started = false

        public init(_ join: HeartRateJoin) { self.join = join }

        /// The heart rate at `t` (UTC seconds), or nil.
        public mutating func bpm(at t: Int64) -> Double? {
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
