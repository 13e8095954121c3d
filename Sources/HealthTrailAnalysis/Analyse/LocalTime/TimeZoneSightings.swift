import Foundation
import HealthTrailArchive
import HealthTrailBase

/// Where the person's time zone was seen: every record and workout that names one in its
/// `HKTimeZone` metadata, as a span of UTC time and the zone's identifier.
///
/// Records come grouped by type, not in time order, so sightings are kept as they come and
/// ordered when the timeline is built. A sighting that repeats the zone of the previous one and
/// starts within six hours of its end extends it instead: sleep samples carry the zone each, a
/// dozen a night, and a night's worth becomes one sighting.
package struct TimeZoneSightings {
    /// One span of time in one zone.
    package struct Sighting: Equatable {
        package var start: Int64
        package var end: Int64
        /// Index into `names`.
        package var zone: Int
    }

    /// The zone identifiers seen, each once, in the order first seen.
    package private(set) var names: [String] = []
    package private(set) var sightings: [Sighting] = []
    /// Sightings whose identifier no time-zone database entry knows, or is longer than
    /// `maxNameLength` bytes (not used).
    package private(set) var unknownNames = 0
    /// Sightings past the first `maxZones` distinct identifiers or `maxSightings` sightings (not used).
    package private(set) var overLimits = 0
    /// Distinct identifiers kept: a real export names a few dozen zones at most.
    package static let maxZones = 1_000
    /// Sightings kept: a night of sleep samples is one, so a real export has a few thousand.
    package static let maxSightings = 1_000_000
    /// The longest IANA identifier is about 30 bytes.
    package static let maxNameLength = 64
    /// Sightings closer than this to the previous one of the same zone extend it.
    package static let joinGapSeconds: Int64 = 6 * 3_600
    /// A record or workout is a sighting of its zone for its first day at most: a sample's
    /// length is no evidence of where the person was (an app's sample from 2000 to 2099 says
    /// nothing about 2050), and a long one would otherwise contradict every real sighting inside it.
    package static let maxSightingSeconds: Int64 = 24 * 3_600

    private var indexByName: [String: Int] = [:]
    /// Identifiers already found unknown (at most `maxZones`): each is looked up once.
    private var rejected: Set<String> = []
    /// The bytes of the identifier seen last and its index: consecutive records repeat it, and
    /// comparing bytes spares making a `String` of each.
    private var lastBytes: [UInt8] = []
    private var lastIndex = -1
    private var zones: [TimeZone] = []

    package init() {}

    /// The zone of index `i` (an identifier `names[i]` that `TimeZone` knows).
    package func zone(_ i: Int) -> TimeZone { zones[i] }

    /// A record's `HKTimeZone` (bytes as written) over [start, end].
    package mutating func add(_ name: ByteSpan, start: Int64, end: Int64) {
        if lastIndex >= 0, name.equals(lastBytes) {
            add(zone: lastIndex, start: start, end: end)
            return
        }
        guard name.count <= Self.maxNameLength else {
            unknownNames += 1
            return
        }
        add(name.string, start: start, end: end)
        lastBytes = lastIndex >= 0 ? name.bytes : []
    }

    /// A workout's or record's zone identifier over [start, end].
    package mutating func add(_ name: String, start: Int64, end: Int64) {
        if let i = indexByName[name] {
            lastIndex = i
            add(zone: i, start: start, end: end)
            return
        }
        lastIndex = -1
        guard !rejected.contains(name), name.utf8.count <= Self.maxNameLength, let zone = TimeZone(identifier: name) else {
            unknownNames += 1
            if rejected.count < Self.maxZones { rejected.insert(name) }
            return
        }
        guard names.count < Self.maxZones else {
            overLimits += 1
            return
        }
        indexByName[name] = names.count
        names.append(name)
        zones.append(zone)
        lastIndex = names.count - 1
        add(zone: lastIndex, start: start, end: end)
    }

    private mutating func add(zone: Int, start: Int64, end: Int64) {
        let end = min(max(start, end), start + Self.maxSightingSeconds)
        if let last = sightings.last, last.zone == zone, start >= last.start, start <= last.end + Self.joinGapSeconds {
            sightings[sightings.count - 1].end = max(last.end, end)
            return
        }
        guard sightings.count < Self.maxSightings else {
            overLimits += 1
            return
        }
        sightings.append(Sighting(start: start, end: end, zone: zone))
    }
}

extension TimeZoneSightings {
    /// How far a zone's offset may be from the solar time of a route's longitude (15° an hour)
    /// before the route contradicts it. Generous: Spain keeps Paris time two hours ahead of the
    /// sun, western China Beijing time three.
    package static let maxSolarDifferenceHours = 3.5

    /// Whether a workout whose route starts at `longitude` contradicts the zone it names at
    /// `t` (a watch that kept the zone of home): such a workout's zone is not a sighting.
    package static func routeContradicts(_ zone: TimeZone, at t: Int64, longitude: Double) -> Bool {
        guard longitude.isFinite else { return false }
        let zoneHours = Double(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(t)))) / 3_600
        var difference = abs(zoneHours - longitude / 15).truncatingRemainder(dividingBy: 24)
        difference = min(difference, 24 - difference)   // across the date line
        return difference > maxSolarDifferenceHours
    }
}
