import Foundation
import HealthTrailTestSupport
import HealthTrailWrite
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailRun

/// `heart_rate_zones.csv` against bounds worked out by hand, and the example docs/outputs.md
/// gives of it and of the workout maps' legend.
@Suite struct HeartRateZoneRowsTests {
    /// The file's rows for `choice`, read back by the test's CSV reader.
    static func rows(_ choice: ZoneChoice.Resolved, _ name: String = #function) throws -> (header: [String], rows: [[String]]) {
        let path = Support.temporaryDirectory(name) + "/heart_rate_zones.csv"
        let out = try CSVWriter(path: path, header: OutputSchema.heartRateZones.names)
        HeartRateZoneRows.write(choice, to: out)
        try out.close()
        let csv = try Support.readCSV(path)
        return (csv.header, csv.rows)
    }

    /// 187 bpm × 0.5, 0.6, 0.7, 0.8, 0.9 = 93.5, 112.2, 130.9, 149.6, 168.3: bounds 94, 112, 131,
    /// 150 and 168, each zone's upper bound the next one's lower, zone 5 open.
    static let rowsOf187 = [
        ["1", "94", "112", "187", "workout_maximum"], ["2", "112", "131", "187", "workout_maximum"],
        ["3", "131", "150", "187", "workout_maximum"], ["4", "150", "168", "187", "workout_maximum"],
        ["5", "168", "", "187", "workout_maximum"],
    ]

    @Test func boundsOfAMaximumOf187() throws {
        let csv = try Self.rows(ZoneChoice.Resolved(zones: .fromMaximum(187), maximum: 187, basis: .workoutMaximum))
        #expect(csv.header == ["zone", "lower_bpm", "upper_bpm", "maximum_bpm", "basis"])
        #expect(csv.rows == Self.rowsOf187)
    }

    /// `--max-hr 171.5`: 85.75, 102.9, 120.05, 137.2, 154.35 round to 86, 103, 120, 137, 154; the
    /// maximum is written as given, to a tenth.
    @Test func aFractionalMaximumKeepsItsTenth() throws {
        let csv = try Self.rows(ZoneChoice.Resolved(zones: .fromMaximum(171.5), maximum: 171.5, basis: .option))
        #expect(csv.rows.map { $0[1] } == ["86", "103", "120", "137", "154"])
        #expect(csv.rows.allSatisfy { $0[3] == "171.5" && $0[4] == "max_hr" })
    }

    /// The docs' example table is the file's rows for 187 bpm, and its legend labels are the
    /// maps' (`HeartRateZones.legendLabel`).
    @Test func theOutputsPageExampleIsTheFile() throws {
        let page = try String(
            contentsOfFile: Support.packageRoot.appendingPathComponent("docs/outputs.md").path, encoding: .utf8)
        let header = "| zone | lower_bpm | upper_bpm | maximum_bpm | basis |\n|---|---|---|---|---|\n"
        let start = try #require(page.range(of: header), "docs/outputs.md lost the example of heart_rate_zones.csv")
        let table = page[start.upperBound...].split(separator: "\n").prefix { $0.hasPrefix("|") }
        let documented = table.map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
        #expect(documented == Self.rowsOf187)
        let zones = HeartRateZones.fromMaximum(187)
        let labels = zones.zones.indices.map(zones.legendLabel)
        #expect(labels == ["Z1 <112 bpm", "Z2 112–130 bpm", "Z3 131–149 bpm", "Z4 150–167 bpm", "Z5 ≥168 bpm"])
        for label in labels { #expect(page.contains("`\(label)`"), "docs/outputs.md lacks `\(label)`") }
    }
}
