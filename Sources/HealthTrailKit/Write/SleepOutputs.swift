/// Writes `sleep_samples.csv` and `sleep_nights.csv`, and gives each night to the daily table.
enum SleepOutputs {
    static let sampleColumns = ["start_utc", "end_utc", "utc_offset", "stage", "source"]
    static let nightColumns = ["date", "bed_start_utc", "wake_end_utc", "utc_offset", "in_bed_min", "asleep_min",
                               "latency_min", "efficiency", "awakenings", "core_min", "deep_min", "rem_min", "sources"]

    static func write(_ collected: [CollectedSleepSample], sources: [String], priority: SourcePriority,
                      outputs: ExportOutputs, daily: DailySummary) throws -> (nights: Int, naps: Int) {
        let samples = collected.map {
            SleepSample(start: $0.start, end: $0.end, stage: $0.stage, source: sources[$0.source],
                        sourceRank: priority.rank(of: sources[$0.source]))
        }.sorted { ($0.start, $0.end, $0.source, $0.stage.rawValue) < ($1.start, $1.end, $1.source, $1.stage.rawValue) }

        let sampleWriter = try outputs.addWriter("sleep_samples.csv", header: sampleColumns)
        for s in samples {
            sampleWriter.utc(s.start.utcSeconds); sampleWriter.comma()
            sampleWriter.utc(s.end.utcSeconds); sampleWriter.comma()
            sampleWriter.offset(s.start.offsetMinutes); sampleWriter.comma()
            sampleWriter.field(s.stage.rawValue); sampleWriter.comma()
            sampleWriter.field(s.source)
            sampleWriter.endRow()
        }

        let (nights, naps) = SleepAnalysis.nights(from: samples)
        let nightWriter = try outputs.addWriter("sleep_nights.csv", header: nightColumns)
        for n in nights {
            nightWriter.field(n.date); nightWriter.comma()
            nightWriter.utc(n.bedStart.utcSeconds); nightWriter.comma()
            nightWriter.utc(n.wakeEnd.utcSeconds); nightWriter.comma()
            nightWriter.offset(n.wakeEnd.offsetMinutes); nightWriter.comma()
            for minutes in [n.inBedMinutes, n.asleepMinutes, n.latencyMinutes] {
                nightWriter.decimal(minutes, digits: 1); nightWriter.comma()
            }
            nightWriter.decimal(n.efficiency, digits: 3); nightWriter.comma()
            nightWriter.int(Int64(n.awakenings)); nightWriter.comma()
            for minutes in [n.coreMinutes, n.deepMinutes, n.remMinutes] {
                nightWriter.decimal(minutes, digits: 1); nightWriter.comma()
            }
            nightWriter.field(n.sources.joined(separator: ";"))
            nightWriter.endRow()
            if let day = localDay(of: n.date) { daily.sleepNight(localDay: day, asleepMinutes: n.asleepMinutes) }
        }
        return (nights.count, naps)
    }

    /// `2024-01-02` → days since 1970-01-01.
    static func localDay(of date: String) -> Int64? {
        let parts = date.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        return Timestamp.daysFromCivil(year: parts[0], month: parts[1], day: parts[2])
    }
}
