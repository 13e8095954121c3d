/// The fastest stretch of a workout over one target distance.
package struct BestEffort: Sendable, Equatable {
    /// The target, metres.
    package var distance: Double
    /// Wall-clock seconds of the fastest contiguous stretch covering `distance` metres: `end -
    /// start`, pauses included, the figure efforts are ranked by.
    package var elapsed: Double
    /// Active seconds of the stretch: `elapsed` less the pauses and the gaps between parts inside
    /// it.
    package var active: Double
    /// UTC seconds at which the stretch starts (the last moment at its start distance),
    /// interpolated, so usually fractional.
    package var start: Double
    /// UTC seconds at which the stretch ends (the first moment at its end distance), interpolated.
    package var end: Double

    /// An effort from its figures; `elapsed` is `end - start`.
    package init(distance: Double, active: Double, start: Double, end: Double) {
        self.distance = distance
        self.elapsed = end - start
        self.active = active
        self.start = start
        self.end = end
    }
}

/// Best efforts: for a target distance D, the contiguous stretch of a track that covers exactly D
/// metres in the least wall-clock time (pauses included, as Strava times them: a stretch across a
/// 29-minute stop is not a fast one), its active seconds computed alongside.
///
/// Along a track, wall-clock time is a piecewise-linear function of distance (linear within each
/// step), with a vertical jump at each stop and each pause (a step whose time grows but whose
/// distance does not). A stretch from distance x to x + D takes
/// `firstReach(x + D) - lastLeave(x)`: it ends the first moment the track reaches x + D and starts
/// the last moment it is still at x, so a stop at either end is left out. Between the distances
/// of the samples this difference is linear in x, so its minimum lies where one end is at a
/// sample. Two passes find it, each with a pointer that only moves forward: every sample as the
/// end with the start interpolated D metres before it, then every sample as the start with the end
/// interpolated D metres after it. Each pass visits each sample at most twice, so the work is
/// linear in the number of samples for each target. `BestEffortSearch` runs both passes as the
/// samples stream in, holding only the samples within about D metres of the newest.
///
/// A track covers D metres when its length is within `TrackSample.distanceTolerance` of D: a
/// track of exactly 10 km, whose summed distance falls a few nanometres short, has its 10 km
/// effort, from its first sample to its last: a start or end distance that lies beyond the
/// track's ends by less than the tolerance is clamped to them.
package enum BestEfforts {
    /// The usual running targets, metres.
    package static let running: [(name: String, metres: Double)] = [
        ("400 m", 400), ("1 km", 1000), ("1 mile", 1609.344), ("5 km", 5000), ("10 km", 10_000),
        ("half marathon", 21_097.5), ("marathon", 42_195),
    ]
    /// The usual cycling targets, metres.
    package static let cycling: [(name: String, metres: Double)] = [
        ("5 km", 5000), ("10 km", 10_000), ("20 km", 20_000), ("40 km", 40_000),
    ]

    /// The fastest stretch of `samples` covering `distance` metres; nil when the track covers less
    /// than that, has fewer than two samples, or `distance` is not a positive finite number.
    ///
    /// `samples` must meet `TrackSample`'s preconditions (time order, finite, non-decreasing
    /// totals). Among exactly equally fast stretches the one chosen is deterministic: the one
    /// ending earliest among those that end at a sample, else the one starting earliest.
    package static func fastest(_ samples: [TrackSample], distance: Double) -> BestEffort? {
        var steps = 0
        return fastest(samples, distance: distance, steps: &steps)
    }

    /// The best effort of `samples` for each of `targets` that the track is long enough for, in the
    /// targets' order (`BestEfforts.running` or `.cycling`, or the caller's own).
    package static func fastest(
        _ samples: [TrackSample], targets: [(name: String, metres: Double)]
    ) -> [(name: String, effort: BestEffort)] {
        var search = BestEffortSearch(targets: targets)
        for sample in samples { search.add(sample) }
        return search.finish()
    }

    /// `fastest(_:distance:)`, adding to `steps` one per loop iteration and per pointer move: the
    /// tests' proof that the work is linear without timing it.
    static func fastest(_ samples: [TrackSample], distance: Double, steps: inout Int) -> BestEffort? {
        var search = BestEffortSearch(targets: [("", distance)])
        for sample in samples { search.add(sample) }
        let found = search.finish().first?.effort
        steps += search.steps
        return found
    }
}

/// The best efforts of a track over several target distances, found while its samples stream in
/// (`BestEfforts` explains the two passes). The figures are those of the two passes run over the
/// whole track: each pass's step for a sample is taken as soon as the samples it reads have
/// arrived, in the same order, with the same arithmetic.
///
/// Memory: a pass reads only the samples from its pointer to the newest one, and its pointer
/// stays within one target distance (and a step) of the newest sample, so the search keeps the
/// samples that lie within the longest target of the newest: on a track no longer than that
/// target, or standing still, all of them. Older samples are dropped in batches, so at most about
/// twice that and a fixed batch are held, 24 bytes each: a marathon target at one fix every 3 m
/// holds some fifteen thousand samples, whatever the track's length.
package struct BestEffortSearch {
    /// One target's two passes: where each stands and the best stretch each found so far.
    private struct Passes {
        let distance: Double
        /// Pass 1's next end sample, and its pointer: the last sample at or below the start.
        var nextEnd = 1
        var before = 0
        var endBest: BestEffort?
        /// Pass 2's next start sample, and its pointer: the first sample at or beyond the end.
        var nextStart = 0
        var after = 0
        var startBest: BestEffort?

        init(distance: Double) { self.distance = distance }

        /// The lowest sample index either pass may still read.
        var lowestNeeded: Int { Swift.min(before, nextEnd - 1, nextStart, Swift.max(after - 1, 0)) }
    }

    /// The targets' names, and the passes of those that are a positive finite number of metres
    /// (by position in `names`; no other target is ever found).
    private let names: [String]
    private var passes: [(target: Int, passes: Passes)]
    /// What a pass reads of a sample: its time, distance and active seconds (24 bytes, where a
    /// whole `TrackSample` takes 56).
    private struct Point {
        var time: Int64
        var distance: Double
        var elapsed: Double
    }

    /// The samples kept, from index `windowStart` of the track on.
    private var window: [Point] = []
    private var windowStart = 0
    /// Samples added so far, and the first one's distance.
    private var count = 0
    private var firstDistance = 0.0
    /// Set by `finish`: the track's length is known.
    private var finished = false
    /// One per pass step taken and per pointer move, as `BestEfforts.fastest(_:distance:steps:)`
    /// counts them.
    private(set) var steps = 0
    /// The most samples held at once (the tests check the bound).
    private(set) var mostSamplesHeld = 0

    /// Samples dropped at once at least: dropping shifts the kept ones, so it is done rarely.
    private let dropBatch: Int

    /// A search for `targets` (names and metres); a target that is not a positive finite number of
    /// metres is never found. `dropBatch` (at least 1) is the fewest samples dropped at once; the
    /// tests make it small so that short tracks drop samples too.
    package init(targets: [(name: String, metres: Double)], dropBatch: Int = 4096) {
        self.dropBatch = Swift.max(1, dropBatch)
        names = targets.map(\.name)
        passes = targets.indices.compactMap { k in
            let metres = targets[k].metres
            return metres > 0 && metres.isFinite ? (k, Passes(distance: metres)) : nil
        }
    }

    /// Adds the next sample; samples must meet `TrackSample`'s preconditions.
    package mutating func add(_ sample: TrackSample) {
        guard !finished, !passes.isEmpty else { return }
        if count == 0 { firstDistance = sample.distance }
        window.append(Point(time: sample.time, distance: sample.distance, elapsed: sample.elapsed))
        count += 1
        mostSamplesHeld = Swift.max(mostSamplesHeld, window.count)
        guard count >= 2 else { return }
        var lowest = count - 1
        for k in passes.indices {
            var p = passes[k].passes
            steps += advance(&p)
            passes[k].passes = p
            lowest = Swift.min(lowest, p.lowestNeeded)
        }
        let droppable = lowest - windowStart
        if droppable >= dropBatch && droppable >= window.count / 2 {
            window.removeFirst(droppable)
            windowStart = lowest
        }
    }

    /// Ends the track: the best effort of each target the track is long enough for, in the
    /// targets' order. Samples added afterwards are ignored.
    package mutating func finish() -> [(name: String, effort: BestEffort)] {
        guard !finished else { return [] }
        finished = true
        guard count >= 2 else { return [] }
        var found: [(name: String, effort: BestEffort)] = []
        for k in passes.indices {
            var p = passes[k].passes
            steps += advance(&p)
            passes[k].passes = p
            guard sample(count - 1).distance - firstDistance >= p.distance - TrackSample.distanceTolerance else { continue }
            // The two passes in turn offer their stretches to one minimum that only a strictly
            // faster stretch replaces: pass 2's best wins only when strictly faster than pass 1's.
            let best: BestEffort?
            if let endBest = p.endBest, let startBest = p.startBest {
                best = startBest.elapsed < endBest.elapsed ? startBest : endBest
            } else {
                best = p.endBest ?? p.startBest
            }
            if let best { found.append((names[passes[k].target], best)) }
        }
        return found
    }

    /// The sample at track index `index` (held: not below `windowStart`, below `count`).
    @inline(__always)
    private func sample(_ index: Int) -> Point { window[index - windowStart] }

    /// Takes every step of both passes of `p` whose samples have all arrived (all of them once
    /// the track is finished); returns the steps and pointer moves taken. Needs two samples.
    private func advance(_ p: inout Passes) -> Int {
        var steps = 0
        let distance = p.distance
        let first = firstDistance
        let newest = sample(count - 1).distance

        // Pass 1: each sample as the end. Of several samples at one distance (a stop), only the
        // first reaches it; the later ones would add the stop's time.
        endPass: while p.nextEnd < count {
            let end = sample(p.nextEnd)
            guard end.distance != sample(p.nextEnd - 1).distance, end.distance - first >= distance - TrackSample.distanceTolerance else {
                p.nextEnd += 1
                steps += 1
                continue
            }
            // Clamped so that a rounding of `end.distance - distance` below the track's start
            // cannot lose the stretch that starts at the first sample.
            let startDistance = Swift.max(end.distance - distance, first)
            while p.before + 1 < count && sample(p.before + 1).distance <= startDistance {
                p.before += 1
                steps += 1
            }
            // A pointer on the newest sample of an unfinished track might move on over samples
            // yet to come: the step waits for them. (The start lies below the end, so only a
            // distance too small to change the end's in floating point gets here.)
            if p.before + 1 == count && !finished { break endPass }
            // `before` is the last sample at or below the start: on it, the start is its moment
            // (the end of any stop there); else the start lies inside the step after it.
            let before = sample(p.before)
            let start =
                before.distance >= startDistance || p.before + 1 == count
                ? (before.elapsed, Double(before.time))
                : Self.at(startDistance, between: before, and: sample(p.before + 1))
            Self.consider(&p.endBest, distance: distance, from: start, to: (end.elapsed, Double(end.time)))
            p.nextEnd += 1
            steps += 1
        }

        // Pass 2: each sample as the start. Of several samples at one distance, only the last
        // leaves it; the earlier ones would add the stop's time.
        while p.nextStart + 1 < count {
            let start = sample(p.nextStart)
            guard start.distance != sample(p.nextStart + 1).distance else {
                p.nextStart += 1
                steps += 1
                continue
            }
            // Until the track has reached the end distance, whether it ever will (and where the
            // end lies, clamped to the track's last distance) is unknown: the step waits. Once
            // the newest sample is that far, the last distance (no smaller) agrees. Within the
            // tolerance short of it, only the track's end says whether it goes further.
            if !finished && !(newest - start.distance >= distance && start.distance + distance <= newest) { break }
            guard newest - start.distance >= distance - TrackSample.distanceTolerance else {
                p.nextStart += 1
                steps += 1
                continue
            }
            let endDistance = Swift.min(start.distance + distance, newest)
            while p.after + 1 < count && sample(p.after).distance < endDistance {
                p.after += 1
                steps += 1
            }
            // `after` is the first sample at or beyond the end: on it, the end is its moment (the
            // start of any stop there); else the end lies inside the step before it.
            let after = sample(p.after)
            let end =
                after.distance <= endDistance || p.after == 0
                ? (after.elapsed, Double(after.time))
                : Self.at(endDistance, between: sample(p.after - 1), and: after)
            Self.consider(&p.startBest, distance: distance, from: (start.elapsed, Double(start.time)), to: end)
            p.nextStart += 1
            steps += 1
        }
        return steps
    }

    /// Keeps the stretch from `start` to `end` in `best` when it is strictly faster by the clock
    /// (the first of equally fast ones stays).
    private static func consider(
        _ best: inout BestEffort?, distance: Double, from start: (elapsed: Double, time: Double),
        to end: (elapsed: Double, time: Double)
    ) {
        if best.map({ end.time - start.time < $0.elapsed }) ?? true {
            best = BestEffort(distance: distance, active: end.elapsed - start.elapsed, start: start.time, end: end.time)
        }
    }

    /// Active seconds and UTC time at `distance` inside the step from `a` to `b`, linearly by
    /// the fraction of the step's distance. The callers pick a step whose distance grows and
    /// contains `distance`.
    private static func at(_ distance: Double, between a: Point, and b: Point) -> (elapsed: Double, time: Double) {
        let fraction = (distance - a.distance) / (b.distance - a.distance)
        return (a.elapsed + fraction * (b.elapsed - a.elapsed), Double(a.time) + fraction * (Double(b.time) - Double(a.time)))
    }
}
