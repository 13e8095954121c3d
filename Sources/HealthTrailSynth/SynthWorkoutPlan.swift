/// One planned workout: everything the Record, Workout and GPX writers must agree on, decided
/// once so that the heart rate at 5 s, the steps, the workout element and its route line up.
package struct SynthWorkoutPlan {
    package var activity: SynthActivity
    /// UTC instants (seconds since 1970).
    package var start = 0
    package var end = 0
    /// A pause (UTC) inside the workout, or `pauseEnd == pauseStart` when there is none.
    package var pauseStart = 0
    package var pauseEnd = 0
    /// Totals on the element (pre-iOS 16 style) instead of `WorkoutStatistics` children.
    package var oldStyle = false
    /// Split into two `WorkoutActivity` children.
    package var multiPart = false
    /// Zone the person was in: its name goes in `HKTimeZone`, its clock names the route file.
    package var zone: SynthTimeZone = .paris
    /// Distance in km and active energy in kcal.
    package var distanceKm = 0.0
    package var energyKcal = 0.0
    /// Whether totals are printed in miles, and the energy unit (0 kcal, 1 Cal, 2 kJ).
    package var miles = false
    package var energyUnit = 0
    /// Route: a `WorkoutRoute` element is written; `routeMissing` leaves its GPX out of the zip.
    package var hasRoute = false
    package var routeMissing = false
    /// First and last `<trkpt>` instants (one point a second, none while paused).
    package var routeFirst = 0
    package var routeLast = 0
    /// `route_2023-01-05_7.42am.gpx`: local time of the last point, as Apple names them.
    package var routeFileName: [UInt8] = []
    /// Stream number for this workout's generators (unique in the archive).
    package var stream: UInt64 = 0

    package var seconds: Int { end - start }

    /// The instant of a point written `glitchMetres` off its track (a GPS glitch: one fix, then
    /// back), in some routes: before any pause (which starts at 30 % of the workout at the
    /// earliest). Chosen from the stream number, so the schedule's random draws stay as they were.
    package var glitchAt: Int? {
        guard hasRoute && stream % 6 == 1 else { return nil }
        let t = routeFirst + (routeLast - routeFirst) / 5
        return t >= pauseStart && t < pauseEnd ? nil : t
    }
    /// How far the glitch point is off, metres (north).
    package static let glitchMetres = 800.0

    /// Seconds at the end of a walk or run someone forgot to end and drove home from, at
    /// `driveSpeed`; 0 in most workouts. Never overlapping the pause.
    package var driveSeconds: Int {
        guard hasRoute && (activity == .walking || activity == .running) && stream % 7 == 3 else { return 0 }
        return routeLast - 240 > max(pauseEnd, routeFirst) + 120 ? 240 : 0
    }
    /// Metres per second of the drive.
    package static let driveSpeed = 15.0
    package var paused: Bool { pauseEnd > pauseStart }

    /// Number of GPX points: every second from `routeFirst` to `routeLast`, minus the pause.
    package var routePointCount: Int {
        guard hasRoute else { return 0 }
        var n = routeLast - routeFirst + 1
        if paused {
            let a = max(pauseStart, routeFirst), b = min(pauseEnd, routeLast + 1)
            if b > a { n -= b - a }
        }
        return n
    }

    /// Seconds spent moving.
    package var movingSeconds: Int { seconds - (pauseEnd - pauseStart) }

    /// Builds `route_YYYY-MM-DD_H.MMam.gpx` from the local time of `utc` in `zone`.
    package static func routeName(utc: Int, zone: SynthTimeZone) -> [UInt8] {
        let local = utc + zone.offset(utc: utc)
        let day = SynthCalendar.floorDiv(local, 86_400)
        let s = local - day * 86_400
        let c = SynthCalendar.civil(day)
        let h24 = s / 3600, minute = (s / 60) % 60
        let h12 = h24 % 12 == 0 ? 12 : h24 % 12
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let name = "route_\(c.year)-\(two(c.month))-\(two(c.day))_\(h12).\(two(minute))\(h24 < 12 ? "am" : "pm").gpx"
        return Array(name.utf8)
    }
}
