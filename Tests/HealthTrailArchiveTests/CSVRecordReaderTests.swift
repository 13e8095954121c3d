import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailWrite

/// The reader the SQLite and Parquet writers read the staged CSV files with, against Python's
/// csv module on the same bytes: quoted fields with commas, quotes and line breaks, CRLF line
/// ends, a last line without its line feed, and records longer than the reader's buffer.
@Suite struct CSVRecordReaderTests {
    static func records(_ path: String, bufferSize: Int) throws -> [[String]] {
        var rows: [[String]] = []
        try CSVRecordReader.forEachRecord(path: path, bufferSize: bufferSize) { record in
            rows.append((0..<record.count).map { record.field($0).string })
        }
        return rows
    }

    static func python(_ path: String) throws -> [[String]] {
        let script = "import csv, json, sys; print(json.dumps(list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))))"
        let result = try Support.runProgram("/usr/bin/env", ["python3", "-c", script, path])
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode([[String]].self, from: Data(result.stdout.utf8))
    }

    @Test(arguments: [64, 100, 4096, 1 << 20])
    func agreesWithPythonsReader(bufferSize: Int) throws {
        var text = "a,b,c\n"
        let pieces = ["plain", "", "with, comma", "say \"hi\"", "two\nlines", "é💓", "\"\"", "x\r\ny", String(repeating: "long", count: 90)]
        var seed: UInt64 = 7
        for row in 0..<500 {
            var fields: [String] = []
            for column in 0..<3 {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let piece = pieces[Int(seed >> 33) % pieces.count] + (column == 0 ? "\(row)" : "")
                let needsQuotes = piece.contains(",") || piece.contains("\"") || piece.contains("\n") || piece.contains("\r")
                fields.append(needsQuotes ? "\"" + piece.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : piece)
            }
            text += fields.joined(separator: ",") + (row % 7 == 0 ? "\r\n" : "\n")
        }
        text += "last,line,\"without a line feed\""
        let path = Support.temporaryDirectory() + "/t.csv"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let expected = try Self.python(path)
        let got = try Self.records(path, bufferSize: bufferSize)
        #expect(got.count == 502)
        #expect(got == expected)
    }

    @Test func anUnclosedQuoteNamesTheLine() throws {
        let path = Support.temporaryDirectory() + "/t.csv"
        try "a,b\n1,2\n3,\"open\n4,5\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: InputError(file: path, line: 3, "quoted field never closed")) { try Self.records(path, bufferSize: 64) }
    }

    @Test func aMistypedFieldNamesFileLineAndColumnButNotTheValue() throws {
        let path = Support.temporaryDirectory() + "/t.csv"
        try "n,when\n1,2024-01-02T03:04:05Z\nsecret-value,2024-01-02T03:04:05Z\n".write(toFile: path, atomically: true, encoding: .utf8)
        final class Discard: TableRowSink {
            func null(_ column: Int) {}
            func text(_ column: Int, _ value: ByteSpan) {}
            func integer(_ column: Int, _ value: Int64) {}
            func real(_ column: Int, _ value: Double) {}
            func boolean(_ column: Int, _ value: Bool) {}
            func date(_ column: Int, days: Int32, text: ByteSpan) {}
            func timestamp(_ column: Int, seconds: Int64) {}
            func endRow() throws {}
        }
        let schema = TableSchema(name: "t", columns: [TableColumn("n", .integer), TableColumn("when", .timestamp)])
        do {
            try CSVTableReader.copy(path, as: schema, into: Discard())
            Issue.record("a word in an integer column was accepted")
        } catch let error as InputError {
            #expect(error.line == 3 && error.description.contains("column n") && !error.description.contains("secret"), "\(error)")
        }
    }

    /// `TypedField.real` and `NumberText.fastDouble`, the one parser behind it and the decoders,
    /// round as Python's float() does (correctly), fast path or not. `7.3785690282684228` has
    /// digits past 2^53: divided in doubles, it would be rounded twice and miss by one unit.
    @Test func realsRoundAsStrtodDoes() throws {
        let texts = [
            "0.1", "-0.3", "48.846087", "2.332075", "123456789012345", "1234567890123456", "0.000001", "1e-7", "72",
            "9007199254740993", "1.100000023841858", "7.3785690282684228",
        ]
        let script = "import sys; print(' '.join(repr(float(t)) for t in sys.argv[1:]))"
        let result = try Support.runProgram("/usr/bin/env", ["python3", "-c", script] + texts)
        #expect(result.status == 0, "\(result.stderr)")
        let expected = result.stdout.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(expected.count == texts.count)
        for (text, value) in zip(texts, expected) {
            #expect(ByteSpan.withUTF8(text) { TypedField.real($0) } == value, "\(text)")
            #expect(ByteSpan.withUTF8(text) { NumberText.fastDouble($0) } == value, "\(text)")
        }
    }
}
