import Foundation
import Testing
@testable import HealthTrailKit

/// The README's "Outputs" table is `OutputSchema.markdownTable`, character for character: the
/// columns users read about are the columns the writers' header rows and the contract test
/// (`OutputContractTests`) take from the schema.
@Suite struct OutputSchemaReadmeTests {
    static let marker = "<!-- generated from OutputSchema.swift: `make readme` rewrites it -->\n"
    static let readmePath = Support.packageRoot.appendingPathComponent("README.md").path

    /// The README with its table replaced by the schema's (what `make readme` writes).
    static func regenerated(_ readme: String) throws -> String {
        let start = try #require(readme.range(of: marker), "README.md lost the marker line above the Outputs table")
        let tableStart = start.upperBound
        // The table ends at the first line that is not a table row.
        var end = tableStart
        while end < readme.endIndex, readme[end] == "|" || readme[end...].hasPrefix("TABLE") {
            end = readme[end...].firstIndex(of: "\n").map { readme.index(after: $0) } ?? readme.endIndex
        }
        return String(readme[..<tableStart]) + OutputSchema.markdownTable + String(readme[end...])
    }

    @Test func theReadmeTableIsTheSchema() throws {
        let readme = try String(contentsOfFile: Self.readmePath, encoding: .utf8)
        let expected = try Self.regenerated(readme)
        if ProcessInfo.processInfo.environment["HEALTHTRAIL_WRITE_README"] == "1", expected != readme {
            try expected.write(toFile: Self.readmePath, atomically: true, encoding: .utf8)
            return
        }
        #expect(readme == expected, "README.md's Outputs table differs from OutputSchema: run `make readme`")
    }

    /// Every CSV file of the schema is in the table, each column once, in header order.
    @Test func theTableListsEveryColumnInOrder() {
        let table = OutputSchema.markdownTable
        for file in OutputSchema.csvFiles {
            let row = table.split(separator: "\n").first { $0.hasPrefix("| `\(file.name)` |") }
            let cells = row.map { $0.split(separator: "|", omittingEmptySubsequences: false) } ?? []
            #expect(cells.count == 5, "\(file.name)")
            guard cells.count == 5 else { continue }
            var rest = Substring(cells[3])
            for column in file.columns {
                guard let r = rest.range(of: "`\(column.name)`") else {
                    Issue.record("\(file.name): \(column.name) missing or out of order"); break
                }
                rest = rest[r.upperBound...]
            }
        }
    }

    @Test func zoneColumnsAreNamedAfterTheirZones() {
        #expect(OutputSchema.workouts.header(zones: .default).suffix(4)
                == ["zone_resting_s", "zone_moderate_s", "zone_vigorous_s", "zone_maximum_s"])
        #expect(OutputSchema.workouts.header(zones: .fromMaximum(190)).suffix(5)
                == ["zone_1_s", "zone_2_s", "zone_3_s", "zone_4_s", "zone_5_s"])
        #expect(OutputSchema.workouts.header(zones: .default).count == OutputSchema.workouts.names.count + 4)
    }
}
