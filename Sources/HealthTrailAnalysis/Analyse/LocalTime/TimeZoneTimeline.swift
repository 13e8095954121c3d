/// The time zone the person was in at any instant, from where zones were seen
/// (`TimeZoneSightings`): what places each sample on the person's own local day.
///
/// Exports stamp every date with the offset in force on the phone at export time, so during a
/// trip abroad (or for a summer sample of an export made in winter) the stamped offset puts
/// evening samples on the wrong day. Sleep samples and workouts carry the zone the person was
/// in (`HKTimeZone`); between them:
///
/// - **A stay** runs from the first to the last sighting of a run of sightings of one zone; a
///   sighting of another zone ends it (an overlap goes to the later sighting).
/// - **Between two stays of different zones** (a journey) an instant takes the *earlier* of the
///   two zones' dates: a day ends only once midnight has passed in both zones. The zone last
///   seen holds until its date runs ahead of the next one's. Flying west stretches the last day
///   at home until midnight at the destination; flying east, the first day at the destination
///   starts at midnight where the person came from.
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
        clocks = names.indices.map { ZoneClock(sightings.zone($0)) }
        let sorted = sightings.sightings.sorted { ($0.start, $0.end) < ($1.start, $1.end) }
        var stays: [Stay] = []
        for s in sorted {
            if let last = stays.last, last.zone == s.zone {
                stays[stays.count - 1].end = max(last.end, s.end)
                continue
            }
            if let last = stays.last, last.end > s.start {
                // Overlapping sightings of two zones: the later one's zone from its start on.
                stays[stays.count - 1].end = s.start
            }
            stays.append(Stay(start: s.start, end: max(s.end, s.start), zone: s.zone))
        }
        self.stays = stays
    }

    /// True when no zone was seen: every sample keeps its stamped offset.
    package var isEmpty: Bool { stays.isEmpty }

    /// The UTC offset (minutes east) of the person's zone at `t`, and the index of the zone in
    /// `names` it comes from; nil when no zone was seen.
    package mutating func offset(at t: Int64) -> (minutes: Int32, zone: Int)? {
        guard !stays.isEmpty else { return nil }
        let i = stayIndex(at: t)
        guard i >= 0 else { return local(stays[0].zone, t) }
        let stay = stays[i]
        if t < stay.end || i == stays.count - 1 { return local(stay.zone, t) }
        // Between two stays: the zone last seen, unless the next one's date is still earlier.
        let before = local(stay.zone, t), after = local(stays[i + 1].zone, t)
        let dayBefore = CumulativeSeries.localDay(t, Int16(truncatingIfNeeded: before.minutes))
        let dayAfter = CumulativeSeries.localDay(t, Int16(truncatingIfNeeded: after.minutes))
        return dayAfter < dayBefore ? after : before
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
