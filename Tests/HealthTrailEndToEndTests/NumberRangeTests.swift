import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailKit
@testable import HealthTrailWrite

/// The one rule for numbers and dates outside their range (docs/bad-input.md): a number that is
/// not finite, or not below 2^63 in the unit written, is a counted fault and never written; a
/// date the decoders accept is held by every column, whatever the record type.
@Suite struct NumberRangeTests {
    static func record(_ type: String, _ unit: String, _ start: String, _ value: String) -> String {
        "<Record type=\"HKQuantityTypeIdentifier\(type)\" sourceName=\"Phone\" unit=\"\(unit)\" creationDate=\"\(start)\" "
            + "startDate=\"\(start)\" endDate=\"\(start)\" value=\"\(value)\"/>\n"
    }

    /// An export with every kind of number outside the range, each beside a value in range, and
    /// steps with heart rate at the same instants in 1969, 2107 and 2024.
    static func outOfRangeExport(_ path: String) throws {
        var body = record("BodyTemperature", "degF", "2024-03-01 07:00:00 +0000", "1e308")   // 5.6e307 degC
        body += record("BodyTemperature", "degC", "2024-03-01 08:00:00 +0000", "36.6")
        body += record("HeartRate", "count/min", "2024-03-01 09:00:00 +0000", "1e400")   // infinite
        body += record("DistanceWalkingRunning", "mi", "2024-03-01 10:00:00 +0000", "1e16")   // 1.6e19 m
        body += record("DistanceWalkingRunning", "km", "2024-03-01 11:00:00 +0000", "2")
        for (day, steps, bpm) in [("1969-07-20", 100, 60), ("2107-01-01", 200, 70), ("2024-03-01", 5, 80)] {
            body += record("StepCount", "count", "\(day) 12:00:00 +0000", "\(steps)")
            body += record("HeartRate", "count/min", "\(day) 12:00:00 +0000", "\(bpm)")
        }
        body +=
            "<ActivitySummary dateComponents=\"2024-03-01\" activeEnergyBurned=\"100\" activeEnergyBurnedGoal=\"400\" "
            + "activeEnergyBurnedUnit=\"Cal\" appleExerciseTime=\"1e400\" appleStandHours=\"5\"/>\n"
        body += """
            <Workout workoutActivityType="HKWorkoutActivityTypeRunning" sourceName="W" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:10:00 +0100" totalDistance="1e400" totalDistanceUnit="km">
             <WorkoutRoute sourceName="W" startDate="2024-01-02 07:00:00 +0100" endDate="2024-01-02 07:10:00 +0100">
              <FileReference path="/workout-routes/route_2024-01-02_7.10am.gpx"/>
             </WorkoutRoute>
            </Workout>

            """
        let points = ["1e309", "-1e309", "NaN", "inf", "12.5"].enumerated().map { i, ele in
            "<trkpt lon=\"11.5\" lat=\"48.1\"><ele>\(ele)</ele><time>2024-01-02T06:00:0\(i + 1)Z</time></trkpt>"
        }
        try Support.makeZip(
            path,
            [
                (HostileXMLTests.xmlName, Support.exportXML(body)),
                (HostileXMLTests.routeName, HostileXMLTests.gpx(points: points.joined(separator: "\n"))),
            ])
    }

    /// Every case in CSV, in the sqlite3 shell and in pyarrow: the values outside the range are
    /// empty or their records absent, every one counted, and the steps of 1969 and 2107 are in
    /// `daily.csv` beside the heart rate of the same instants.
    @Test(.enabled(if: TableFormatTests.readersAvailable, "python3 cannot import pyarrow and duckdb"))
    func numbersOutsideTheirRangeAreCountedFaultsInEveryFormat() throws {
        let dir = Support.temporaryDirectory()
        try Self.outOfRangeExport(dir + "/export.zip")
        let out = dir + "/out"
        let run = try Support.runCLI(["run", dir + "/export.zip", "--out", out, "--format", "csv,sqlite,parquet", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")

        // Seven numbers out of range (degF, bpm, mi, two ele, exercise minutes, workout
        // distance) and two that are no number (ele NaN, inf).
        let manifest = try CohortRunTests.json(out + "/manifest.json")
        let faults = try #require(manifest["faults"] as? [String: Any])
        #expect(faults["by_kind"] as? [String: Int] == ["out_of_range": 7, "non_numeric_value": 2], "\(faults)")

        // CSV.
        func column(_ file: String, _ name: String) throws -> [String] {
            let csv = try Support.readCSV(out + "/" + file)
            let i = try #require(csv.header.firstIndex(of: name), "\(file) has no \(name)")
            return csv.rows.map { $0[i] }
        }
        #expect(try column("route_points.csv", "ele_m") == ["", "", "", "", "12.5"])
        #expect(try column("records/body_temperature.csv", "value") == ["36.6"])
        #expect(try column("records/distance_walking_running.csv", "value") == ["2000"])
        #expect(try column("heart_rate.csv", "bpm").sorted() == ["60", "70", "80"])
        #expect(try column("activity_summaries.csv", "exercise_min") == [""])
        #expect(try column("activity_summaries.csv", "stand_hours") == ["5"])
        #expect(try column("workouts.csv", "distance_m") == [""])
        let daily = try Support.readCSV(out + "/daily.csv")
        let (date, steps, hr) = try (
            #require(daily.header.firstIndex(of: "date")), #require(daily.header.firstIndex(of: "steps")),
            #require(daily.header.firstIndex(of: "avg_hr"))
        )
        let days = daily.rows.filter { ["1969-07-20", "2024-03-01", "2107-01-01"].contains($0[date]) }.map { [$0[date], $0[steps], $0[hr]] }
        #expect(days == [["1969-07-20", "100", "60"], ["2024-03-01", "5", "80"], ["2107-01-01", "200", "70"]])

        // SQLite, by the sqlite3 shell: no infinity in any real column, and the same values.
        let db = out + "/healthtrail.db"
        let tables = try TableFormatTests.sqlite(db, "SELECT name FROM sqlite_master WHERE type = 'table'").split(separator: "\n")
        var realColumns = 0
        for table in tables {
            let reals = try TableFormatTests.sqlite(db, "SELECT name FROM pragma_table_info('\(table)') WHERE type = 'REAL'")
            for name in reals.split(separator: "\n") {
                realColumns += 1
                let infinite = try TableFormatTests.sqlite(db, "SELECT count(*) FROM \"\(table)\" WHERE abs(\"\(name)\") >= 9e999")
                #expect(infinite == "0", "\(table).\(name)")
            }
        }
        #expect(realColumns > 50)
        #expect(try TableFormatTests.sqlite(db, "SELECT count(ele_m), sum(ele_m) FROM route_points") == "1|12.5")
        #expect(try TableFormatTests.sqlite(db, "SELECT value FROM records_body_temperature") == "36.6")
        #expect(try TableFormatTests.sqlite(db, "SELECT count(*) FROM workouts WHERE distance_m IS NULL") == "1")
        #expect(
            try TableFormatTests.sqlite(db, "SELECT date, steps FROM daily WHERE steps IS NOT NULL ORDER BY date")
                == "1969-07-20|100\n2024-03-01|5\n2107-01-01|200")

        // Parquet, by pyarrow: no infinity or NaN in any floating-point column.
        let script = """
            import glob, math, sys, pyarrow.parquet as pq
            bad, doubles = [], 0
            for path in glob.glob(sys.argv[1] + '/**/*.parquet', recursive=True):
                table = pq.read_table(path)
                for name in table.column_names:
                    if str(table.column(name).type) in ('double', 'float'):
                        doubles += 1
                        bad += [(path, name) for v in table.column(name).to_pylist() if v is not None and not math.isfinite(v)]
            print(len(bad), doubles > 50, pq.read_table(sys.argv[1] + '/route_points.parquet').column('ele_m').to_pylist())
            """
        let parquet = try Support.runProgram("/usr/bin/env", ["python3", "-c", script, out + "/parquet"])
        #expect(parquet.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0 True [None, None, None, None, 12.5]", "\(parquet)")
    }

    /// The range's edge, worked out by hand: 2^63 = 9223372036854775808 is the first magnitude
    /// outside; the largest double below it is 2^63 − 1024; `9223372036854775807` rounds to 2^63.
    @Test func theRangeEndsAtTwoToTheSixtyThird() {
        func reading(_ text: String) -> NumberText.Reading { ByteSpan.withUTF8(text) { NumberText.reading($0) } }
        #expect(reading("9223372036854774784") == .value(9_223_372_036_854_774_784))
        #expect(reading("-9223372036854774784") == .value(-9_223_372_036_854_774_784))
        #expect(reading("9223372036854775807") == .outOfRange)
        #expect(reading("-9.3e18") == .outOfRange)
        #expect(reading("1e309") == .outOfRange && reading("-1e309") == .outOfRange)
        #expect(reading("1e-400") == .value(0))
        for text in ["NaN", "nan", "inf", "-inf", "Infinity", "", "12,5", "0x10"] {
            #expect(reading(text) == .notANumber, "\(text)")
        }
        #expect(reading("36.6") == .value(36.6) && reading("-0.5") == .value(-0.5))
    }

    /// The staged CSV's reader refuses a real that reads as infinity, so none can be stored.
    @Test func theTableReaderRefusesAnInfiniteReal() {
        for (text, expected) in [("1e309", nil), ("-1e309", nil), ("1e308", 1e308), ("12.5", 12.5)] as [(String, Double?)] {
            #expect(ByteSpan.withUTF8(text) { TypedField.real($0) } == expected, "\(text)")
        }
    }

    /// A cumulative sample holds every date the decoders accept: 1900 to 2200, and a span
    /// between the two (worked out with `Timestamp.parse`, an independent path).
    @Test func aCumulativeSampleHoldsEveryAcceptedDate() throws {
        let first = try #require(Timestamp.parse("1900-01-01 00:00:00 +1800")).utcSeconds
        let last = try #require(Timestamp.parse("2200-12-31 23:59:59 -1800")).utcSeconds
        #expect(first == -2_208_988_800 - 18 * 3600)
        for (start, end) in [(first, first), (first, last), (-1, 0), (0, Int64(UInt32.max) + 1), (last, last)] {
            let sample = CumulativeSample(start: start, end: end, value: 7, source: 3, offsetMinutes: -60)
            #expect(sample.start == start && sample.end == end, "\(start)…\(end)")
        }
        #expect(MemoryLayout<CumulativeSample>.stride == 20)
    }
}
