/// The fastest stretch of a workout over one target distance.
package struct BestEffort: Sendable, Equatable {
    /// The target, metres.
    package var distance: Double
    /// Active seconds of the fastest contiguous stretch covering `distance` metres.
    package var elapsed: Double
    /// UTC seconds at which the stretch starts (the last moment at its start distance),
    /// interpolated, so usually fractional. `end - start` exceeds `elapsed` when the stretch spans
    /// a pause.
    package var start: Double
    /// UTC seconds at which the stretch ends (the first moment at its end distance), interpolated.
    package var end: Double

    /// An effort from its figures.
    package init(distance: Double, elapsed: Double, start: Double, end: Double) {
        self.distance = distance
        self.elapsed = elapsed
        self.start = start
        self.end = end
    }
}

/// Best efforts: for a target distance D, the contiguous stretch of a track that covers exactly D
/// metres in the least active time.
///
/// Along a track, active time is a piecewise-linear function of distance (linear within each
/// step), with a vertical jump at each stop. A stretch from distance x to x + D takes
/// `firstReach(x + D) - lastLeave(x)`: it ends the first moment the track reaches x + D and starts
/// the last moment it is still at x, so a stop at either end is left out. Between the distances
/// of the samples this difference is linear in x, so its minimum lies where one end is at a
/// sample. Two passes find it, each with a pointer that only moves forward: every sample as the
/// end with the start interpolated D metres before it, then every sample as the start with the end
/// interpolated D metres after it. Each pass visits each sample at most twice, so the work is
/// linear in the number of samples for each target.
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
        targets.compactMap { target in fastest(samples, distance: target.metres).map { (target.name, $0) } }
    }

    /// `fastest(_:distance:)`, adding to `steps` one per loop iteration and per pointer move: the
    /// tests' proof that the work is linear without timing it.
    static func fastest(_ samples: [TrackSample], distance: Double, steps: inout Int) -> BestEffort? {
        let count = samples.count
        guard count >= 2, distance > 0, distance.isFinite else { return nil }
        let first = samples[0].distance
        let last = samples[count - 1].distance
        guard last - first >= distance else { return nil }

        var best: BestEffort?
        func consider(from start: (elapsed: Double, time: Double), to end: (elapsed: Double, time: Double)) {
            let elapsed = end.elapsed - start.elapsed
            if best.map({ elapsed < $0.elapsed }) ?? true {
                best = BestEffort(distance: distance, elapsed: elapsed, start: start.time, end: end.time)
            }
        }

        // Pass 1: each sample as the end. Of several samples at one distance (a stop), only the
        // first reaches it; the later ones would add the stop's time.
        var before = 0   // the last sample at or below the start distance
        for endIndex in 1..<count {
            steps += 1
            let end = samples[endIndex]
            guard end.distance != samples[endIndex - 1].distance, end.distance - first >= distance else { continue }
            // Clamped so that a rounding of `end.distance - distance` below the track's start
            // cannot lose the stretch that starts at the first sample.
            let startDistance = max(end.distance - distance, first)
            while before + 1 < count && samples[before + 1].distance <= startDistance {
                before += 1
                steps += 1
            }
            // `before` is the last sample at or below the start: on it, the start is its moment
            // (the end of any stop there); else the start lies inside the step after it.
            let start =
                samples[before].distance >= startDistance || before + 1 == count
                ? (samples[before].elapsed, Double(samples[before].time))
                : at(startDistance, between: samples[before], and: samples[before + 1])
            consider(from: start, to: (end.elapsed, Double(end.time)))
        }

        // Pass 2: each sample as the start. Of several samples at one distance, only the last
        // leaves it; the earlier ones would add the stop's time.
        var after = 0   // the first sample at or beyond the end distance
        for startIndex in 0..<(count - 1) {
            steps += 1
            let start = samples[startIndex]
            guard start.distance != samples[startIndex + 1].distance, last - start.distance >= distance else { continue }
            let endDistance = min(start.distance + distance, last)
            while after + 1 < count && samples[after].distance < endDistance {
                after += 1
                steps += 1
            }
            // `after` is the first sample at or beyond the end: on it, the end is its moment (the
            // start of any stop there); else the end lies inside the step before it.
            let end =
                samples[after].distance <= endDistance || after == 0
                ? (samples[after].elapsed, Double(samples[after].time))
                : at(endDistance, between: samples[after - 1], and: samples[after])
            consider(from: (start.elapsed, Double(start.time)), to: end)
        }
        return best
    }

    /// Active seconds and UTC time at `distance` inside the step from `a` to `b`, linearly by
    /// the fraction of the step's distance. The callers pick a step whose distance grows and
    /// contains `distance`.
    private static func at(_ distance: Double, between a: TrackSample, and b: TrackSample) -> (elapsed: Double, time: Double) {
        let fraction = (distance - a.distance) / (b.distance - a.distance)
        return (a.elapsed + fraction * (b.elapsed - a.elapsed), Double(a.time) + fraction * (Double(b.time) - Double(a.time)))
    }
}
