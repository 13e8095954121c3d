import HealthTrailBase
import HealthTrailDecode

/// One night of sleep: the main sleep session that ends on a given local date.
package struct SleepNight: Sendable, Equatable {
    /// Local calendar date (`2024-01-02`) of `wakeEnd`, in the wake sample's own offset: the
    /// morning the person woke up. The wake date, not the bedtime date, because bedtime falls on
    /// either side of midnight from one night to the next while waking is reliably in the
    /// morning; it is also what Health and most trackers call "last night".
    package var date: String
    /// First in-bed moment: the earliest `InBed` start, or the earliest sample start when the
    /// session has no `InBed` samples. Carries that sample's offset.
    package var bedStart: Timestamp
    /// Last moment of the session: the latest end of any sample. Carries that sample's offset.
    package var wakeEnd: Timestamp
    /// Union of the `InBed` intervals of every source; `wakeEnd − bedStart` without `InBed` samples.
    package var inBedMinutes: Double
    /// Time whose winning stage (after the source priority merge) is asleep, core, deep or REM;
    /// every second counted once however many sources cover it.
    package var asleepMinutes: Double
    /// First asleep moment − `bedStart`, never negative; 0 when nothing in the session is asleep.
    package var latencyMinutes: Double
    /// `asleepMinutes / inBedMinutes`, clamped to 0…1 (stage samples may run past an iPhone's
    /// `InBed` span); 0 when there is no in-bed time.
    package var efficiency: Double
    /// Non-asleep spans strictly between the first and the last asleep moment: a run of
    /// `Awake` and uncovered time counts once if it holds an explicit `Awake` or lasts ≥ 1 minute.
    package var awakenings: Int
    /// Minutes of core sleep after the merge; nil when the night's source recorded no stages
    /// (a legacy `Asleep` night: its stages are unknown, not zero).
    package var coreMinutes: Double?
    /// Minutes of deep sleep after the merge; nil on nights without stages.
    package var deepMinutes: Double?
    /// Minutes of REM sleep after the merge; nil on nights without stages.
    package var remMinutes: Double?
    /// Sources that contributed: every source with an `InBed` sample, and every source whose
    /// stage won at least one moment of the merge. Sorted by rank, then name.
    package var sources: [String] {
        get { sourceNames.asStrings }
        set { sourceNames = SleepNightSources(newValue) }
    }
    /// `sources`, kept as the names' numbers when the night was measured from numbered samples.
    package var sourceNames: SleepNightSources

    package init(
        date: String, bedStart: Timestamp, wakeEnd: Timestamp, inBedMinutes: Double, asleepMinutes: Double,
        latencyMinutes: Double, efficiency: Double, awakenings: Int, coreMinutes: Double?, deepMinutes: Double?,
        remMinutes: Double?, sources: [String]
    ) {
        self.init(
            date: date, bedStart: bedStart, wakeEnd: wakeEnd, inBedMinutes: inBedMinutes, asleepMinutes: asleepMinutes,
            latencyMinutes: latencyMinutes, efficiency: efficiency, awakenings: awakenings, coreMinutes: coreMinutes,
            deepMinutes: deepMinutes, remMinutes: remMinutes, sourceNames: SleepNightSources(sources))
    }

    /// A night whose sources are `sourceNames`.
    package init(
        date: String, bedStart: Timestamp, wakeEnd: Timestamp, inBedMinutes: Double, asleepMinutes: Double,
        latencyMinutes: Double, efficiency: Double, awakenings: Int, coreMinutes: Double?, deepMinutes: Double?,
        remMinutes: Double?, sourceNames: SleepNightSources
    ) {
        self.date = date
        self.bedStart = bedStart
        self.wakeEnd = wakeEnd
        self.inBedMinutes = inBedMinutes
        self.asleepMinutes = asleepMinutes
        self.latencyMinutes = latencyMinutes
        self.efficiency = efficiency
        self.awakenings = awakenings
        self.coreMinutes = coreMinutes
        self.deepMinutes = deepMinutes
        self.remMinutes = remMinutes
        self.sourceNames = sourceNames
    }
}
