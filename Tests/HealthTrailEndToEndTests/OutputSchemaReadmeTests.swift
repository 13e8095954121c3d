import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailKit
@testable import HealthTrailRun

/// The table of files and columns in docs/outputs.md is `OutputSchema.markdownTable`, character
/// for character: the columns users read about are the columns the writers' header rows and the
/// contract test (`OutputContractTests`) take from the schema.
@Suite struct OutputSchemaReadmeTests {
    static let marker = "<!-- generated from OutputSchema.swift: `make docs` rewrites it -->\n"
    static let pagePath = Support.packageRoot.appendingPathComponent("docs/outputs.md").path

    /// The page with its table replaced by the schema's (what `make docs` writes).
    static func regenerated(_ page: String) throws -> String {
        let start = try #require(page.range(of: marker), "docs/outputs.md lost the marker line above its table")
        let tableStart = start.upperBound
        // The table ends at the first line that is not a table row.
        var end = tableStart
        while end < page.endIndex, page[end] == "|" || page[end...].hasPrefix("TABLE") {
            end = page[end...].firstIndex(of: "\n").map { page.index(after: $0) } ?? page.endIndex
        }
        return String(page[..<tableStart]) + OutputSchema.markdownTable + String(page[end...])
    }

    @Test func theOutputsPageTableIsTheSchema() throws {
        let page = try String(contentsOfFile: Self.pagePath, encoding: .utf8)
        let expected = try Self.regenerated(page)
        if ProcessInfo.processInfo.environment["HEALTHTRAIL_WRITE_DOCS"] == "1", expected != page {
            try expected.write(toFile: Self.pagePath, atomically: true, encoding: .utf8)
            return
        }
        #expect(page == expected, "docs/outputs.md's table differs from OutputSchema: run `make docs`")
    }

    /// The README links to the outputs page instead of keeping a second copy of the table.
    @Test func theReadmeHasNoCopyOfTheTable() throws {
        let readme = try String(
            contentsOfFile: Support.packageRoot.appendingPathComponent("README.md").path,
            encoding: .utf8)
        #expect(!readme.contains("| file | one row per | columns |"))
        #expect(readme.contains("docs/outputs.md"))
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

    @Test func zoneColumnsAreTheSameWhateverTheMaximum() {
        for maximum in [HeartRateZones.fixedMaximum, 190, 163] {
            let header = OutputSchema.workouts.header(zones: .fromMaximum(maximum))
            #expect(header.suffix(5) == ["zone_1_s", "zone_2_s", "zone_3_s", "zone_4_s", "zone_5_s"])
            #expect(header.count == OutputSchema.workouts.names.count + 5)
        }
    }
}
