/// The speeds a workout's route is held to, by activity: the route cleaning's (`TrackCleaner`)
/// ceiling and vehicle speed, and the speed below which a step is not moving (`RouteStats`).
///
/// The filter is deliberately conservative: it must never remove a real stretch of a real
/// workout, only what no athlete could have done. A step is impossible when it is longer than
/// `ceiling` × its seconds plus `jumpMargin` plus both fixes' horizontal accuracies: the margin
/// keeps GPS noise (metres per fix, tens when the signal is weak) from ever looking like a jump.
package struct RouteSpeedLimits: Sendable, Equatable {
    /// Metres per second no one doing the activity reaches, even for a second.
    package var ceiling: Double
    /// Metres per second that, held for `vehicleWindow` seconds, can only be a vehicle; nil
    /// where the activity itself can be that fast (cycling, skiing, …).
    package var vehicleSpeed: Double?
    /// Metres per second below which a step is not moving time: slower is standing, drifting
    /// GPS or a break, whatever the clock says.
    package var movingSpeed: Double

    /// Limits from their figures.
    package init(ceiling: Double, vehicleSpeed: Double?, movingSpeed: Double) {
        self.ceiling = ceiling
        self.vehicleSpeed = vehicleSpeed
        self.movingSpeed = movingSpeed
    }

    /// The fastest a step longer than `RouteStats.maxStepGap` (a gap in the signal) may be
    /// crossed and still count as moving time: the vehicle speed on foot, else the ceiling.
    package var sustainedSpeed: Double { vehicleSpeed ?? ceiling }

    /// Metres a step may exceed `ceiling` × seconds by, before the fixes' accuracies are added.
    package static let jumpMargin: Double = 25
    /// A fix whose horizontal accuracy estimate is worse than this, metres, is a glitch. Apple
    /// Watch and iPhone fixes in the open report a few metres; a figure this large is a
    /// position derived from cell towers or Wi-Fi, not a track.
    package static let worstAccuracy: Double = 50
    /// Seconds over which a speed is averaged to call a stretch a vehicle's: longer than any
    /// sprint, so a runner's finishing kick is never mistaken for a car.
    package static let vehicleWindow: Int64 = 60
    /// Consecutive fixes, each reachable from the one before, that confirm a jump (the signal
    /// came back somewhere else) rather than a glitch (one or a few fixes off, then back).
    package static let jumpConfirmation = 5
    /// Seconds a fix's time may run ahead of the last fix taken before the fix must wait for
    /// `jumpConfirmation` fixes running on from it: more, and it may be stamped late, which the
    /// fixes after it show by going back to the old clock. As long as `RouteStats.maxStepGap`:
    /// a shorter step is one whose time counts anyway.
    package static let clockLeap: Int64 = 30
    /// Fixes that may share one second of route time. Route files stamp whole seconds, so a
    /// fix a second whose times fall either side of a second's start shows two fixes in one
    /// second beside a skipped one (real Apple files have them); a third is no clock at all.
    package static let fixesPerSecond = 2

    /// The limits for an activity as `ActivityCatalog` names it (`running`, `cycling`, …).
    ///
    /// Ceilings: the fastest human sprint peaks near 12.4 m/s; a road cyclist descends at up
    /// to about 30 m/s; open-water swimmers stay under 2.5 m/s. On foot, a vehicle is any
    /// stretch of a minute above 8.5 m/s (30.6 km/h): the 800 m world record averages 7.9 m/s.
    /// Activities where a person may legitimately move fast (skiing, sailing, paddling with the
    /// current, anything unlisted) get a ceiling only a vehicle or a jumping fix exceeds, and
    /// no vehicle detection.
    ///
    /// Moving speeds: a run's clock stops below a 30 min/mile pace (0.89 m/s), the rule Strava
    /// applies and runners compare with; walking and hiking go on down to 0.5 m/s, a steep or
    /// rough climb's pace, above the 0.1–0.3 m/s GPS drift of someone standing still; a cyclist
    /// below 1 m/s (3.6 km/h) is not riding; a swimmer's slowest steady pace is about 0.3 m/s
    /// (5:30 per 100 m); anything else moves from 0.5 m/s.
    package static func forActivity(_ activity: String) -> RouteSpeedLimits {
        switch activity {
        case "running", "track_and_field", "wheelchair_run_pace":
            return RouteSpeedLimits(ceiling: 12.5, vehicleSpeed: 8.5, movingSpeed: 0.89)
        case "walking", "hiking", "wheelchair_walk_pace", "stair_climbing", "stairs", "climbing", "cross_training",
            "mixed_cardio", "high_intensity_interval_training":
            return RouteSpeedLimits(ceiling: 12.5, vehicleSpeed: 8.5, movingSpeed: 0.5)
        case "cycling", "hand_cycling":
            return RouteSpeedLimits(ceiling: 35, vehicleSpeed: nil, movingSpeed: 1)
        case "swimming":
            return RouteSpeedLimits(ceiling: 4, vehicleSpeed: nil, movingSpeed: 0.3)
        default:
            return RouteSpeedLimits(ceiling: 70, vehicleSpeed: nil, movingSpeed: 0.5)
        }
    }

    /// Whether the step from `a` to `b` is faster than anyone doing the activity could go.
    @inline(__always)
    func isImpossible(from a: (time: Int64, accuracy: Double), to b: (time: Int64, accuracy: Double), metres: Double) -> Bool {
        let seconds = Double(Swift.max(1, b.time - a.time))
        return metres > ceiling * seconds + Self.jumpMargin + a.accuracy + b.accuracy
    }
}
