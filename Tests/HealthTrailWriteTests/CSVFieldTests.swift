import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailWrite

/// `CSVWriter.fieldBytes` encodes a value once for rows that repeat it (a route's workout id, a
/// zone's name, a point's state); those rows must hold what `field(_:)` writes, RFC 4180's field.
@Suite struct CSVFieldTests {
    static let cases: [(value: String, field: String)] = [
        ("20230101T171519Z-running", "20230101T171519Z-running"),
        ("", ""),
        ("zone1", "zone1"),
        ("Tempo, hard", "\"Tempo, hard\""),
        ("say \"hi\"", "\"say \"\"hi\"\"\""),
        ("two\nlines", "\"two\nlines\""),
        ("cr\rhere", "\"cr\rhere\""),
        ("Zürich", "Zürich"),
    ]

    @Test func encodesAsRFC4180() {
        for (value, field) in Self.cases {
            #expect(CSVWriter.fieldBytes(value) == Array(field.utf8), "\(value)")
        }
    }

    @Test func equalsWhatFieldWrites() throws {
        let path = Support.temporaryDirectory() + "/fields.csv"
        let w = try CSVWriter(path: path, header: [], bufferSize: 4096)
        for (value, _) in Self.cases { w.field(value); w.byte(0x7C) }
        try w.close()
        let written = try Data(contentsOf: URL(fileURLWithPath: path))
        let expected: [UInt8] = Self.cases.flatMap { CSVWriter.fieldBytes($0.value) + [UInt8(0x7C)] }
        #expect(Array(written) == expected)
    }
}
