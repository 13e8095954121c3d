import HealthTrailArchive

/// `SleepAnalysis` one sample at a time, for samples streamed in start order:
/// only the open session's tally (`SleepSessionTally`: its sources, InBed stretches and best
/// source's stages) and one measured session per date are held, so a decade of sleep costs what
/// its nights cost, and a night what its sources cost, not what their samples cost.
package struct SleepNightBuilder {
    /// The source names the samples' `sourceIndex` numbers.
    private let names: NameBytes
    /// For samples without a `sourceIndex`: the number given to each name, by its bytes (as
    /// the decoder numbers them; two `String`-equal names of different bytes are two numbers).
    private var numbered: [[UInt8]: UInt32] = [:]
    private var current = SleepSessionTally()
    private var sources = SleepSourceTally()
    private var currentEnd = Int64.min
    private var currentStart = Int64.min
    /// Each date's night so far (the session that beats the others ending that date).
    private var best: [String: SleepSession] = [:]
    private var sessions = 0

    /// A builder for samples whose `sourceIndex` numbers a name of `names`, or for samples that
    /// have none (then with the default, an empty store the builder fills).
    package init(names: NameBytes = NameBytes()) { self.names = names }

    /// Adds the next sample (starting no earlier than the previous one; ties in any order: the
    /// session is measured as if put in `SleepSample.precedes` order). Samples covering no time
    /// are ignored.
    package mutating func add(_ s: SleepSample) {
        guard s.end.utcSeconds > s.start.utcSeconds else { return }
        var s = s
        if s.sourceIndex == nil {
            let bytes = Array(s.source.utf8)
            if let known = numbered[bytes] {
                s.sourceIndex = known
            } else {
                guard let added = names.append(s.source) else { fatalError("out of memory for source names") }
                numbered[bytes] = UInt32(added)
                s.sourceIndex = UInt32(added)
            }
        }
        if !current.isEmpty,
            s.start.utcSeconds > currentEnd + SleepSession.joinGapSeconds
                || s.start.utcSeconds >= currentStart + SleepSession.maxSessionStartSeconds
        {
            closeSession()
        }
        if current.isEmpty { currentStart = s.start.utcSeconds }
        currentEnd = current.isEmpty ? s.end.utcSeconds : max(currentEnd, s.end.utcSeconds)
        current.add(s)
        sources.add(s)
    }

    private mutating func closeSession() {
        let session = SleepSession(current, sources: &sources, names: names)
        current = SleepSessionTally()
        sessions += 1
        guard !session.isDaytime else { return }
        let date = session.night.date
        if let other = best[date], !SleepAnalysis.beats(session, other) { return }
        best[date] = session
    }

    /// The nights (one per local wake date, sorted by date) and the number of naps.
    package mutating func finish() -> (nights: [SleepNight], naps: Int) {
        if !current.isEmpty { closeSession() }
        let nights = best.values.map(\.night).sorted { $0.date < $1.date }
        return (nights, sessions - nights.count)
    }
}
