/// One counted point of a workout's track: the running totals up to it.
///
/// A track is an array (or a stream) of these in time order, the input of `SplitBuilder` and
/// `BestEfforts`. Between two consecutive samples every quantity is taken to change linearly, so
/// a figure between them (a kilometre boundary, the start of a best effort) is interpolated by
/// the fraction of the step's distance.
///
/// Preconditions, not checked (checking would cost a pass over the points, and the caller's
/// counting already guarantees them): samples are in time order; every field is finite;
/// `distance`, `elapsed`, `moving` and `climb` never decrease from one sample to the next. Pauses
/// and the gaps between a workout's parts are excluded by the caller (they add time but neither
/// distance nor elapsed), so the algorithms here never need to know where they are. Input that
/// breaks the preconditions gives unspecified figures, but never traps or loops forever.
///
/// The caller's tracks also never grow in distance where `elapsed` stays (`RouteStats` counts a
/// step's distance together with its time), so every split and best effort of them takes time.
/// The algorithms do not need it: a track that breaks it gets efforts of no time.
package struct TrackSample: Sendable, Equatable {
    /// UTC seconds of the point.
    package var time: Int64
    /// Metres counted from the workout's first active point.
    package var distance: Double
    /// Active seconds so far: pauses and the gaps between parts excluded.
    package var elapsed: Double
    /// Moving seconds so far; grows by at most what `elapsed` grows by.
    package var moving: Double
    /// Elevation gain so far, metres.
    package var climb: Double
    /// Heart rate at this point (beats per minute), nil when none is known.
    package var bpm: Double?

    /// Metres within which a split boundary or a best effort's target distance counts as reached
    /// (1 mm). A track's distance is a sum of thousands of steps, so a run of exactly 10 km sums
    /// to a few nanometres either side of 10,000 m; compared exactly, the short side would make
    /// its tenth kilometre a partial split and leave it without a 10 km best effort. A millimetre
    /// is far below what a GPS fix resolves, and far above the rounding of any track's sum.
    package static let distanceTolerance: Double = 0.001

    /// A sample from its running totals.
    package init(time: Int64, distance: Double, elapsed: Double, moving: Double, climb: Double, bpm: Double?) {
        self.time = time
        self.distance = distance
        self.elapsed = elapsed
        self.moving = moving
        self.climb = climb
        self.bpm = bpm
    }

    /// The heart rate of the step from `self` to `next`: see `stepBPM(_:_:)`.
    func stepBPM(to next: TrackSample) -> Double? { Self.stepBPM(bpm, next.bpm) }

    /// The heart rate of a step between two points: the mean of its two ends' known heart
    /// rates, the one known end's when only one is known, nil when neither is. Time in zone
    /// (`RouteStats`) and the splits' mean heart rate weigh steps by it.
    @inline(__always)
    static func stepBPM(_ a: Double?, _ b: Double?) -> Double? {
        switch (a, b) {
        case let (a?, b?): return (a + b) / 2
        case let (a?, nil): return a
        case let (nil, b?): return b
        case (nil, nil): return nil
        }
    }
}
