import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailSynth

@Suite struct SourceDeduplicationTests {
    static let sources = ["Alex’s iPhone", "Mi Fit", "Alex’s Apple Watch"]   // indices 0, 1, 2
    let order = SourcePriority.default.order(sources)
    let ranking: SourceRanking = {
        var ranking = SourceRanking(priority: .default)
        ranking.update(Self.sources)
        return ranking
    }()

    /// 2024-01-02 00:00 local at +01:00, in UTC seconds.
    let midnight = Timestamp.daysFromCivil(year: 2024, month: 1, day: 2) * 86_400 - 3600

    func sample(_ source: Int32, _ fromMinute: Int64, _ toMinute: Int64, _ value: Double, offset: Int16 = 60) -> CumulativeSample {
        CumulativeSample(start: midnight + fromMinute * 60, end: midnight + toMinute * 60, value: value, source: source, offsetMinutes: offset)
    }

    func totals(_ samples: [CumulativeSample]) -> [String: Double] {
        let series = CumulativeSeries(kind: .steps)
        for s in samples { series.append(s) }
        var out: [String: Double] = [:]
        try! series.deduplicateByStampedDay(ranking: ranking) { day, value in
            out[Timestamp(utcSeconds: day * 86_400).localDateString, default: 0] += value
        }
        return out.mapValues { ($0 * 1e6).rounded() / 1e6 }
    }

    @Test func priorityPutsTheWatchFirstThenTheIPhone() {
        #expect(SourcePriority.default.rank(of: "Alex’s Apple Watch") == 0)
        #expect(SourcePriority.default.rank(of: "Eric's Work iPhone") == 1)
        #expect(SourcePriority.default.rank(of: "Mi Fit") == 2)
        #expect(order == [1, 2, 0])
        // Unmatched sources share the last rank and are ordered by name ("Alex’s Apple Watch" first).
        #expect(SourcePriority(patterns: ["mi fit"]).order(Self.sources) == [2, 0, 1])
    }

    @Test func theWatchWinsWhereTheIPhoneOverlaps() {
        let samples = [
            sample(2, 600, 610, 1000), sample(2, 610, 620, 800),   // Watch 10:00–10:20
            sample(0, 600, 620, 1900),
        ]   // iPhone, same walk
        #expect(totals(samples) == ["2024-01-02": 1800])
    }

    @Test func aPartlyCoveredSampleKeepsItsUncoveredShare() {
        // iPhone 10:10–10:30; the Watch covers 10:00–10:20: half the iPhone sample survives.
        let samples = [sample(2, 600, 620, 1000), sample(0, 610, 630, 400)]
        #expect(totals(samples) == ["2024-01-02": 1200])
    }

    @Test func samplesNoBetterSourceCoversCountWhole() {
        let samples = [sample(2, 600, 620, 1000), sample(0, 700, 710, 300), sample(1, 800, 805, 50)]
        #expect(totals(samples) == ["2024-01-02": 1350])
    }

    @Test func aMiddleRankedSourceIsExcludedOnlyByBetterOnes() {
        // Mi Fit (third) loses to the iPhone (second) where they overlap, and counts elsewhere.
        let samples = [sample(0, 600, 660, 600), sample(1, 600, 660, 700), sample(1, 700, 760, 100)]
        #expect(totals(samples) == ["2024-01-02": 700])
    }

    @Test func oneSourcesOwnOverlapsAreNotRemoved() {
        let samples = [sample(2, 600, 620, 100), sample(2, 610, 630, 100)]
        #expect(totals(samples) == ["2024-01-02": 200])
    }

    @Test func aSampleAcrossLocalMidnightIsSplitByTime() {
        // 23:50–00:10 local: a quarter... half before midnight, half after.
        let samples = [sample(2, -10, 10, 400)]
        #expect(totals(samples) == ["2024-01-01": 200, "2024-01-02": 200])
    }

    @Test func theOffsetOfEachSampleDecidesItsDay() {
        // 23:30 UTC is 00:30 on the next day at +01:00 but 18:30 the same day at -05:00.
        let utc2330 = midnight + 3600 - 30 * 60 + 86_400   // 2024-01-02T23:30Z
        let paris = CumulativeSample(start: utc2330, end: utc2330 + 60, value: 10, source: 2, offsetMinutes: 60)
        let newYork = CumulativeSample(start: utc2330 + 3600, end: utc2330 + 3660, value: 5, source: 2, offsetMinutes: -300)
        #expect(totals([paris, newYork]) == ["2024-01-03": 10, "2024-01-02": 5])
    }

    @Test func instantSamplesAreCoveredOrNot() {
        let samples = [sample(2, 600, 620, 10), sample(0, 610, 610, 3), sample(0, 700, 700, 4)]
        #expect(totals(samples) == ["2024-01-02": 14])
    }

    @Test func theResultDoesNotDependOnRecordOrder() {
        var generator = SystemRandomNumberGenerator()
        var samples: [CumulativeSample] = []
        for i in 0..<200 {
            let from = Int64(i * 7)
            samples.append(sample(Int32(i % 3), from, from + Int64(3 + i % 11), Double(10 + i % 17)))
        }
        let expected = totals(samples)
        for _ in 0..<5 { #expect(totals(samples.shuffled(using: &generator)) == expected) }
    }

    @Test func intervalSetGapsAreExact() {
        var set = IntervalSet()
        set.insert(contentsOf: [(10, 20), (15, 30), (40, 50)])
        #expect(set.starts == [10, 40] && set.ends == [30, 50])
        func gaps(_ a: Int64, _ b: Int64) -> [[Int64]] {
            var result: [[Int64]] = []
            set.forEachGap(in: a, b) { result.append([$0, $1]) }
            return result
        }
        #expect(gaps(0, 60) == [[0, 10], [30, 40], [50, 60]])
        #expect(gaps(12, 28).isEmpty)
        #expect(set.contains(10) && !set.contains(30) && set.contains(45))
    }

    /// Random overlapping samples of three sources over two days, some instants among them.
    func randomSamples(_ n: Int, seed: UInt64) -> [CumulativeSample] {
        var rng = SynthRandom(seed: seed)
        return (0..<n).map { _ in
            let from = Int64(rng.int(-120, 2 * 1440))
            let length = Int64(rng.int(0, 9) == 0 ? 0 : rng.int(1, 45))
            return sample(Int32(rng.int(0, 2)), from, from + length, Double(rng.int(1, 500)))
        }
    }

    /// Each sample's surviving value computed directly: its span minus the union of every
    /// better-ranked source's spans, pro rata, split at local midnights.
    func bruteForceTotals(_ samples: [CumulativeSample]) -> [String: Double] {
        var out: [String: Double] = [:]
        for s in samples {
            let rank = order[Int(s.source)]
            let better = samples.filter { order[Int($0.source)] < rank && $0.end > $0.start }
            func covered(_ t: Int64) -> Bool { better.contains { $0.start <= t && t < $0.end } }
            if s.end <= s.start {
                if !covered(s.start) {
                    out[Timestamp(utcSeconds: CumulativeSeries.localDay(s.start, s.offsetMinutes) * 86_400).localDateString, default: 0] += s.value
                }
                continue
            }
            // Second by second: exact for whole-second spans.
            let perSecond = s.value / Double(s.end - s.start)
            for t in s.start..<s.end where !covered(t) {
                out[Timestamp(utcSeconds: CumulativeSeries.localDay(t, s.offsetMinutes) * 86_400).localDateString, default: 0] += perSecond
            }
        }
        return out.mapValues { ($0 * 1e6).rounded() / 1e6 }
    }

    @Test func clustersGiveWhatTheWholeSeriesGives() {
        let samples = randomSamples(120, seed: 7)
        let got = totals(samples), expected = bruteForceTotals(samples)
        #expect(got.keys.sorted() == expected.keys.sorted())
        for (day, value) in expected { #expect(abs((got[day] ?? .nan) - value) < 1e-3, "\(day)") }
    }

    /// Two iPhone samples over the same hour, 60 and 120 steps (1 and 2 a minute), under Watch
    /// samples of minutes 0–10 and 30–40 (50 steps each): the iPhone counts for the 40 minutes
    /// the Watch leaves, 3 steps a minute, 120; with the Watch's 100, 220 on the day.
    @Test func overlappingSamplesOfOneSourceShareTheGaps() {
        let got = totals([sample(0, 0, 60, 60), sample(0, 0, 60, 120), sample(2, 0, 10, 50), sample(2, 30, 40, 50)])
        #expect(got == ["2024-01-02": 220])
    }

    /// 200 iPhone samples over the same 10,000 minutes (sample k: k steps a minute) under 5,000
    /// one-minute Watch samples, one every other minute (1 step each). The iPhone's samples
    /// count together over the 5,000 gaps, one share per gap (not one per sample per gap):
    /// 5,000 shares for the Watch, 5,000 for the iPhone, and 5,000 + 5,000 × (1 + … + 200) steps.
    @Test func overlappingSamplesCostTheirNumberPlusTheGaps() throws {
        var samples = (1...200).map { sample(0, 0, 10_000, Double(10_000 * $0)) }
        samples += (0..<5_000).map { sample(2, Int64(2 * $0), Int64(2 * $0 + 1), 1) }
        let series = CumulativeSeries(kind: .steps)
        for s in samples { series.append(s) }
        var shares = 0
        var total = 0.0
        try series.deduplicate(ranking: ranking) { _, quarters, value, _ in
            shares += 1
            total += Double(quarters) * value
        }
        #expect(shares == 10_000)
        #expect(abs(total - 100_505_000) < 1e-9 * 100_505_000)
    }

    @Test func spilledRunsGiveTheSameTotalsAsMemory() throws {
        let samples = randomSamples(3000, seed: 11)
        let dir = Support.temporaryDirectory()
        let series = CumulativeSeries(kind: .steps, spillPath: dir + "/steps.spill", runLength: 64)
        for s in samples { series.append(s) }
        #expect(series.samples.spilledRuns == 3000 / 64)
        var spilled: [String: Double] = [:]
        try series.deduplicateByStampedDay(ranking: ranking) { day, value in
            spilled[Timestamp(utcSeconds: day * 86_400).localDateString, default: 0] += value
        }
        let memory = totals(samples)
        #expect(spilled.keys.sorted() == memory.keys.sorted())
        for (day, value) in memory { #expect(abs((spilled[day] ?? .nan) - value) < 1e-6 * max(1, value), "\(day)") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty, "the spill file is removed")
    }
}

extension CumulativeSeries {
    /// `deduplicate` summed by the local day each sample's stamped offset gives: the day totals
    /// these tests state, with the quarter hours of the production path mapped to days plainly.
    func deduplicateByStampedDay(ranking: SourceRanking, into add: (_ localDay: Int64, _ value: Double) -> Void) throws {
        try deduplicate(ranking: ranking) { first, quarters, value, offset in
            for quarter in first..<(first + quarters) {
                add(CumulativeSeries.localDay(quarter * CumulativeSeries.quarterHour, offset), value)
            }
        }
    }
}
