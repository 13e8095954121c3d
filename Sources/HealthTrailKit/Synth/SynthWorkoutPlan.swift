/// One planned workout: everything the Record, Workout and GPX writers must agree on, decided
/// once so that the heart rate at 5 s, the steps, the workout element and its route line up.
struct SynthWorkoutPlan {
    var activity: SynthActivity
    /// UTC instants (seconds since 1970).
    var start = 0
    var end = 0
    /// A pause (UTC) inside the workout, or `pauseEnd == pauseStart` when there is none.
    var pauseStart = 0
    var pauseEnd = 0
    /// Totals on the element (pre-iOS 16 style) instead of `WorkoutStatistics` children.
    var oldStyle = false
    /// Split into two `WorkoutActivity` children.
    var multiPart = false
    /// Zone the person was in: its name goes in `HKTimeZone`, its clock names the route file.
    var zone: SynthTimeZone = .paris
    /// Distance in km and active energy in kcal.
    var distanceKm = 0.0
    var energyKcal = 0.0
    /// Whether totals are printed in miles, and the energy unit (0 kcal, 1 Cal, 2 kJ).
    var miles = false
    var energyUnit = 0
    /// Route: a `WorkoutRoute` element is written; `routeMissing` leaves its GPX out of the zip.
    var hasRoute = false
    var routeMissing = false
    /// First and last `<trkpt>` instants (one point a second, none while paused).
    var routeFirst = 0
    var routeLast = 0
    /// `route_2023-01-05_7.42am.gpx`: local time of the last point, as Apple names them.
    var routeFileName: [UInt8] = []
    /// Stream number for this workout's generators (unique in the archive).
    var stream: UInt64 = 0

    var seconds: Int { end - start }
    var paused: Bool { pauseEnd > pauseStart }

    /// Number of GPX points: every second from `routeFirst` to `routeLast`, minus the pause.
    var routePointCount: Int {
        guard hasRoute else { return 0 }
        var n = routeLast - routeFirst + 1
        if paused {
            let a = max(pauseStart, routeFirst), b = min(pauseEnd, routeLast + 1)
            if b > a { n -= b - a }
        }
        return n
    }

    /// Seconds spent moving.
    var movingSeconds: Int { seconds - (pauseEnd - pauseStart) }

    /// Builds `route_YYYY-MM-DD_H.MMam.gpx` from the local time of `utc` in `zone`.
    static func routeName(utc: Int, zone: SynthTimeZone) -> [UInt8] {
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
