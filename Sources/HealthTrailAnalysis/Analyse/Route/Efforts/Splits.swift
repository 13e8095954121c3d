/// One split of a workout: the stretch of its track between two consecutive multiples of the
/// split unit (a kilometre or a mile), or the shorter stretch after the last multiple.
package struct Split: Sendable, Equatable {
    /// 1-based position of the split in the workout.
    package var index: Int
    /// Metres in the split: the unit, except for the last split (see `isPartial` and
    /// `SplitBuilder.minimumPartialDistance`).
    package var distance: Double
    /// Active seconds spent in the split.
    package var elapsed: Double
    /// Moving seconds spent in the split.
    package var moving: Double
    /// Moving seconds per kilometre, whatever the split unit; nil when the split is shorter than
    /// `minimumPaceDistance` or has no moving time, where a pace would be noise or meaningless.
    package var paceSecondsPerKilometre: Double?
    /// Mean heart rate over the split, weighted by active seconds; nil when no step of the split
    /// has a known heart rate. A step's heart rate is the mean of its two ends' known values (the
    /// one known end's when only one is). When the steps that have one carry no active time at
    /// all, their plain mean is taken, so that a known heart rate is never reported as unknown.
    package var meanBPM: Double?
    /// Metres of elevation gain in the split.
    package var climb: Double
    /// True for a last split shorter than the unit.
    package var isPartial: Bool
    /// UTC seconds at which the split ends, interpolated (so usually fractional): where a map
    /// puts its kilometre or mile marker.
    package var endTime: Double

    /// A split shorter than this (metres) has no pace: over a few metres, GPS noise and rounding
    /// make the pace of a short last split absurd (minutes per kilometre for a one-metre split).
    package static let minimumPaceDistance: Double = 10

    /// A split from its figures; the pace is derived from `distance` and `moving`.
    package init(
        index: Int, distance: Double, elapsed: Double, moving: Double, meanBPM: Double?, climb: Double, isPartial: Bool,
        endTime: Double
    ) {
        self.index = index
        self.distance = distance
        self.elapsed = elapsed
        self.moving = moving
        self.paceSecondsPerKilometre = Split.pace(distance: distance, moving: moving)
        self.meanBPM = meanBPM
        self.climb = climb
        self.isPartial = isPartial
        self.endTime = endTime
    }

    /// Moving seconds per mile: `paceSecondsPerKilometre` scaled, nil when it is.
    package var paceSecondsPerMile: Double? { paceSecondsPerKilometre.map { $0 * SplitBuilder.mile / SplitBuilder.kilometre } }

    /// Moving seconds per kilometre over `distance` metres, nil when there is too little distance
    /// or no moving time for a pace to mean anything.
    static func pace(distance: Double, moving: Double) -> Double? {
        guard distance >= minimumPaceDistance, moving > 0 else { return nil }
        return moving / (distance / SplitBuilder.kilometre)
    }
}

/// Cuts a workout's track into splits of `unit` metres as its samples stream in: the state is the
/// previous sample, the current split's starting totals and a few sums, so the memory does not
/// grow with the number of points (only with the number of splits, which are kept).
///
/// The boundaries lie at `first.distance + k·unit` (k = 1, 2, …), where `first` is the first
/// sample added; the caller counts distance from the workout's first active point, so they are the
/// multiples of the unit. A boundary inside a step is interpolated linearly by the fraction of the
/// step's distance: the step's elapsed, moving and climb growth, its time, and its weight in the
/// mean heart rate are all divided in that proportion.
///
/// A split covers the distances above its lower boundary up to and including its upper one: a
/// stop exactly on a boundary (a step whose distance does not grow) counts in the split that ends
/// there, and a stop at the very start counts in the first split. So a split ends (`endTime`) at
/// the last moment the track is on its boundary, and a track that ends on a boundary, stopped
/// there or not, has no partial split.
///
/// "On a boundary" means within `TrackSample.distanceTolerance` of it: a sample that close to a
/// boundary is on it, and the boundary closes at that sample (at its last moment, after any stop
/// there) rather than inside the step before or after it. A track's distance is a sum of many
/// steps, so a boundary the track reaches exactly is usually missed by a rounding error either
/// way; compared exactly, a run of exactly 10 km would end short of its tenth boundary.
///
/// The last split: the stretch after the last boundary becomes a partial split (`isPartial`)
/// when it is at least `minimumPartialDistance` long. A shorter one is rounding or GPS noise, not
/// a split worth a row, so it is folded into the last full split (whose distance then exceeds the
/// unit by less than the minimum), which keeps the splits' sums equal to the track's totals. A
/// track shorter than the minimum altogether has no splits.
package struct SplitBuilder: Sendable {
    /// Metres in a kilometre split.
    package static let kilometre: Double = 1000
    /// Metres in a mile split (the international mile).
    package static let mile: Double = 1609.344
    /// Metres the stretch after the last full split needs to be a split of its own; a shorter one
    /// is folded into the split before it.
    package static let minimumPartialDistance: Double = 1

    /// Metres per split.
    package let unit: Double
    /// The splits completed so far, in order: a caller that streams reads the new ones after each
    /// `add` (its return value says how many). `finish` appends the last one.
    package private(set) var splits: [Split] = []

    /// Active seconds, moving seconds and climb, running totals at one point of the track.
    private struct Totals {
        var elapsed: Double, moving: Double, climb: Double
    }

    /// The sums a split's mean heart rate is made of.
    private struct HeartRateSums {
        /// Sum of bpm × active seconds, and of the active seconds, over the step portions that
        /// have a heart rate.
        var weighted: Double = 0, weight: Double = 0
        /// Plain sum and count of those portions' bpm, for a split whose heart-rate steps carry
        /// no active time.
        var plain: Double = 0, count: Int = 0

        /// Adds the portion `fraction` (of distance, 0...1) of a step whose heart rate is `bpm`
        /// and whose active time is `stepElapsed`.
        mutating func add(_ bpm: Double?, fraction: Double, stepElapsed: Double) {
            guard let bpm, fraction > 0 else { return }
            let seconds = fraction * stepElapsed
            weighted += bpm * seconds
            weight += seconds
            plain += bpm
            count += 1
        }

        /// Adds another split's sums, for a folded last stretch.
        mutating func merge(_ other: HeartRateSums) {
            weighted += other.weighted
            weight += other.weight
            plain += other.plain
            count += other.count
        }

        /// The mean: weighted by active seconds when any was, plain otherwise; nil without any.
        var mean: Double? {
            if weight > 0 { return weighted / weight }
            return count > 0 ? plain / Double(count) : nil
        }
    }

    /// The previous sample, nil before the first.
    private var previous: TrackSample?
    /// The first sample's distance: boundaries are counted from it.
    private var origin: Double = 0
    /// The totals where the current split starts.
    private var splitStart = Totals(elapsed: 0, moving: 0, climb: 0)
    /// Heart-rate sums of the current split, and of the last full one (for folding).
    private var heartRate = HeartRateSums()
    private var lastFullHeartRate = HeartRateSums()
    /// Set by `finish`: later samples are ignored, and `finish` answers the same splits again.
    private var finished = false

    /// A builder of `unit`-metre splits (`SplitBuilder.kilometre` or `SplitBuilder.mile`).
    /// `unit` must be positive and finite: any other is a programming error and traps.
    package init(unit: Double) {
        precondition(unit > 0 && unit.isFinite, "split unit must be a positive number of metres")
        self.unit = unit
    }

    /// Distance of the `k`th boundary (k = 0 is the start), computed afresh rather than summed,
    /// so that rounding does not drift over a long workout.
    private func boundary(_ k: Int) -> Double { origin + Double(k) * unit }

    /// Adds the next sample of the track; returns how many splits it completed (a long step may
    /// complete several, a step across a gap for instance). A sample with a non-finite distance is
    /// ignored: it would place boundaries nowhere.
    @discardableResult
    package mutating func add(_ sample: TrackSample) -> Int {
        guard !finished, sample.distance.isFinite else { return 0 }
        guard let last = previous else {
            previous = sample
            origin = sample.distance
            splitStart = Totals(elapsed: sample.elapsed, moving: sample.moving, climb: sample.climb)
            return 0
        }
        let completedBefore = splits.count
        let stepDistance = sample.distance - last.distance
        let stepBPM = last.stepBPM(to: sample)
        let stepElapsed = sample.elapsed - last.elapsed
        // The fraction of this step already given to earlier splits. The step starts at or below
        // the next boundary and its tolerance (the loop below leaves it so), so when it ends
        // beyond them, its distance grew and the fraction is well defined.
        var assigned = 0.0
        while sample.distance > boundary(splits.count + 1) + TrackSample.distanceTolerance {
            // A step that starts on the boundary (within the tolerance) closes it at its start.
            let ahead = boundary(splits.count + 1) - last.distance
            let fraction = ahead <= TrackSample.distanceTolerance ? assigned : max(assigned, min(1, ahead / stepDistance))
            heartRate.add(stepBPM, fraction: fraction - assigned, stepElapsed: stepElapsed)
            closeFullSplit(at: interpolated(last, sample, fraction), time: interpolatedTime(last, sample, fraction))
            assigned = fraction
        }
        // The rest of the step, all of it for a stop, stays in the current split.
        heartRate.add(stepBPM, fraction: 1 - assigned, stepElapsed: stepElapsed)
        previous = sample
        return splits.count - completedBefore
    }

    /// Ends the track: completes the last split (partial, full, or folded into the one before, as
    /// the type's documentation says) and returns every split. Samples added afterwards are
    /// ignored, and calling it again returns the same splits.
    package mutating func finish() -> [Split] {
        guard !finished else { return splits }
        let endsOnBoundary = splitEndingAtTrackEnd
        finished = true
        guard let last = previous else { return splits }
        let end = Totals(elapsed: last.elapsed, moving: last.moving, climb: last.climb)
        if let endsOnBoundary {
            splits.append(endsOnBoundary)
            return splits
        }
        let rest = last.distance - boundary(splits.count)
        if rest >= SplitBuilder.minimumPartialDistance {
            splits.append(
                Split(
                    index: splits.count + 1, distance: rest, elapsed: end.elapsed - splitStart.elapsed,
                    moving: end.moving - splitStart.moving, meanBPM: heartRate.mean, climb: end.climb - splitStart.climb,
                    isPartial: true, endTime: Double(last.time)))
        } else if let folded = splits.popLast() {
            lastFullHeartRate.merge(heartRate)
            splits.append(
                Split(
                    index: folded.index, distance: folded.distance + max(0, rest),
                    elapsed: folded.elapsed + (end.elapsed - splitStart.elapsed),
                    moving: folded.moving + (end.moving - splitStart.moving), meanBPM: lastFullHeartRate.mean,
                    climb: folded.climb + (end.climb - splitStart.climb), isPartial: false, endTime: Double(last.time)))
        }
        return splits
    }

    /// The full split that `finish` would close because the track so far ends on its boundary
    /// (within `TrackSample.distanceTolerance`), nil when it does not, before the first sample
    /// and once finished. A map drawn before the track is finished marks its end with it.
    package var splitEndingAtTrackEnd: Split? {
        guard !finished, let last = previous,
            last.distance >= boundary(splits.count + 1) - TrackSample.distanceTolerance
        else { return nil }
        return fullSplit(at: Totals(elapsed: last.elapsed, moving: last.moving, climb: last.climb), time: Double(last.time))
    }

    /// The next full split if it ended at `end` (totals) and `time`.
    private func fullSplit(at end: Totals, time: Double) -> Split {
        Split(
            index: splits.count + 1, distance: unit, elapsed: end.elapsed - splitStart.elapsed,
            moving: end.moving - splitStart.moving, meanBPM: heartRate.mean, climb: end.climb - splitStart.climb,
            isPartial: false, endTime: time)
    }

    /// Appends the full split that ends at `end` (totals) and `time`, and starts the next one there.
    private mutating func closeFullSplit(at end: Totals, time: Double) {
        splits.append(fullSplit(at: end, time: time))
        lastFullHeartRate = heartRate
        heartRate = HeartRateSums()
        splitStart = end
    }

    /// The totals `fraction` of the way (by distance) from `a` to `b`.
    private func interpolated(_ a: TrackSample, _ b: TrackSample, _ fraction: Double) -> Totals {
        Totals(
            elapsed: a.elapsed + fraction * (b.elapsed - a.elapsed), moving: a.moving + fraction * (b.moving - a.moving),
            climb: a.climb + fraction * (b.climb - a.climb))
    }

    /// The UTC time `fraction` of the way (by distance) from `a` to `b`.
    private func interpolatedTime(_ a: TrackSample, _ b: TrackSample, _ fraction: Double) -> Double {
        Double(a.time) + fraction * (Double(b.time) - Double(a.time))
    }
}
