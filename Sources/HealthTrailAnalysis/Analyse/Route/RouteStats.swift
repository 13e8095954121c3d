import HealthTrailBase
import HealthTrailDecode

/// Figures derived from a route's points, accumulated point by point: routes stream out of the
/// GPX decoder, so nothing here needs the whole array (the state is the previous point, a few
/// elevations and the running sums).
///
/// Points are expected in time order. Only active points count (`PointState`), and a step
/// only between two of them the route cleaning chains (`add(_:zones:continuing:)`): neither a
/// pause, the gap between parts, a glitch's detour nor a drive adds distance. A counted step
/// adds its distance together with its time: a step in which the clock does not move (two fixes
/// in one second) adds its distance with the next step that takes time, or, at the end of its
/// chain, not at all, so that no distance is ever covered in no time.
///
/// A step is moving time when it is at least the activity's `RouteSpeedLimits.movingSpeed`
/// fast, and, when longer than `maxStepGap` (a gap in the signal: a tunnel, an underpass), no
/// faster than its `RouteSpeedLimits.sustainedSpeed`: a gap crossed at a pace the activity
/// allows was spent moving. Time in zone counts steps of at most `maxStepGap` only: across a
/// gap the heart rate is known at its two ends alone. Elevation is smoothed and its gain
/// counted within a chain of counted steps: a pause, a drive, a jump or a part's gap starts
/// the smoothing afresh, so what was climbed meanwhile is not gained.
package struct RouteStats: Sendable {
    /// Metres: sum of the haversine distance of the counted steps, gaps in the signal included
    /// (the runner did cover that ground).
    package private(set) var distance: Double = 0
    /// Metres between consecutive points of every state, as if nothing were cleaned: what the
    /// route's files say before pauses, parts, glitches and drives are taken out.
    package private(set) var allPointsDistance: Double = 0
    /// Points per `PointState`, by raw value.
    package private(set) var pointsByState = [Int](repeating: 0, count: PointState.allCases.count)
    /// Jumps of the GPS the cleaning stepped over (`TrackCleaner`).
    package private(set) var jumps = 0
    /// Metres the cleaning took out: `allPointsDistance` − `distance`.
    package var trimmedDistance: Double { Swift.max(0, allPointsDistance - distance) }
    /// `glitch` when a fix was rejected or a jump stepped over, `vehicle` when a stretch was a
    /// vehicle's: `workouts.csv`'s `flags`, `;`-separated.
    package var flags: [String] {
        var flags: [String] = []
        if pointsByState[Int(PointState.glitch.rawValue)] > 0 || jumps > 0 { flags.append("glitch") }
        if pointsByState[Int(PointState.vehicle.rawValue)] > 0 { flags.append("vehicle") }
        return flags
    }
    /// Seconds of the counted steps, however long: the route's active time.
    package private(set) var elapsed: Double = 0
    /// Seconds of the moving steps (see the type's documentation).
    package private(set) var movingTime: Double = 0
    /// Metres climbed, after smoothing and hysteresis (see `elevationThreshold`).
    package private(set) var elevationGain: Double = 0
    /// Seconds per zone index of the `HeartRateZones` passed to `add`.
    package private(set) var timeInZone: [Double]
    /// Active points added (the points the figures come from).
    package private(set) var points: Int = 0
    /// The first active point's longitude: where the workout was, to check the time zone it
    /// names (`TimeZoneTimeline`).
    package private(set) var firstLongitude: Double?
    /// Points that have a joined heart rate, and the sum, lowest and highest of their bpm: the
    /// workout's heart-rate figures when the export has none of its own.
    package private(set) var heartRatePoints: Int = 0
    package private(set) var bpmSum: Double = 0
    package private(set) var bpmMinimum: Double = .infinity
    package private(set) var bpmMaximum: Double = -.infinity

    /// The mean joined heart rate of the points that have one; nil when none has.
    package var meanBPM: Double? { heartRatePoints > 0 ? bpmSum / Double(heartRatePoints) : nil }
    /// The lowest joined heart rate; nil when no point has one.
    package var minimumBPM: Double? { heartRatePoints > 0 ? bpmMinimum : nil }
    /// The highest joined heart rate; nil when no point has one.
    package var maximumBPM: Double? { heartRatePoints > 0 ? bpmMaximum : nil }
    /// Seconds per zone, or nil when no point has a heart rate: a route without heart rate
    /// spent no known time in any zone, which zeros would misstate.
    package var knownTimeInZone: [Double]? { heartRatePoints > 0 ? timeInZone : nil }

    /// The activity's speeds: a step is moving from `movingSpeed` (metres over seconds, from
    /// positions, not the device's speed field), and a gap up to `sustainedSpeed`.
    package let limits: RouteSpeedLimits
    /// Longest step, seconds, that is not a gap. Apple records once a second while moving; a
    /// longer silence is an auto-pause or lost signal: its time is moving only at a pace the
    /// activity allows, and counts in no heart-rate zone.
    package static let maxStepGap: Double = 30
    /// Elevation hysteresis, metres: a climb counts only once the smoothed elevation has risen
    /// this far above the last low point, and a descent only resets the low once it has dropped
    /// this far below the last high. GPS elevation is noisy by several metres from one fix to
    /// the next; summing every uptick of that noise turns a flat run into hundreds of metres of
    /// "climb". 3 m is above the noise that survives smoothing and below the height of a
    /// real rise worth counting.
    package static let elevationThreshold: Double = 3
    /// Elevations are smoothed by a trailing mean of this many points before the hysteresis.
    /// The hysteresis alone cannot tell ±2 m jitter (4 m peak to peak) from a 3 m climb. A mean
    /// of 15 points shrinks uncorrelated jitter by about √15 (alternating jitter almost to
    /// nothing): in simulation, 3 000 flat 10-minute routes with uniform ±2 m white jitter
    /// never counted a climb (5 points: a few % did; 10 points: 1.7 %). The price is a lag of
    /// about 7 points (7 s at Apple's 1 Hz): the last seconds of a climb that ends the route
    /// are not counted, and a 3 m bump shorter than ~15 s is flattened away.
    ///
    /// Remaining bias: the gain runs from the lowest smoothed value of the bottom to the highest
    /// of the top, so white jitter still inflates each climb a little (+1.3 m on average for a
    /// 10 m climb between one-minute plateaus with ±2 m uniform jitter). Apple's own route
    /// elevations, fused with the barometer, are smooth to centimetres and are not affected.
    package static let elevationWindow = 15

    private var last: RoutePoint?
    /// Metres of the chain's steps since the clock last moved, waiting for a step that takes time.
    private var standingDistance: Double = 0
    /// The previous point of any state, for `allPointsDistance`, and whether it was counted.
    private var lastOfAny: RoutePoint?
    private var lastOfAnyCounted = false
    /// The last `elevationWindow` elevations (ring buffer) and their count.
    private var recentElevations: [Double] = []
    private var nextSlot = 0
    /// Hysteresis state on the smoothed elevation.
    private var low: Double?
    private var high: Double = 0
    private var climbing = false

    /// Empty stats with `zoneCount` zeroed zones (the count of the `HeartRateZones` used), for a
    /// workout held to `limits` (by default those of an activity the table does not name).
    package init(zoneCount: Int, limits: RouteSpeedLimits = .forActivity("")) {
        timeInZone = Array(repeating: 0, count: max(0, zoneCount))
        self.limits = limits
    }

    /// Starts from `p` without counting it: the previous part file's last point, which this
    /// file repeats first (`RouteProcessor`); the step from it counts when it was active.
    package mutating func seed(_ p: RoutePoint, active: Bool) {
        lastOfAny = p
        lastOfAnyCounted = active
        last = active ? p : nil
    }

    /// Adds the next point of the route, whatever its state: it counts in `allPointsDistance`
    /// and `pointsByState`; an active one goes on to `add(_:zones:continuing:)`.
    ///
    /// - Parameter knownStep: metres from the previous counted point when the caller has them
    ///   (`TrackCleaner` measured them), NaN otherwise: a step is measured once.
    package mutating func add(
        _ p: RoutePoint, state: PointState, jumpBefore: Bool = false, zones: HeartRateZones, continuing: Bool,
        knownStep: Double = .nan
    ) {
        let step = continuing && !knownStep.isNaN ? knownStep : nil
        if let previous = lastOfAny {
            // The previous point of any state is the previous counted one when nothing came between.
            allPointsDistance += lastOfAnyCounted && step != nil ? step! : RouteGeometry.haversine(previous, p)
        }
        lastOfAny = p
        lastOfAnyCounted = state == .active
        pointsByState[Int(state.rawValue)] += 1
        if jumpBefore { jumps += 1 }
        if state == .active { add(p, zones: zones, continuing: continuing, knownStep: step ?? .nan) }
    }

    /// Adds the next point of the route; a step from the previous point counts when
    /// `continuing` (a new chain starts otherwise).
    package mutating func add(_ p: RoutePoint, zones: HeartRateZones, continuing: Bool = true, knownStep: Double = .nan) {
        if !continuing {
            last = nil
            standingDistance = 0
            restartElevation()
        }
        points += 1
        if firstLongitude == nil { firstLongitude = p.longitude }
        if let e = p.elevation, e.isFinite { addElevation(e) }
        if let b = p.bpm, b.isFinite {
            heartRatePoints += 1
            bpmSum += b
            bpmMinimum = min(bpmMinimum, b)
            bpmMaximum = max(bpmMaximum, b)
        }
        defer { last = p }
        guard let prev = last else { return }

        let dt = Double(p.time - prev.time)
        let step = (knownStep.isNaN ? RouteGeometry.haversine(prev, p) : knownStep) + standingDistance
        // A step with no duration waits for one that has it.
        guard dt > 0 else {
            standingDistance = step
            return
        }
        standingDistance = 0
        distance += step
        elapsed += dt
        let speed = step / dt
        // A gap is moving time only at a pace the activity allows, and counts in no zone.
        guard dt <= Self.maxStepGap else {
            if speed >= limits.movingSpeed && speed <= limits.sustainedSpeed { movingTime += dt }
            return
        }
        if speed >= limits.movingSpeed { movingTime += dt }

        if let bpm = TrackSample.stepBPM(prev.bpm, p.bpm), !zones.zones.isEmpty {
            let zone = zones.zoneIndex(for: bpm)
            // Zones with more entries than `zoneCount` promised still get their time.
            if zone >= timeInZone.count { timeInZone += Array(repeating: 0, count: zone + 1 - timeInZone.count) }
            timeInZone[zone] += dt
        }
    }

    /// Starts the elevation smoothing afresh: a new chain's elevations owe nothing to the last.
    private mutating func restartElevation() {
        recentElevations.removeAll(keepingCapacity: true)
        nextSlot = 0
        low = nil
        high = 0
        climbing = false
    }

    private mutating func addElevation(_ e: Double) {
        if recentElevations.count < Self.elevationWindow {
            recentElevations.append(e)
        } else {
            recentElevations[nextSlot] = e
            nextSlot = (nextSlot + 1) % Self.elevationWindow
        }
        let smoothed = recentElevations.reduce(0, +) / Double(recentElevations.count)
        guard let lowPoint = low else { low = smoothed; high = smoothed; return }
        if climbing {
            if smoothed > high {
                elevationGain += smoothed - high
                high = smoothed
            } else if high - smoothed >= Self.elevationThreshold {
                climbing = false
                low = smoothed
            }
        } else if smoothed < lowPoint {
            low = smoothed
        } else if smoothed - lowPoint >= Self.elevationThreshold {
            // The whole rise from the low counts, not just the part above the threshold.
            climbing = true
            elevationGain += smoothed - lowPoint
            high = smoothed
        }
    }

    /// Seconds per kilometre: moving time over distance. Nil below 10 m, where a pace would be
    /// noise (or a division by zero).
    package var paceSecondsPerKilometre: Double? {
        guard distance >= 10 else { return nil }
        return movingTime / (distance / 1000)
    }

    /// Adds another route file's figures of the same workout: distance, moving time, elevation
    /// gain, time in zone (per index), points and heart-rate sums are summed, extremes kept. The steps between the files are
    /// not counted (their points are not consecutive). The state for further `add` calls stays
    /// this one's.
    package mutating func merge(_ other: RouteStats) {
        distance += other.distance
        allPointsDistance += other.allPointsDistance
        elapsed += other.elapsed
        for (i, n) in other.pointsByState.enumerated() { pointsByState[i] += n }
        jumps += other.jumps
        movingTime += other.movingTime
        elevationGain += other.elevationGain
        points += other.points
        if firstLongitude == nil { firstLongitude = other.firstLongitude }
        heartRatePoints += other.heartRatePoints
        bpmSum += other.bpmSum
        bpmMinimum = min(bpmMinimum, other.bpmMinimum)
        bpmMaximum = max(bpmMaximum, other.bpmMaximum)
        if other.timeInZone.count > timeInZone.count {
            timeInZone += Array(repeating: 0, count: other.timeInZone.count - timeInZone.count)
        }
        for (i, t) in other.timeInZone.enumerated() { timeInZone[i] += t }
    }
}

extension RouteStats: Equatable {
    /// Equal when the figures are equal; the streaming state (previous point, elevation window)
    /// is not part of what the stats say.
    package static func == (a: RouteStats, b: RouteStats) -> Bool {
        a.distance == b.distance && a.allPointsDistance == b.allPointsDistance && a.pointsByState == b.pointsByState
            && a.jumps == b.jumps && a.movingTime == b.movingTime && a.elevationGain == b.elevationGain
            && a.timeInZone == b.timeInZone && a.points == b.points
            && a.heartRatePoints == b.heartRatePoints && a.bpmSum == b.bpmSum
            && a.minimumBPM == b.minimumBPM && a.maximumBPM == b.maximumBPM
    }
}
