import Foundation

/// A time zone's UTC offset at an instant, remembered until the zone's next transition: the
/// timeline asks once per quarter hour of a history, and asking the time-zone database each
/// time would cost more than the rest of the dating.
struct ZoneClock {
    let zone: TimeZone
    private var validFrom = Int64.max
    private var validUntil = Int64.min
    private var minutes: Int32 = 0

    init(_ zone: TimeZone) { self.zone = zone }

    /// Minutes east of UTC in force at `t` (UTC seconds).
    mutating func offsetMinutes(at t: Int64) -> Int32 {
        if t >= validFrom && t < validUntil { return minutes }
        let date = Date(timeIntervalSince1970: TimeInterval(t))
        minutes = Int32(zone.secondsFromGMT(for: date) / 60)
        validFrom = t
        // Without a next transition (a zone that keeps one offset), the offset holds for good.
        validUntil = zone.nextDaylightSavingTimeTransition(after: date).map { Int64($0.timeIntervalSince1970.rounded(.down)) } ?? .max
        if validUntil <= t { validUntil = t + 1 }
        return minutes
    }
}
