import Foundation
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailSynth

/// Exports with thousands of distinct sources: the structures de-duplication
/// keeps per source and per cluster must do work in proportion to the records, and give what a
/// straightforward computation gives.
@Suite struct ManySourcesTests {
    /// `SourcePriority.rank(of:)` as it was first written: Unicode lowercasing and search.
    static func referenceRank(_ source: String, _ priority: SourcePriority) -> Int {
        let name = source.lowercased()
        return priority.patterns.firstIndex { name.contains($0) } ?? priority.patterns.count
    }

    /// `SourcePriority.order` as it was first written: every source sorted by (rank, name).
    static func referenceOrder(_ sources: [String], _ priority: SourcePriority) -> [Int] {
        let sorted = sources.indices.sorted {
            (referenceRank(sources[$0], priority), sources[$0]) < (referenceRank(sources[$1], priority), sources[$1])
        }
        var order = [Int](repeating: 0, count: sources.count)
        for (position, index) in sorted.enumerated() { order[index] = position }
        return order
    }

    /// Names that rank by pattern, by name, and by index: equal names from different bytes
    /// (composed and decomposed "é"), and names differing only in case.
    static func sourceNames(_ n: Int, seed: UInt64) -> [String] {
        var rng = SynthRandom(seed: seed)
        let stems = [
            "Alex’s Apple Watch", "Alex's Apple WATCH", "iPhone", "IPHONE 15", "Mi Fit", "caf\u{E9}", "cafe\u{301}",
            "Strava", "strava", "STRAVA Run", "Zwift", "wat ch", "\u{130}phone", "tab\tWatch",
        ]
        return (0..<n).map { i in
            let stem = stems[rng.int(0, stems.count - 1)]
            return rng.int(0, 3) == 0 ? stem : "\(stem) \(rng.int(0, n))"
        }
    }

    @Test func rankingComparesAsTheFullSortOrders() {
        let names = Self.sourceNames(1500, seed: 3)
        for priority in [
            SourcePriority.default, SourcePriority(patterns: ["STRAVA", "fit"]),
            SourcePriority(patterns: ["caf\u{E9}", "watch"]),
        ] {
            for name in names { #expect(priority.rank(of: name) == Self.referenceRank(name, priority), "\(name)") }
            var ranking = SourceRanking(priority: priority)
            // Sources arrive a few at a time, as the decoder meets them.
            var known = 0
            while known < names.count {
                known = min(names.count, known + 1 + known / 3)
                ranking.update(Array(names[..<known]))
            }
            #expect(ranking.names.count == names.count)
            let reference = Self.referenceOrder(names, priority)
            #expect(priority.order(names) == reference)
            var rng = SynthRandom(seed: 5)
            for _ in 0..<20_000 {
                let a = rng.int(0, names.count - 1), b = rng.int(0, names.count - 1)
                #expect(ranking.precedes(a, b) == (reference[a] < reference[b]), "\(names[a]) vs \(names[b])")
            }
        }
    }

    /// The gaps and membership a `SpanTree` gives against `IntervalSet`, which rebuilds its
    /// arrays at each insert, for spans added a few at a time, zero-length and touching ones among them.
    @Test func spanTreeGivesWhatIntervalSetGives() {
        for seed in UInt64(1)...20 {
            var rng = SynthRandom(seed: seed)
            var tree = SpanTree(), reference = IntervalSet()
            for _ in 0..<60 {
                let batch: [(Int64, Int64)] = (0..<rng.int(1, 6)).map { _ in
                    let start = Int64(rng.int(0, 2000))
                    return (start, start + Int64(rng.int(0, 4) == 0 ? 0 : rng.int(1, 80)))
                }
                tree.insert(contentsOf: batch)
                reference.insert(contentsOf: batch)
                #expect(tree.spans.map(\.0) == reference.starts && tree.spans.map(\.1) == reference.ends)
                for _ in 0..<10 {
                    let a = Int64(rng.int(-10, 2100)), b = a + Int64(rng.int(0, 300))
                    var got: [[Int64]] = [], expected: [[Int64]] = []
                    tree.forEachGap(in: a, b) { got.append([$0, $1]) }
                    reference.forEachGap(in: a, b) { expected.append([$0, $1]) }
                    #expect(got == expected, "gaps in \(a)..<\(b), seed \(seed)")
                    #expect(tree.contains(a) == reference.contains(a))
                }
            }
            tree.removeAll()
            #expect(tree.spans.isEmpty && !tree.contains(0))
        }
    }

    /// Spans added in time order, the worst case of an unbalanced search tree: the treap stays
    /// a few times log₂ n deep, so each insert and each step of a gap walk stays O(log n).
    @Test func spanTreeStaysShallow() {
        var tree = SpanTree()
        let n = 100_000
        for i in 0..<n { tree.insert(Int64(3 * i), Int64(3 * i + 1)) }
        #expect(tree.spans.count == n)
        #expect(tree.height <= 4 * Int(log2(Double(n))), "height \(tree.height)")
        // One span over all of them swallows them: one span left.
        tree.insert(-1, Int64(3 * n))
        #expect(tree.spans.count == 1 && tree.height == 1)
    }

    /// Each sample's surviving value computed directly, second by second, against every better source.
    func bruteForceTotals(_ samples: [CumulativeSample], order: [Int]) -> [Int64: Double] {
        var out: [Int64: Double] = [:]
        for s in samples {
            let better = samples.filter { order[Int($0.source)] < order[Int(s.source)] && $0.end > $0.start }
            func covered(_ t: Int64) -> Bool { better.contains { $0.start <= t && t < $0.end } }
            if s.end <= s.start {
                if !covered(s.start) { out[CumulativeSeries.localDay(s.start, s.offsetMinutes), default: 0] += s.value }
                continue
            }
            let perSecond = s.value / Double(s.end - s.start)
            for t in s.start..<s.end where !covered(t) {
                out[CumulativeSeries.localDay(t, s.offsetMinutes), default: 0] += perSecond
            }
        }
        return out
    }

    func totals(_ samples: [CumulativeSample], ranking: SourceRanking) throws -> [Int64: Double] {
        let series = CumulativeSeries(kind: .steps)
        for s in samples { series.append(s) }
        var out: [Int64: Double] = [:]
        try series.deduplicateByStampedDay(ranking: ranking) { out[$0, default: 0] += $1 }
        return out
    }

    @Test func manyDistinctSourcesDeduplicateLikeTheDirectComputation() throws {
        let names = Self.sourceNames(300, seed: 9)
        var ranking = SourceRanking(priority: .default)
        ranking.update(names)
        let order = Self.referenceOrder(names, .default)
        let midnight = Timestamp.daysFromCivil(year: 2024, month: 1, day: 2) * 86_400
        var rng = SynthRandom(seed: 13)
        // Overlapping samples over an evening and a morning, a source each mostly; one long
        // sample of a low-ranked source ties them into one cluster.
        var samples = [
            CumulativeSample(
                start: midnight - 3 * 3600, end: midnight + 3 * 3600, value: 900,
                source: Int32(order.firstIndex(of: names.count - 1)!), offsetMinutes: 0)
        ]
        for _ in 0..<400 {
            let from = midnight + Int64(rng.int(-3 * 3600, 3 * 3600))
            let length = Int64(rng.int(0, 9) == 0 ? 0 : rng.int(1, 900))
            samples.append(
                CumulativeSample(
                    start: from, end: from + length, value: Double(rng.int(1, 300)),
                    source: Int32(rng.int(0, names.count - 1)), offsetMinutes: 0))
        }
        let got = try totals(samples, ranking: ranking), expected = bruteForceTotals(samples, order: order)
        #expect(got.keys.sorted() == expected.keys.sorted())
        for (day, value) in expected { #expect(abs((got[day] ?? .nan) - value) < 1e-6 * max(1, value), "day \(day)") }
    }

    /// Record types alternating, a new source each record: every record ends a group. The
    /// ranking ranks each source once, and the totals are every record's, none being covered
    /// by another.
    @Test func alternatingTypesRankEachSourceOnce() throws {
        let daily = DailySummary(priority: .default)
        var sources: [String] = []
        let start = Timestamp.daysFromCivil(year: 2024, month: 1, day: 2) * 86_400
        for i in 0..<4000 {
            let kind: CumulativeKind = i % 2 == 0 ? .steps : .distance
            sources.append("src \(i)")
            daily.endGroup(before: kind)
            let t = start + Int64(i / 2) * 60
            daily.cumulative(
                kind, start: Timestamp(utcSeconds: t), end: Timestamp(utcSeconds: t + 30),
                value: 2, source: i)
        }
        daily.finishSeries(sources: sources)
        try daily.dateSamples(with: TimeZoneTimeline(TimeZoneSightings()))
        #expect(daily.rankedSources == 4000)
        // 2,000 records of each kind, a minute apart: over two days.
        #expect(daily.days.map(\.day) == [start / 86_400, start / 86_400 + 1])
        for kind in [CumulativeKind.steps, .distance] {
            #expect(daily.days.reduce(0) { $0 + (DailySummary.total($1.figures, kind) ?? 0) } == 4000)
        }
    }

    /// Sources past the 65,536th keep their own identity in de-duplication: four Apple Watches
    /// met after 65,536 phones all write the same minute; the best Watch's 100 steps count and
    /// every other sample is covered. (A 16-bit source index once merged them with the 65,536th
    /// phone, which then ranked as a phone.)
    @Test func sourcesBeyondSixteenBitsKeepTheirRank() throws {
        let daily = DailySummary(priority: .default)
        let phones = (0..<65_536).map { String(format: "Phone %05d", $0) }
        let sources = phones + (0..<4).map { "Apple Watch \($0)" }
        let t = Timestamp.daysFromCivil(year: 2024, month: 1, day: 2) * 86_400 + 36_000
        for (index, name) in sources.enumerated() {
            daily.cumulative(
                .steps, start: Timestamp(utcSeconds: t), end: Timestamp(utcSeconds: t + 60),
                value: name.hasPrefix("Apple") ? 100 : 1, source: index)
        }
        daily.finishSeries(sources: sources)
        try daily.dateSamples(with: TimeZoneTimeline(TimeZoneSightings()))
        #expect(daily.days.map { DailySummary.total($0.figures, .steps) } == [100])
    }
}
