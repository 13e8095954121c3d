/// Turns sleep samples into nights: sessions, night or nap, and a source priority merge.
///
/// Pure logic, no I/O. The rules, and why:
/// - **Sessions.** Samples of every stage and source, sorted by start, form one session while
///   the next sample starts no more than `SleepSession.joinGapSeconds` (60 minutes) after the
///   session's end so far: the iPhone's `InBed`, the Watch's stages and a third-party app's
///   records of one night all overlap, so they land together whatever their source.
/// - **Night or nap.** A session whose middle is between 12:00 and 18:00 local is a nap. Of the
///   other sessions that end on the same local date, the one with the most asleep time is that
///   date's night (ties: more in-bed time, then the earlier end, then the earlier start);
///   the rest are naps. One night per date keeps daily tables one row per day.
/// - **Source merge.** Within a session, stage samples are merged by source rank
///   (`SleepTimeline`): each moment takes the best-ranked source's stage, so overlapping
///   sources never double count and a lower-ranked source only fills what better ones leave
///   uncovered. `InBed` samples of every source are unioned for in-bed time.
/// - **Local time.** Each sample keeps its own offset; a night's date is the local date of its
///   wake moment in the wake sample's offset, so travel moves nights with the person.
/// - Samples with `end <= start` cover no time and are ignored.
///
/// O(n log n) in the number of samples. `SleepNightBuilder` does the same on a sorted stream.
package enum SleepAnalysis {
    /// The nights (one per local wake date, sorted by date) and the number of naps: sessions that
    /// are not their date's night, counted but not merged into it.
    package static func nights(from samples: [SleepSample]) -> (nights: [SleepNight], naps: Int) {
        var builder = SleepNightBuilder()
        for s in samples.sorted(by: SleepSample.precedes) { builder.add(s) }
        return builder.finish()
    }

    /// Whether `a` is a better candidate than `b` for the night of their common date.
    package static func beats(_ a: SleepSession, _ b: SleepSession) -> Bool {
        if a.asleepSeconds != b.asleepSeconds { return a.asleepSeconds > b.asleepSeconds }
        if a.inBedSeconds != b.inBedSeconds { return a.inBedSeconds > b.inBedSeconds }
        if a.night.wakeEnd.utcSeconds != b.night.wakeEnd.utcSeconds {
            return a.night.wakeEnd.utcSeconds < b.night.wakeEnd.utcSeconds
        }
        return a.start < b.start
    }
}
