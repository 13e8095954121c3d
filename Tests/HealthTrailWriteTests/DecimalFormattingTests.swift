import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailSynth
@testable import HealthTrailWrite

/// `CSVWriter.decimal` writes every coordinate, bpm and distance HealthTrail outputs. It must
/// agree with C's `%.Nf` (round half away from zero aside, see below) with trailing zeros and a
/// bare point removed, and write nothing for values it cannot hold.
@Suite struct DecimalFormattingTests {
    /// What `decimal(v, digits:)` must write: `%.*f`, trailing fraction zeros stripped, `-0` as `0`.
    static func reference(_ v: Double, digits: Int) -> String {
        var text = String(format: "%.\(digits)f", v)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }

    static func written(_ values: [Double], digits: Int) throws -> [String] {
        let path = Support.temporaryDirectory() + "/decimals-\(digits).csv"
        let w = try CSVWriter(path: path, header: [], bufferSize: 4096)
        for v in values { w.decimal(v, digits: digits); w.endRow() }
        try w.close()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    @Test(arguments: [0, 1, 3, 6])
    func agreesWithPrintfOnRandomValues(digits: Int) throws {
        var random = SynthRandom(seed: 41 + UInt64(digits))
        var values: [Double] = [0, -0.0, 1, -1, 0.5, 10, 100.25, 999_999.999_999_9, -0.000_000_4, 52.520_008, -122.419_416]
        for _ in 0..<20_000 {
            // Coordinates, heart rates, distances: magnitudes from 1e-7 to 1e7, both signs.
            let magnitude = pow(10.0, Double(random.next() % 15) - 7)
            let v = Double(random.next() % 1_000_000_007) / 1_000_000_007 * magnitude
            values.append(random.next() % 2 == 0 ? v : -v)
        }
        // Exact halves (0.5 ulp ties) round differently in printf (to even) and here (away from
        // zero); real data never sits exactly on them, so they are left out of the comparison.
        let scale = pow(10.0, Double(digits))
        values.removeAll { v in
            let s = abs(v) * scale; return s - s.rounded(.down) == 0.5
        }
        let got = try Self.written(values, digits: digits)
        #expect(got.count == values.count)
        var mismatches: [String] = []
        for (v, text) in zip(values, got) where text != Self.reference(v, digits: digits) {
            mismatches.append("\(v): \(text) vs \(Self.reference(v, digits: digits))")
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) differ, e.g. \(mismatches.prefix(5))")
    }

    @Test func writesNothingForValuesItCannotHold() throws {
        let got = try Self.written([.nan, .infinity, -.infinity, 1e300, -9.3e18, 9.3e12], digits: 6)
        #expect(got == ["", "", "", "", "", ""])
    }

    @Test func clampsTheNumberOfDigits() throws {
        // More digits than a 64-bit integer holds would overrun the scratch space: clamped to 18.
        let got = try Self.written([1e-12, 0.25], digits: 40)
        #expect(got == ["0.000000000001", "0.25"])
    }
}
