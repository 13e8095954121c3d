/// The time zone the person was in at any instant, from where zones were seen
/// (`TimeZoneSightings`): what places each sample on the person's own local day.
///
/// Exports stamp every date with the offset in force on the phone at export time, so during a
/// trip abroad (or for a summer sample of an export made in winter) the stamped offset puts
/// evening samples on the wrong day. Sleep samples and workouts carry the zone the person was
/// in (`HKTimeZone`); between them:
///
/// - **A stay** runs from the first to the last sighting of a run of sightings of one zone; a
///   sighting of another zone ends it (an overlap goes to the later sighting). A sighting that
///   lies wholly inside a sighting of another zone contradicts it and is not used (a watch not
///   yet switched to the zone of the bed it lies in).
/// - **Between two stays of different zones** (a journey) the zone last seen holds until its
///   next midnight; if the next zone's date is then still the day before (a flight west), the
///   next zone takes over there. So a day ends only once midnight has passed in both zones, and
///   a date comes back only where the sightings say so (a flight east over the date line):
///   flying west stretches the last day at home until midnight at the destination; flying
///   east, the first day at the destination starts at midnight where the person came from, or
///   later at the first sighting there.
/// - **Before the first stay and after the last,** the nearest stay's zone.
/// - **No sighting at all:** no timeline; each sample keeps its stamped offset.
///
/// Queries are fastest in time order (each zone remembers its offset until its next daylight-
/// saving transition), and any order gives the same answer.
package struct TimeZoneTimeline {
    /// A run of sightings of one zone, [start, end) in UTC seconds.
    package struct Stay: Equatable {
        package var start: Int64
        package var end: Int64
        package var zone: Int
    }

    /// Zone identifiers, by the index `Stay.zone` and `offset(at:)` give.
    package let names: [String]
    package let stays: [Stay]
    private var clocks: [ZoneClock]
    /// The stay `offset(at:)` found last: queries in time order find the next one there.
    private var cursor = 0

    /// A timeline from every sighting (sorted here).
    package init(_ sightings: TimeZoneSightings) {
        names = sightings.names
        var clocks = names.indices.map { ZoneClock(sightings.zone($0)) }
        let sorted = sightings.sightings.sorted { ($0.start, $0.end) < ($1.start, $1.end) }
        var stays: [Stay] = []
        var contradicting = 0
        for s in sorted {
            if let last = stays.last, last.zone == s.zone {
                stays[stays.count - 1].end = max(last.end, s.end)
                continue
            }
            if let last = stays.last, last.end > s.start {
                if s.end <= last.end && s.start > last.start {
                    contradicting += 1
                    continue
                }
                // Overlapping sightings of two zones: the later one's zone from its start on.
                stays[stays.count - 1].end = s.start
                if stays[stays.count - 1].end <= last.start { stays.removeLast() }
                if let previous = stays.last, previous.zone == s.zone {
                    stays[stays.count - 1].end = max(previous.end, s.end)
                    continue
                }
            }
            stays.append(Stay(start: s.start, end: max(s.end, s.start), zone: s.zone))
        }
        self.stays = stays
        contradictingSightings = contradicting
        // Where each journey hands over to the next zone (see the type's comment).
        handovers = stays.indices.dropLast().map { i in
            let from = stays[i], to = stays[i + 1]
            let lastDay = CumulativeSeries.localDay(from.end - 1, Int16(truncatingIfNeeded: clocks[from.zone].offsetMinutes(at: from.end - 1)))
            // The zone last seen's next midnight (its offset there may differ by daylight saving).
            var midnight = (lastDay + 1) * 86_400 - Int64(clocks[from.zone].offsetMinutes(at: from.end - 1)) * 60
            midnight = (lastDay + 1) * 86_400 - Int64(clocks[from.zone].offsetMinutes(at: midnight)) * 60
            guard midnight < to.start else { return Int64.max }
            let nextDay = CumulativeSeries.localDay(midnight, Int16(truncatingIfNeeded: clocks[to.zone].offsetMinutes(at: midnight)))
            return nextDay == lastDay ? max(midnight, from.end) : Int64.max
        }
        self.clocks = clocks
    }

    /// Sightings left out because they lie wholly inside a sighting of another zone.
    package let contradictingSightings: Int
    /// Per journey (stay `i` to `i + 1`): when the next zone takes over, or `Int64.max` when
    /// the zone last seen holds until the next stay starts.
    private let handovers: [Int64]

    /// True when no zone was seen: every sample keeps its stamped offset.
    package var isEmpty: Bool { stays.isEmpty }

    /// The UTC offset (minutes east) of the person's zone at `t`, and the index of the zone in
    /// `names` it comes from; nil when no zone was seen.
    package mutating func offset(at t: Int64) -> (minutes: Int32, zone: Int)? {
        guard !stays.isEmpty else { return nil }
        let i = stayIndex(at: t)
        guard i >= 0 else { return local(stays[0].zone, t) }
        let stay = stays[i]
        if t < stay.end || i == stays.count - 1 || t < handovers[i] { return local(stay.zone, t) }
        return local(stays[i + 1].zone, t)
    }

    private mutating func local(_ zone: Int, _ t: Int64) -> (minutes: Int32, zone: Int) {
        (clocks[zone].offsetMinutes(at: t), zone)
    }

    /// The last stay starting at or before `t`; -1 before the first.
    private mutating func stayIndex(at t: Int64) -> Int {
        if cursor < stays.count, stays[cursor].start <= t, cursor + 1 == stays.count || stays[cursor + 1].start > t {
            return cursor
        }
        if cursor + 1 < stays.count, stays[cursor + 1].start <= t, cursor + 2 == stays.count || stays[cursor + 2].start > t {
            cursor += 1
            return cursor
        }
        // Binary search: the first stay starting after `t`, minus one.
        var low = 0, high = stays.count
        while low < high {
            let mid = (low + high) / 2
            if stays[mid].start <= t { low = mid + 1 } else { high = mid }
        }
        cursor = max(0, low - 1)
        return low - 1
    }
}
