/// The two time zones the synthetic person lives in, with their daylight-saving rules written
/// out (EU and US rules since 2007), so local times are right without a tz database.
///
/// The person lives in Paris and spends a run of days in New York mid-way: the dates in the file
/// keep the export's offset while the person's clock moves, which is the trap readers must handle.
package enum SynthTimeZone: Sendable, Equatable {
    case paris
    case newYork

    /// The IANA name written in the workouts' `HKTimeZone` metadata.
    package var identifier: StaticString {
        switch self {
        case .paris: return "Europe/Paris"
        case .newYork: return "America/New_York"
        }
    }

    /// Home location (latitude, longitude) routes start from in this zone.
    package var home: (lat: Double, lon: Double) {
        switch self {
        case .paris: return (48.846_222, 2.337_160)   // Jardin du Luxembourg
        case .newYork: return (40.785_091, -73.968_285)   // Central Park
        }
    }

    /// UTC offset in seconds in force at a UTC instant.
    package func offset(utc t: Int) -> Int {
        let year = SynthCalendar.civil(SynthCalendar.floorDiv(t, 86_400)).year
        switch self {
        case .paris:
            // Last Sunday of March 01:00 UTC to last Sunday of October 01:00 UTC.
            let march = SynthCalendar.days(year: year, month: 3, day: 31)
            let october = SynthCalendar.days(year: year, month: 10, day: 31)
            let start = (march - SynthCalendar.weekday(march)) * 86_400 + 3_600
            let end = (october - SynthCalendar.weekday(october)) * 86_400 + 3_600
            return t >= start && t < end ? 7_200 : 3_600
        case .newYork:
            // Second Sunday of March 02:00 EST (07:00 UTC) to first Sunday of November 02:00 EDT (06:00 UTC).
            let march1 = SynthCalendar.days(year: year, month: 3, day: 1)
            let november1 = SynthCalendar.days(year: year, month: 11, day: 1)
            let start = (march1 + (7 - SynthCalendar.weekday(march1)) % 7 + 7) * 86_400 + 25_200
            let end = (november1 + (7 - SynthCalendar.weekday(november1)) % 7) * 86_400 + 21_600
            return t >= start && t < end ? -14_400 : -18_000
        }
    }

    /// The UTC instant of a local wall time given as seconds since 1970-01-01 00:00 local.
    /// Wall times in the spring gap or the autumn overlap resolve to one of their neighbours,
    /// which is all a synthetic day plan needs.
    package func utc(local: Int) -> Int {
        let guess = local - offset(utc: local)
        return local - offset(utc: guess)
    }
}
