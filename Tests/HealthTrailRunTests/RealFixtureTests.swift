import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailRun

/// Real exports from ../shared/fixtures/real (see its README). Expected counts were taken with
/// grep/unzip, independently of HealthTrail.
@Suite(.enabled(if: Support.hasRealFixtures, "../shared/fixtures/real is absent: real-export tests skipped"))
struct RealFixtureTests {
    func run(_ relative: String) throws -> (String, Manifest) {
        let out = Support.temporaryDirectory() + "/out"
        return (out, try ExportRun.run(RunOptions(inputPath: Support.fixture(relative), outputDirectory: out)))
    }

    /// test-export3 (ATTLIST never closed) and test-export4 (stray `>`) are the iOS 16 broken-DTD
    /// exports every peer tool fails on; test-export-cn names its XML 导出.xml.
    @Test(arguments: [
        "k0rventen/test-export.zip", "k0rventen/test-export3.zip", "k0rventen/test-export4.zip",
        "k0rventen/test-export-cn.zip",
    ])
    func readsExportVersion13Archives(_ archive: String) throws {
        let (out, m) = try run(archive)
        #expect(m.input.exportVersion == "13")
        #expect(m.input.locale == "en_FR")
        #expect(m.counts.recordsByType.values.reduce(0, +) == 8038)
        #expect(m.counts.recordsByType.count == 28)
        #expect(m.counts.heartRate == 400)
        #expect(m.counts.hrvBeats == 13081)
        #expect(m.faults.total == 0)
        #expect(try Support.readCSV(out + "/heart_rate.csv").rows.count == 400)
        #expect(try Support.readCSV(out + "/hrv_beats.csv").rows.count == 13081)
        if archive.hasSuffix("-cn.zip") { #expect(m.input.mainEntry == "apple_health_export/导出.xml") }
    }

    @Test func readsRealRouteFiles() throws {
        let (out, m) = try run("k0rventen/test-export.zip")
        #expect(m.counts.routeFiles == 2)
        #expect(m.counts.routePoints == 5237)
        // No Workout elements in this export: both routes are orphans under their own ids.
        #expect(m.routes.orphans.count == 2)
        let ids = Set(try Support.readCSV(out + "/route_points.csv").rows.map { $0[0] })
        #expect(ids == ["route-20190924T102237Z", "route-20191004T101632Z"])
    }

    @Test func readsAnExportVersion7ArchiveWithDoubleCountedSteps() throws {
        let (out, m) = try run("ericwolter/Export.zip")
        #expect(m.input.exportVersion == "7")
        #expect(m.input.mainEntry == "apple_health_export/Export.xml")
        #expect(m.counts.recordsByType.values.reduce(0, +) == 84723)
        #expect(m.counts.recordsByType["HKQuantityTypeIdentifierStepCount"] == 37128)
        #expect(m.counts.heartRate == 868)
        #expect(m.counts.sources == 9)
        // The raw per-source steps of 2016-10-29 (local time) are those the fixture README names.
        var perSource: [String: Double] = [:]
        for row in try Support.readCSV(out + "/records/step_count.csv").rows {
            let start = try #require(Timestamp.parse(row[0]))
            let offset = Int32(row[2].prefix(3))! * 60 + (row[2].hasPrefix("-") ? -1 : 1) * Int32(row[2].suffix(2))!
            let local = Timestamp(utcSeconds: start.utcSeconds, offsetMinutes: offset)
            if local.localDateString == "2016-10-29" { perSource[row[5], default: 0] += Double(row[3])! }
        }
        #expect(perSource == ["Eric's Work iPhone": 10005, "Mi Fit": 10231])
    }

    /// 128 real days where an iPhone and a Mi Fit band both counted steps: the day's figure is one
    /// source per time span, never the sum (2016-10-29: 10,005 + 10,231 = 20,236 raw).
    @Test func doubleCountedRealStepsAreDeduplicated() throws {
        func steps(on date: String, priority: SourcePriority) throws -> Double {
            let out = Support.temporaryDirectory() + "/out"
            var options = RunOptions(inputPath: Support.fixture("ericwolter/Export.zip"), outputDirectory: out)
            options.sourcePriority = priority
            _ = try ExportRun.run(options)
            let csv = try Support.readCSV(out + "/daily.csv")
            let row = try #require(csv.rows.first { $0[0] == date })
            return try #require(Double(row[1]))
        }
        let phoneFirst = try steps(on: "2016-10-29", priority: .default)
        #expect(phoneFirst >= 10005 && phoneFirst < 20236 - 5000)
        let bandFirst = try steps(on: "2016-10-29", priority: SourcePriority(patterns: ["Mi Fit"]))
        #expect(bandFirst >= 10231 && bandFirst < 20236 - 5000)
        #expect(phoneFirst != bandFirst)
    }

    /// The real export was made in winter and stamps `+01:00` on every date, while its sleep
    /// samples name `Europe/Berlin`: the night ending 2016-10-29 woke on summer time (Central
    /// European Summer Time ends 30 October 2016 at 01:00 UTC), so its offset is `+02:00`.
    @Test func realSleepZonesGiveTheNightItsSummerTime() throws {
        let (out, m) = try run("ericwolter/Export.zip")
        #expect(m.normalisation.timeZones.zones == 1 && m.normalisation.timeZones.stays == 1)
        #expect(m.normalisation.timeZones.quarterHoursOnStampedOffset == 0)
        let nights = try Support.readCSV(out + "/sleep_nights.csv")
        let night = try #require(nights.rows.first { $0[0] == "2016-10-29" })
        #expect(night[nights.header.firstIndex(of: "utc_offset")!] == "+02:00")
        let samples = try Support.readCSV(out + "/sleep_samples.csv")
        let stampedOffsets = Set(samples.rows.filter { $0[0].hasPrefix("2016-10-28T2") }.map { $0[2] })
        #expect(stampedOffsets == ["+01:00"])
        let daily = try Support.readCSV(out + "/daily.csv")
        #expect(Set(daily.rows.map { $0[daily.header.firstIndex(of: "time_zone")!] }) == ["Europe/Berlin"])
    }

    @Test func realSleepCycleNightsAreConsistent() throws {
        let (out, m) = try run("ericwolter/Export.zip")
        let csv = try Support.readCSV(out + "/sleep_nights.csv")
        #expect(csv.rows.count == m.normalisation.sleepNights)
        #expect(csv.rows.count > 300)
        for row in csv.rows {
            let night = Dictionary(uniqueKeysWithValues: zip(csv.header, row))
            let inBed = Double(night["in_bed_min"]!)!, asleep = Double(night["asleep_min"]!)!
            #expect(asleep <= inBed + 0.001, "\(row)")
            #expect(Double(night["efficiency"]!)! <= 1)
            #expect(Double(night["latency_min"]!)! >= 0)
        }
        #expect(Set(csv.rows.map { $0[0] }).count == csv.rows.count)   // one night per date
    }

    /// Each real Apple route file decodes every trkpt (counts from grep).
    @Test(arguments: [
        ("route_2019-08-21_4.20pm.gpx", 1352), ("route_2022-01-19_6.33pm.gpx", 2370),
        ("route_2024-09-22_6.44pm.gpx", 95), ("route_2024-11-14_6.05pm.gpx", 60),
        ("route_2025-01-30_12.57pm.gpx", 100), ("route_2025-03-27_6.01pm.gpx", 60),
        ("route_2025-04-04_7.27pm.gpx", 40),
    ])
    func decodesRealGPXFiles(_ name: String, _ points: Int) throws {
        let path = Support.fixture("applehealth-gpx/" + name)
        var decoded: [RoutePoint] = []
        var fieldsComplete = true
        let decoder = GPXDecoder(faults: FaultLog(file: path, strict: true), fileName: path, entryName: name) { point, raw in
            decoded.append(point)
            if raw.elevation == nil || raw.speed == nil || raw.horizontalAccuracy == nil { fieldsComplete = false }
        }
        let source = try openExportSource(path: path)
        try source.read(source.entries[0]) { try decoder.feed($0) }
        try decoder.finish()
        #expect(decoder.points == points)
        #expect(decoded.count == points)
        #expect(fieldsComplete)
        #expect(decoded.allSatisfy { (-90...90).contains($0.latitude) && (-180...180).contains($0.longitude) })
        let times = decoded.map(\.time)
        #expect(times == times.sorted())
    }

    @Test func aFolderWithoutExportXMLIsReportedClearly() throws {
        let folder = Support.fixture("hacktj23/apple_health_export")
        let error = #expect(throws: InputError.self) {
            try ExportRun.run(RunOptions(inputPath: folder, outputDirectory: Support.temporaryDirectory() + "/out"))
        }
        #expect(error?.description.contains("no Apple Health export.xml found") == true)
        #expect(error?.file == folder)
    }
}
