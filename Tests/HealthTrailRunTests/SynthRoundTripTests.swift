import Foundation
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailRun
@testable import HealthTrailSynth

#if canImport(FoundationXML)
import FoundationXML   // XMLParser on Linux: tests check the SVG maps are well-formed
import HealthTrailTestSupport
#endif

/// Archives made by the project's generator, run through the pipeline: every count in every
/// CSV must equal what the generator says it wrote.
@Suite struct SynthRoundTripTests {
    func synthAndRun(_ configure: (inout SynthOptions) -> Void = { _ in }, days: Int = 4, seed: UInt64 = 11)
        throws -> (summary: SynthSummary, manifest: Manifest, out: String)
    {
        let dir = Support.temporaryDirectory()
        var options = SynthOptions(days: days, seed: seed)
        configure(&options)
        let summary = try ExportSynthesizer.write(to: dir + "/export.zip", options: options)
        let manifest = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out"))
        return (summary, manifest, dir + "/out")
    }

    func rows(_ out: String, _ file: String) throws -> [[String]] { try Support.readCSV(out + "/" + file).rows }

    @Test func everyCountMatchesTheGenerator() throws {
        let (s, m, out) = try synthAndRun()
        #expect(m.faults.total == 0)
        #expect(m.counts.recordsByType == s.recordsByType)
        #expect(m.counts.heartRate == s.heartRateRecords)
        #expect(m.counts.workouts == s.workouts)
        #expect(m.counts.routeFiles == s.routeFiles)
        #expect(m.counts.routePoints == s.routePoints)
        #expect(m.counts.correlations == s.correlations)
        #expect(m.counts.activitySummaries == s.activitySummaries)
        #expect(m.counts.hrvBeats == s.hrvBeats)
        #expect(m.input.mainEntryBytes == s.exportXMLBytes)

        // The files themselves, read back by an independent CSV reader.
        #expect(try rows(out, "heart_rate.csv").count == s.heartRateRecords)
        #expect(try rows(out, "workouts.csv").count == s.workouts)
        #expect(try rows(out, "route_points.csv").count == s.routePoints)
        #expect(try rows(out, "hrv_beats.csv").count == s.hrvBeats)
        #expect(try rows(out, "activity_summaries.csv").count == s.activitySummaries)
        for (type, count) in s.recordsByType where type != "HKQuantityTypeIdentifierHeartRate" {
            let file = "records/\(RecordType.fileName(for: type) ?? "").csv"
            #expect(try rows(out, file).count == count, "\(file)")
        }
        // Every route point belongs to a workout of workouts.csv (all linked by FileReference).
        let workoutIDs = Set(try rows(out, "workouts.csv").map { $0[0] })
        #expect(Set(try rows(out, "route_points.csv").map { $0[0] }).isSubset(of: workoutIDs))
        #expect(m.routes.linkedByReference == s.routeFiles)
        // routes.geojson from the whole pipeline passes the independent RFC 7946 validator:
        // one route line and a start and end point per route file, about 50 segments each,
        // and one more where a pause cuts a segment in two.
        let features = try GeoJSONCheck.validFeatures(out + "/routes.geojson")
        let kinds = features.compactMap { ($0["properties"] as? [String: Any])?["kind"] as? String }
        #expect(kinds.filter { $0 == "route" }.count == s.routeFiles)
        #expect(kinds.filter { $0 == "start" }.count == s.routeFiles)
        let paused = s.workoutTruths.values.filter { $0.pause != nil && $0.routeFile != nil && !$0.routeMissing }.count
        #expect(paused > 0)
        #expect((50 * s.routeFiles...(50 * s.routeFiles + paused)).contains(kinds.filter { $0 == "segment" }.count))
        #expect(m.routes.geojsonFeatures == features.count)

        // svg/: a map per workout with a route, the overview, the density map, calendars; each
        // one well-formed XML with its size and viewBox, owner-only.
        let svg = out + "/svg"
        let workoutMaps = try FileManager.default.contentsOfDirectory(atPath: svg + "/workouts").sorted()
        let routed = Set(try rows(out, "route_points.csv").map { $0[0] })
        #expect(workoutMaps == routed.map { $0 + ".svg" }.sorted())
        let others = try FileManager.default.contentsOfDirectory(atPath: svg).filter { $0.hasSuffix(".svg") }.sorted()
        #expect(
            others == [
                "calendar-resting-hr.svg", "calendar-sleep.svg", "calendar-steps.svg",
                "calendar-workout-minutes.svg", "density.svg", "routes.svg",
            ])
        for file in others.map({ svg + "/" + $0 }) + workoutMaps.map({ svg + "/workouts/" + $0 }) {
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            let parser = XMLParser(data: data)
            #expect(parser.parse(), "\(file) is not well-formed XML")
            let head = String(decoding: data.prefix(300), as: UTF8.self)
            #expect(head.contains("viewBox=\"0 0 ") && head.contains(" width=\"") && head.contains(" height=\""))
            let mode = try #require(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0)
        }
        #expect(try rows(out, "workouts.csv").filter { !$0[7].isEmpty }.count == s.workoutsWithRoutes)
    }

    @Test func readsTheBrokenDTDVariantAndRenamedXML() throws {
        let (s, m, _) = try synthAndRun({
            $0.brokenDTD = true; $0.xmlName = "导出.xml"; $0.topFolder = "eksport"
        })
        #expect(m.input.mainEntry == "eksport/导出.xml")
        #expect(m.counts.recordsByType == s.recordsByType)
        #expect(m.counts.routePoints == s.routePoints)
    }

    @Test func reportsAMissingRouteFileAndAnOrphan() throws {
        let (s, m, out) = try synthAndRun({ $0.includeBrokenRouteLinks = true }, days: 10)
        #expect(m.routes.missingFiles.count == 1)
        #expect(m.routes.orphans.count == 1)
        #expect(m.counts.routePoints == s.routePoints)
        let orphanID = try rows(out, "route_points.csv").map { $0[0] }.first { $0.hasPrefix("route-") }
        #expect(orphanID != nil)
    }

    @Test func theGeneratorIsDeterministic() throws {
        let dir = Support.temporaryDirectory()
        let a = try ExportSynthesizer.write(to: dir + "/a.zip", options: SynthOptions(days: 2, seed: 5))
        let b = try ExportSynthesizer.write(to: dir + "/b.zip", options: SynthOptions(days: 2, seed: 5))
        let c = try ExportSynthesizer.write(to: dir + "/c.zip", options: SynthOptions(days: 2, seed: 6))
        #expect(a == b)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/a.zip")) == Data(contentsOf: URL(fileURLWithPath: dir + "/b.zip")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/a.zip")) != Data(contentsOf: URL(fileURLWithPath: dir + "/c.zip")))
        _ = c
    }

    /// Route files are decoded on two threads; the outputs must not depend on their timing.
    @Test func twoRunsWriteTheSameBytes() throws {
        let dir = Support.temporaryDirectory()
        _ = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 9, seed: 4))
        var snapshots: [[String: Data]] = []
        for run in 0..<3 {
            _ = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/out\(run)"))
            var files = try Support.snapshot(dir + "/out\(run)")
            files["/manifest.json"] = nil   // timings differ
            snapshots.append(files)
        }
        #expect(snapshots[0] == snapshots[1] && snapshots[1] == snapshots[2])
        #expect(snapshots[0].keys.contains("/route_points.csv"))
    }

    @Test func aBadRouteFileInEitherHalfFailsStrictRuns() throws {
        let dir = Support.temporaryDirectory()
        _ = try ExportSynthesizer.write(to: dir + "/good.zip", options: SynthOptions(days: 8, seed: 4))
        let good = try ZipArchive(path: dir + "/good.zip")
        let routes = good.entries.filter { $0.path.hasSuffix(".gpx") }
        try #require(routes.count >= 2)
        for victim in [routes.first!, routes.last!] {
            // Rebuild the archive with one trkpt time broken in the chosen route file.
            let zip = try ZipWriter(path: dir + "/bad.zip")
            for entry in good.entries {
                var bytes: [UInt8] = []
                try good.read(entry) { $0.append(to: &bytes) }
                if entry == victim {
                    let text = String(decoding: bytes, as: UTF8.self)
                    let range = try #require(text.range(of: "<time>", range: text.range(of: "<trkpt")!.lowerBound..<text.endIndex))
                    bytes = Array(text.replacingCharacters(in: range, with: "<time>yesterday").utf8)
                }
                try zip.addEntry(entry.path, bytes: bytes)
            }
            try zip.finish()
            var options = RunOptions(inputPath: dir + "/bad.zip", outputDirectory: dir + "/out")
            options.strict = true
            let error = #expect(throws: InputError.self) { try ExportRun.run(options) }
            #expect(error?.entry == victim.path)
            options.strict = false
            #expect(try ExportRun.run(options).faults.byKind["bad_date"] == 1)
        }
    }

    @Test func anUnzippedFolderGivesTheSameOutputsAsTheZip() throws {
        let dir = Support.temporaryDirectory()
        _ = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 2, seed: 9))
        let unzip = Process()
        unzip.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
        unzip.arguments = ["-q", dir + "/export.zip", "-d", dir + "/unzipped"]
        try unzip.run(); unzip.waitUntilExit()
        try #require(unzip.terminationStatus == 0)
        _ = try ExportRun.run(RunOptions(inputPath: dir + "/export.zip", outputDirectory: dir + "/from-zip"))
        _ = try ExportRun.run(RunOptions(inputPath: dir + "/unzipped/apple_health_export", outputDirectory: dir + "/from-folder"))
        var fromZip = try Support.snapshot(dir + "/from-zip"), fromFolder = try Support.snapshot(dir + "/from-folder")
        fromZip["/manifest.json"] = nil; fromFolder["/manifest.json"] = nil
        #expect(fromZip == fromFolder)
    }
}
