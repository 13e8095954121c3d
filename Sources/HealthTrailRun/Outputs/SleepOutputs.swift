import HealthTrailAnalysis
import HealthTrailArchive
import HealthTrailBase
import HealthTrailDecode
import HealthTrailWrite

/// Writes `sleep_samples.csv` and `sleep_nights.csv`, and gives each night to the daily table.
/// Call after `DailySummary.dateSamples(with:)`: nights are dated in the person's time zones.
enum SleepOutputs {
    /// The order sleep samples are collected in: by start, then end (the rest of the order is
    /// settled within each group of equal spans, where source names are known).
    static func spanOrder(_ a: CollectedSleepSample, _ b: CollectedSleepSample) -> Bool {
        a.start.utcSeconds != b.start.utcSeconds ? a.start.utcSeconds < b.start.utcSeconds : a.end.utcSeconds < b.end.utcSeconds
    }

    /// An empty collection of sleep samples: sorted runs spilled to `spillPath` (nil: memory).
    static func collection(spillPath: String?, runLength: Int = 1 << 16) -> SortedRunFile<CollectedSleepSample> {
        SortedRunFile(path: spillPath, runLength: runLength, by: spanOrder)
    }

    /// Streams the collected samples (in `spanOrder`) into `sleep_samples.csv` and the nights
    /// into `sleep_nights.csv`: only the samples of one span and of one open session are held.
    /// - Parameters:
    ///   - sources: the decoder's source names; a `String` is made per sample as it is written.
    ///   - ranks: `SourcePriority.rank(of:)` of each source, by index.
    static func write(
        _ collected: SortedRunFile<CollectedSleepSample>, sources: NameBytes, ranks: [UInt16],
        outputs: ExportOutputs, daily: DailySummary
    ) throws -> (nights: Int, naps: Int) {
        let sampleWriter = try outputs.addWriter(OutputSchema.sleepSamples.name, header: OutputSchema.sleepSamples.names)
        var builder = SleepNightBuilder(names: sources)
        var group: [CollectedSleepSample] = []
        func flushGroup() {
            // Rows of one span: by source name, then stage, then offsets (a total order).
            group.sort { a, b in
                if a.source != b.source {
                    let order = sources.compareAsStrings(a.source, b.source)
                    if order != 0 { return order < 0 }
                }
                if a.stage != b.stage { return a.stage.rawValue < b.stage.rawValue }
                if a.start.offsetMinutes != b.start.offsetMinutes { return a.start.offsetMinutes < b.start.offsetMinutes }
                return a.end.offsetMinutes < b.end.offsetMinutes
            }
            for c in group {
                let s = SleepSample(
                    start: c.start, end: c.end, stage: c.stage, source: sources.string(c.source),
                    sourceRank: Int(ranks[c.source]), sourceIndex: UInt32(c.source))
                sampleWriter.utc(s.start.utcSeconds); sampleWriter.comma()
                sampleWriter.utc(s.end.utcSeconds); sampleWriter.comma()
                sampleWriter.offset(s.start.offsetMinutes); sampleWriter.comma()
                sampleWriter.field(s.stage.rawValue); sampleWriter.comma()
                sampleWriter.field(s.source)
                sampleWriter.endRow()
                // Nights are measured in the person's own zone (dates, naps' afternoons); the
                // samples' rows keep the offsets the export stamped.
                var local = s
                local.start.offsetMinutes = daily.localOffset(at: s.start.utcSeconds, stamped: s.start.offsetMinutes)
                local.end.offsetMinutes = daily.localOffset(at: s.end.utcSeconds, stamped: s.end.offsetMinutes)
                builder.add(local)
            }
            group.removeAll(keepingCapacity: true)
        }
        try collected.drain { c in
            if let first = group.first,
                first.start.utcSeconds != c.start.utcSeconds || first.end.utcSeconds != c.end.utcSeconds
            {
                flushGroup()
            }
            group.append(c)
        }
        flushGroup()

        let (nights, naps) = builder.finish()
        let nightWriter = try outputs.addWriter(OutputSchema.sleepNights.name, header: OutputSchema.sleepNights.names)
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
                if let minutes { nightWriter.decimal(minutes, digits: 1) }
                nightWriter.comma()
            }
            writeJoined(n.sourceNames, to: nightWriter)
            nightWriter.endRow()
            if let day = localDay(of: n.date) { daily.sleepNight(localDay: day, asleepMinutes: n.asleepMinutes) }
        }
        return (nights.count, naps)
    }

    /// Writes the names joined by `;` as one field, the bytes `CSVWriter.field` writes for that
    /// `String`, without making it: a night may name millions of sources.
    static func writeJoined(_ names: SleepNightSources, to writer: CSVWriter) {
        var quoted = false
        names.forEachName { name in
            if !quoted { quoted = (0..<name.count).contains { name[$0] == 0x2C || name[$0] == 0x22 || name[$0] == 0x0A || name[$0] == 0x0D } }
        }
        if quoted { writer.byte(0x22) }
        var first = true
        names.forEachName { name in
            if !first { writer.byte(0x3B) }
            first = false
            if quoted {
                for i in 0..<name.count {
                    if name[i] == 0x22 { writer.byte(0x22) }
                    writer.byte(name[i])
                }
            } else {
                writer.raw(name)
            }
        }
        if quoted { writer.byte(0x22) }
    }

    /// `2024-01-02` → days since 1970-01-01.
    static func localDay(of date: String) -> Int64? {
        let parts = date.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        return Timestamp.daysFromCivil(year: parts[0], month: parts[1], day: parts[2])
    }
}
