import Foundation
import Testing

@testable import HealthTrailRun

extension OutputContractTests {
    /// heart_rate_zones.csv: five rows, bounds worked out here from the fixture's own expected
    /// maximum (`Fixture.expectedMaximumBPM`, from the generator's figures and heart_rate.csv)
    /// as 50, 60, 70, 80 and 90 % of it, each rounded to a whole bpm.
    enum HeartRateZoneChecks {
        /// The expected bounds: lower bounds of zones 1 … 5, in bpm.
        static func lowerBounds(_ f: Fixture) -> [Double]? {
            f.expectedMaximumBPM.map { maximum in [0.5, 0.6, 0.7, 0.8, 0.9].map { ($0 * maximum).rounded() } }
        }

        static let all: [String: Check] = [
            "zone": { _, t in #expect(t.values("zone") == ["1", "2", "3", "4", "5"]) },
            "lower_bpm": { f, t in
                let expected = try #require(lowerBounds(f), "the generated export has workout heart rate")
                #expect(t.values("lower_bpm").map { Double($0) } == expected.map { Optional($0) })
            },
            "upper_bpm": { f, t in
                // Each zone's upper bound is the next one's lower; the top zone is open.
                let expected = try #require(lowerBounds(f))
                #expect(t.values("upper_bpm").map { Double($0) } == expected.dropFirst().map { Optional($0) } + [nil])
            },
            "maximum_bpm": { f, t in
                let expected = try #require(f.expectedMaximumBPM)
                for value in t.values("maximum_bpm") { expectClose(value, expected, within: 0.051, "heart_rate_zones maximum_bpm") }
            },
            "basis": { _, t in expectEvery(t, "basis", "workout_maximum") { $0 == "workout_maximum" } },
        ]
    }
}
