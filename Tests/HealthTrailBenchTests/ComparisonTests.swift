import Foundation
import Testing

@testable import healthtrail_bench

/// The comparison of a bench report with an earlier one (`healthtrail-bench --compare`), from
/// reports whose figures are set by hand: which figures it names as moved, and when it refuses to
/// compare at all.
@Suite struct ComparisonTests {
    /// A report of five rounds whose floor takes `floor` seconds (the rounds a little apart, as on
    /// a real machine: ±2 %), every other time scaled with it, and stage seconds at a floor of 2 s.
    static func report(
        floor: Double = 2.0, stages: [String: Double] = baseStages, peakRSSKiB: Int = 60_000, databaseBytes: Int? = 378_000_000,
        archiveName: String = "bench-export-720d-aaaa.zip", archiveBytes: UInt64 = 76_482_447, crc: UInt32? = 0x1234_5678,
        cores: Int = 2
    ) -> ComparedReport {
        let wobble = [1.0, 1.02, 0.98, 1.01, 0.99]
        let rounds = wobble.map { w in
            let speed = floor / 2.0 * w   // every time scales with the machine, as the floor does
            return ComparedRound(
                floorSeconds: 2.0 * speed, floorCPUSeconds: 2.0 * speed, healthtrailSeconds: 2.4 * speed,
                healthtrailCPUSeconds: 4.2 * speed, healthtrailPeakRSSKiB: peakRSSKiB, stageSeconds: stages.mapValues { $0 * speed },
                databaseBytes: databaseBytes, parquetBytes: 65_700_000)
        }
        return ComparedReport(
            archiveName: archiveName, archiveBytes: archiveBytes, xmlBytes: 708_283_313, xmlCRC32: crc, cores: cores,
            date: "2026-11-26T10:03:03Z", commit: "abc1234", rounds: rounds)
    }

    static let baseStages = ["export_xml_s": 1.6, "routes_s": 0.5, "join_s": 0.015, "svg_s": 0.13, "total_s": 2.35]

    static func figure(_ comparison: Comparison, _ name: String) throws -> FigureChange {
        try #require(comparison.figures.first { $0.name == name })
    }

    @Test func aStageThirtyPercentSlowerIsNamedAndOneThreePercentSlowerIsNot() throws {
        var stages = Self.baseStages
        stages["export_xml_s"] = 1.6 * 1.30
        stages["routes_s"] = 0.5 * 1.03
        let comparison = compare(Self.report(stages: stages), with: Self.report())
        #expect(comparison.notComparable == nil)
        let exportXML = try Self.figure(comparison, "export_xml_s")
        #expect(exportXML.verdict == .regressed)
        let change = try #require(exportXML.change)
        #expect(abs(change - 0.30) < 1e-9)
        #expect(try Self.figure(comparison, "routes_s").verdict == .unchanged)
        #expect(comparison.moved.map(\.name) == ["export_xml_s"])
        #expect(verdictLine(comparison) == "**Moved beyond noise: export_xml_s +30.0 % (slower).**")
    }

    @Test func aMachineTwiceAsSlowMovesNothing() throws {
        // Every time doubles, the floor's too: the ratios to the floor stay, so nothing moved.
        let comparison = compare(Self.report(floor: 4.0), with: Self.report())
        #expect(comparison.notComparable == nil)
        #expect(comparison.moved.isEmpty)
        let floor = try Self.figure(comparison, "floor wall time")
        #expect(floor.verdict == .unchanged)
        let floorChange = try #require(floor.change)
        #expect(abs(floorChange - 1.0) < 1e-9)   // shown: the floor itself took twice as long
        let exportXML = try Self.figure(comparison, "export_xml_s")
        let (before, after) = (try #require(exportXML.before), try #require(exportXML.after))
        #expect(abs(after - 2 * before) < 1e-9)   // its seconds doubled
        #expect(verdictLine(comparison) == "**Nothing moved beyond noise.**")
    }

    @Test func aFloorInflatedByLoadInOneReportMovesNoStage() throws {
        // The earlier report's floor took three times as long, the run's stages did not: every
        // ratio to the floor triples, the seconds stay. One witness is not enough.
        var loaded = Self.report()
        for index in loaded.rounds.indices {
            loaded.rounds[index].floorSeconds *= 3
            loaded.rounds[index].floorCPUSeconds *= 3
        }
        let comparison = compare(Self.report(), with: loaded)
        let exportXML = try Self.figure(comparison, "export_xml_s")
        let change = try #require(exportXML.change)
        #expect(abs(change - 2.0) < 1e-9)   // the ratio tripled
        #expect(abs(try #require(exportXML.secondsChange)) < 1e-9)   // the seconds did not move
        #expect(exportXML.verdict == .unchanged)
        #expect(comparison.moved.isEmpty)
    }

    @Test func aStageFasterBeyondNoiseIsAnImprovementNotARegression() throws {
        var stages = Self.baseStages
        stages["routes_s"] = 0.5 * 0.6
        let comparison = compare(Self.report(stages: stages), with: Self.report())
        #expect(try Self.figure(comparison, "routes_s").verdict == .improved)
        #expect(comparison.regressed.isEmpty)
        #expect(verdictLine(comparison) == "**Moved beyond noise: routes_s −40.0 % (faster).**")
    }

    @Test func aTinyStageMustAlsoMoveByFiveHundredthsOfASecond() throws {
        // join_s doubles, but by 0.015 s: under the 0.05 s a change must also exceed.
        var stages = Self.baseStages
        stages["join_s"] = 0.030
        let comparison = compare(Self.report(stages: stages), with: Self.report())
        #expect(try Self.figure(comparison, "join_s").verdict == .unchanged)
        // At 0.07 s more it counts.
        stages["join_s"] = 0.085
        #expect(compare(Self.report(stages: stages), with: Self.report()).moved.map(\.name) == ["join_s"])
    }

    @Test func aStageThatWasZeroMovesOnlyBeyondItsRoundsRange() throws {
        var stages = Self.baseStages
        stages["routes_wait_s"] = 0
        let before = Self.report(stages: stages)
        // Waiting 0.3 s in every round: beyond 0.05 s and beyond the rounds' range.
        stages["routes_wait_s"] = 0.3
        let steady = compare(Self.report(stages: stages), with: before)
        #expect(try Self.figure(steady, "routes_wait_s").verdict == .regressed)
        #expect(verdictLine(steady) == "**Moved beyond noise: routes_wait_s from 0 (slower).**")
        // A median of 0.3 s, but the rounds 1.2 s apart: their own range covers it.
        var erratic = Self.report(stages: stages)
        for (index, seconds) in [1.2, 0, 0.3, 0, 0.3].enumerated() { erratic.rounds[index].stageSeconds["routes_wait_s"] = seconds }
        #expect(try Self.figure(compare(erratic, with: before), "routes_wait_s").verdict == .unchanged)
    }

    @Test func noisyRoundsRaiseTheThreshold() throws {
        // The earlier report's rounds of export_xml_s fall 40 % apart: +30 % is within its noise.
        var noisy = Self.report()
        for (index, factor) in [0.8, 1.2, 1.0, 0.9, 1.1].enumerated() { noisy.rounds[index].stageSeconds["export_xml_s"]! *= factor }
        var stages = Self.baseStages
        stages["export_xml_s"] = 1.6 * 1.30
        let comparison = compare(Self.report(stages: stages), with: noisy)
        let exportXML = try Self.figure(comparison, "export_xml_s")
        #expect(exportXML.verdict == .unchanged)
        let threshold = try #require(exportXML.threshold)
        #expect(threshold > 0.30)
    }

    @Test func peakRSSAndSizesAreJudgedAsTheyAre() throws {
        let comparison = compare(Self.report(peakRSSKiB: 72_000, databaseBytes: 380_000_000), with: Self.report())
        #expect(try Self.figure(comparison, "healthtrail peak RSS").verdict == .regressed)   // +20 %
        #expect(try Self.figure(comparison, "healthtrail.db").verdict == .unchanged)   // +0.5 %, under 1 %
        let bigger = compare(Self.report(databaseBytes: 400_000_000), with: Self.report())
        #expect(bigger.moved.map(\.name) == ["healthtrail.db"])
        // A report without the every-format run: the database is in one report only, not judged.
        let without = compare(Self.report(databaseBytes: nil), with: Self.report())
        #expect(try Self.figure(without, "healthtrail.db").verdict == .onlyOneSide)
        #expect(without.moved.isEmpty)
    }

    @Test func aChangedArchiveOrMachineIsNotComparable() throws {
        let otherArchive = compare(Self.report(archiveBytes: 80_000_000, crc: 0x9999_9999), with: Self.report())
        #expect(otherArchive.notComparable?.hasPrefix("the archives differ") == true)
        #expect(otherArchive.figures.isEmpty)
        #expect(markdown(otherArchive).contains("does not apply: the archives differ"))
        // The same sizes with another export.xml CRC-32: another archive.
        let otherCRC = compare(Self.report(crc: 0x9999_9999), with: Self.report())
        #expect(otherCRC.notComparable?.hasPrefix("the archives differ") == true)
        // A new name (the generator's hash) over the same bytes compares, with or without a CRC on
        // one side (reports written before it was kept).
        #expect(compare(Self.report(archiveName: "bench-export-720d-bbbb.zip"), with: Self.report()).notComparable == nil)
        #expect(compare(Self.report(archiveName: "bench-export-720d-bbbb.zip", crc: nil), with: Self.report()).notComparable == nil)
        let otherMachine = compare(Self.report(cores: 8), with: Self.report())
        #expect(otherMachine.notComparable == "the machines differ (before 2 cores, now 8)")
    }

    @Test func theSectionTabulatesEveryFigure() throws {
        var stages = Self.baseStages
        stages["export_xml_s"] = 1.6 * 1.30
        let section = markdown(compare(Self.report(stages: stages), with: Self.report()))
        let lines = section.split(separator: "\n").map(String.init)
        #expect(lines.first == "### Against the last committed report")
        let row = try #require(lines.first { $0.hasPrefix("| `export_xml_s` (× floor)") })
        let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(
            cells == ["`export_xml_s` (× floor)", "1.600 s, 0.800×", "2.080 s, 1.040×", "+30.0 %", "±10.0 %", "+30.0 %", "±10.0 %", "**slower**"])
        #expect(lines.last == "**Moved beyond noise: export_xml_s +30.0 % (slower).**")
    }

    /// The committed report decodes (reports written before a field was added included), and
    /// compared with itself moves nothing.
    @Test func theCommittedReportComparedWithItselfMovesNothing() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let result = try readEarlierReport(root.appendingPathComponent("Benchmarks/results/latest.json").path)
        let report = ComparedReport(result)
        #expect(report.rounds.count == result.rounds.count)
        let comparison = compare(report, with: report)
        #expect(comparison.notComparable == nil)
        #expect(comparison.moved.isEmpty)
        #expect(comparison.figures.contains { $0.name == "export_xml_s" && $0.change == 0 })
    }
}
