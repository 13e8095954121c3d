import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailKit
@testable import HealthTrailRun
@testable import HealthTrailSynth

/// The output contract: every column `OutputSchema` documents (and so the README's table) is
/// checked on a generated archive that has the data for it. Each column must be non-empty
/// somewhere and equal the generator's own figure (`SynthSummary`) within the rounding the
/// file is written with, or, where the generator has no figure of its own, a reference
/// computation in this file from an independent reading (the GPX files read back from the zip
/// by Python, another output read by the test's own CSV reader).
///
/// The list of columns comes from the schema, the checks from `checks` below: a documented
/// column without a check, a check for an undocumented column, and a column never filled all
/// fail.
@Suite(.serialized) struct OutputContractTests {
    /// 16 days cover every kind of record and workout the generator writes: legacy and staged
    /// sleep nights, Sleep Cycle's night, a nap, workouts with legacy totals in km, mi, kcal,
    /// Cal and kJ, with `WorkoutStatistics`, with and without routes, heart rate or weather.
    static let days = 16
    static let seed: UInt64 = 4

    /// A CSV read back by the test's own reader, its columns by name.
    struct Table {
        /// The file's path under the output folder.
        var name = ""
        var header: [String]
        var rows: [[String]]

        func index(_ column: String) -> Int? { header.firstIndex(of: column) }
        func values(_ column: String) -> [String] {
            guard let i = index(column) else { return [] }
            return rows.map { $0[i] }
        }
        /// Rows keyed by the value of `column` (the first row of each key).
        func rows(by column: String) -> [String: [String: String]] {
            var out: [String: [String: String]] = [:]
            for row in rows {
                let record = Dictionary(uniqueKeysWithValues: zip(header, row))
                if out[record[column]!] == nil { out[record[column]!] = record }
            }
            return out
        }
        var records: [[String: String]] { rows.map { Dictionary(uniqueKeysWithValues: zip(header, $0)) } }
    }

    /// One generated archive, run once by the shipped binary, and everything the checks read.
    final class Fixture: @unchecked Sendable {
        let summary: SynthSummary
        let out: String
        let zip: String
        /// Every CSV of the run by its path under `out` (`records/step_count.csv`).
        let tables: [String: Table]
        /// The maximum heart rate the run's zones should come from (no zone option given),
        /// worked out from the generator's figures: each workout's `WorkoutStatistics` maximum as
        /// written, or for a workout without one the highest heart_rate.csv sample inside the
        /// generator's span of it; of those from 120 to 220 bpm, the second highest.
        let expectedMaximumBPM: Double?
        /// The zones the run should have used: five from `expectedMaximumBPM`.
        let zones: HeartRateZones
        /// `manifest.json`'s `routes` object.
        let manifestRoutes: [String: Any]

        init() throws {
            let dir = Support.temporaryDirectory("OutputContract")
            zip = dir + "/export.zip"
            out = dir + "/out"
            let synth = try Support.runCLI([
                "synth", zip, "--days", String(OutputContractTests.days),
                "--seed", String(OutputContractTests.seed), "--summary",
            ])
            guard synth.status == 0 else { throw InputError(file: zip, "synth failed: \(synth.stderr)") }
            summary = try JSONDecoder().decode(SynthSummary.self, from: Data(synth.stdout.utf8))
            let run = try Support.runCLI(["run", zip, "--out", out, "--ecg-samples"])
            guard run.status == 0 else { throw InputError(file: zip, "run failed: \(run.stderr)") }
            var tables: [String: Table] = [:]
            let files = FileManager.default.enumerator(atPath: out)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".csv") {
                let csv = try Support.readCSV(out + "/" + file)
                tables[file] = Table(name: file, header: csv.header, rows: csv.rows)
            }
            self.tables = tables

            let samples = (tables["heart_rate.csv"]?.records ?? []).compactMap { r -> (Int64, Double)? in
                guard let t = OutputContractTests.utcSeconds(r["time_utc"]), let bpm = r["bpm"].flatMap(Double.init) else { return nil }
                return (t, bpm)
            }
            var maxima: [Double] = []
            for (start, truth) in summary.workoutTruths {
                if let statistic = truth.maximumBPM {
                    maxima.append(statistic)
                } else if let s = OutputContractTests.utcSeconds(start), let e = OutputContractTests.utcSeconds(truth.endUTC),
                    let top = samples.filter({ s <= $0.0 && $0.0 <= e }).map(\.1).max()
                {
                    maxima.append(top)
                }
            }
            let credible = maxima.filter { 120 <= $0 && $0 <= 220 }.sorted(by: >)
            expectedMaximumBPM = credible.count >= 2 ? credible[1] : credible.first
            zones = .fromMaximum(expectedMaximumBPM ?? 0)
            let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json")))
            manifestRoutes = (manifest as? [String: Any])?["routes"] as? [String: Any] ?? [:]
        }

        func table(_ name: String) -> Table { tables[name] ?? Table(header: [], rows: []) }
        /// The record files, `records/<type>.csv`.
        var recordTables: [(name: String, table: Table)] {
            tables.filter { $0.key.hasPrefix("records/") }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }

        /// The archive's GPX points as Python's zipfile and ElementTree read them: per entry
        /// name (relative to the export folder), every `trkpt` in order.
        lazy var gpxPoints: [String: [[String: String]]] = {
            let script = """
                import json, sys, zipfile, xml.etree.ElementTree as ET
                ns = {"g": "http://www.topografix.com/GPX/1/1"}
                out = {}
                with zipfile.ZipFile(sys.argv[1]) as z:
                    for name in z.namelist():
                        if not name.endswith(".gpx"): continue
                        root = ET.fromstring(z.read(name))
                        points = []
                        for p in root.iter("{http://www.topografix.com/GPX/1/1}trkpt"):
                            d = {"lat": p.get("lat"), "lon": p.get("lon"), "ele": p.findtext("g:ele", namespaces=ns),
                                 "time": p.findtext("g:time", namespaces=ns)}
                            for k in ("speed", "course", "hAcc", "vAcc"):
                                d[k] = p.findtext("g:extensions/g:" + k, namespaces=ns)
                            points.append(d)
                        out[name.split("/", 1)[1]] = points
                print(json.dumps(out))
                """
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", script, zip]
            let pipe = Pipe()
            process.standardOutput = pipe
            try? process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (try? JSONDecoder().decode([String: [[String: String]]].self, from: data)) ?? [:]
        }()
    }

    static let fixture: Result<Fixture, Error> = Result { try Fixture() }

    /// A column's check: records a test issue for every value that is not what it should be.
    typealias Check = @Sendable (Fixture, Table) throws -> Void

    /// Checks per file name (as `OutputSchema` names it) and column. Per-zone columns are
    /// listed under their names, `zone_1_s` … `zone_5_s`.
    static let checks: [String: [String: Check]] = [
        OutputSchema.routePoints.name: RoutePointChecks.all,
        OutputSchema.splits.name: SplitChecks.all,
        OutputSchema.bestEfforts.name: BestEffortChecks.all,
        OutputSchema.heartRate.name: HeartRateChecks.all,
        OutputSchema.hrvBeats.name: HRVChecks.all,
        OutputSchema.sleepSamples.name: SleepSampleChecks.all,
        OutputSchema.activitySummaries.name: ActivitySummaryChecks.all,
        OutputSchema.records.name: RecordChecks.all,
        OutputSchema.workouts.name: WorkoutChecks.all,
        OutputSchema.heartRateZones.name: HeartRateZoneChecks.all,
        OutputSchema.daily.name: DailyChecks.all,
        OutputSchema.sleepNights.name: SleepNightChecks.all,
        OutputSchema.ecg.name: ECGChecks.all,
        OutputSchema.ecgSamples.name: ECGSampleChecks.all,
    ]

    /// The header each file must have, per-zone columns expanded for the default zones.
    static func documentedColumns(_ file: OutputSchema.CSVFile) -> [String] { file.header(zones: .fromMaximum(HeartRateZones.fixedMaximum)) }

    /// The zones come from the workouts' second-highest credible maximum: heart_rate_zones.csv
    /// holds it (checked column by column in `HeartRateZoneChecks`), the manifest names only
    /// where it came from, never the maximum or a bound (a health value).
    @Test func zonesComeFromTheWorkoutsMaximum() throws {
        let f = try Self.fixture.get()
        _ = try #require(f.expectedMaximumBPM, "the generated export has workout heart rate")
        #expect(f.table("heart_rate_zones.csv").rows.count == 5)
        #expect(f.manifestRoutes["zone_basis"] as? String == "workout_maximum")
        #expect(f.manifestRoutes.keys.filter { $0.hasPrefix("zone") }.sorted() == ["zone_basis", "zones"])
        #expect(f.table("workouts.csv").header.suffix(5) == ["zone_1_s", "zone_2_s", "zone_3_s", "zone_4_s", "zone_5_s"])
    }

    @Test func everyDocumentedColumnHasACheckAndNoOtherDoes() {
        for file in OutputSchema.csvFiles {
            let documented = Self.documentedColumns(file)
            let checked = Set((Self.checks[file.name] ?? [:]).keys)
            for column in documented where !checked.contains(column) {
                Issue.record("\(file.name): `\(column)` is documented but the contract test does not check it")
            }
            for column in checked.subtracting(documented).sorted() {
                Issue.record("\(file.name): `\(column)` is checked but OutputSchema does not document it")
            }
        }
    }

    @Test(arguments: OutputSchema.csvFiles.map(\.name))
    func everyColumnIsFilledAndRight(_ fileName: String) throws {
        let fixture = try Self.fixture.get()
        let file = try #require(OutputSchema.csvFiles.first { $0.name == fileName })
        let documented = Self.documentedColumns(file)
        // The record files are many: each is checked, and a column must be filled in one of them.
        let tables =
            fileName == OutputSchema.records.name
            ? fixture.recordTables.map(\.table)
            : [fixture.table(fileName)]
        #expect(!tables.isEmpty && tables.allSatisfy { !$0.rows.isEmpty }, "\(fileName) has no rows")
        for table in tables {
            #expect(table.header == documented, "\(fileName): header \(table.header)")
        }
        for column in documented {
            let filled = tables.contains { $0.values(column).contains { !$0.isEmpty } }
            #expect(filled, "\(fileName): `\(column)` is empty in every row")
            guard let check = Self.checks[fileName]?[column] else { continue }
            for table in tables { try check(fixture, table) }
        }
    }
}

// MARK: - Reading values

extension OutputContractTests {

    /// A field as a number; records an issue naming the column when it is not one.
    static func number(_ s: String?, _ what: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) -> Double? {
        guard let s, !s.isEmpty else { return nil }
        guard let v = Double(s), v.isFinite else {
            Issue.record("\(what()): `\(s)` is not a number", sourceLocation: sourceLocation)
            return nil
        }
        return v
    }

    /// Expects `actual` to be `expected` within `tolerance` (the written rounding).
    static func expectClose(
        _ actual: String?, _ expected: Double?, within tolerance: Double, _ what: @autoclosure () -> String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let expected else {
            #expect(actual == nil || actual == "", "\(what()): expected empty, found `\(actual ?? "")`", sourceLocation: sourceLocation)
            return
        }
        guard let value = number(actual, what(), sourceLocation: sourceLocation) else {
            Issue.record("\(what()): expected \(expected), found empty", sourceLocation: sourceLocation)
            return
        }
        #expect(
            abs(value - expected) <= tolerance, "\(what()): \(value) against the generator's \(expected)",
            sourceLocation: sourceLocation)
    }

    /// `2023-01-05T10:00:00Z` → seconds since 1970 (the test's own parser).
    static func utcSeconds(_ s: String?) -> Int64? {
        guard let s, s.count == 20, s.hasSuffix("Z") else { return nil }
        let p = Array(s.utf8)
        func n(_ a: Int, _ b: Int) -> Int? { Int(String(decoding: p[a..<b], as: UTF8.self)) }
        guard let y = n(0, 4), let mo = n(5, 7), let d = n(8, 10), let h = n(11, 13), let mi = n(14, 16), let se = n(17, 19)
        else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day, components.hour, components.minute, components.second) = (y, mo, d, h, mi, se)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: components).map { Int64($0.timeIntervalSince1970) }
    }

    /// `+01:00` for an offset in minutes.
    static func offsetText(_ minutes: Int) -> String {
        let m = abs(minutes)
        return (minutes < 0 ? "-" : "+") + String(format: "%02d:%02d", m / 60, m % 60)
    }

    /// Every value of `column` passes `isValid`; records the first failures.
    static func expectEvery(
        _ table: Table, _ column: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ isValid: (String) -> Bool
    ) {
        let bad = table.values(column).filter { !isValid($0) }
        #expect(
            bad.isEmpty, "\(column): \(bad.count) values are not \(what), e.g. `\(bad.prefix(3).joined(separator: "`, `"))`",
            sourceLocation: sourceLocation)
    }

    /// The generator's sources, as they appear in the outputs.
    static let synthSources: Set<String> = ["Alex’s Apple Watch", "Alex’s iPhone", "Withings & Co", "Strava", "Zwift", "Sleep Cycle"]
    /// The offset every date of a generated export carries (`SynthOptions.exportOffsetMinutes`).
    static let exportOffset = offsetText(SynthOptions(days: 1, seed: 0).exportOffsetMinutes)
}
