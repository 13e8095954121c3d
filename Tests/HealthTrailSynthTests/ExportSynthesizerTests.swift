import Foundation
import HealthTrailTestSupport
import Testing

@testable import HealthTrailSynth

/// The generator's summary is the truth other tests compare against, so it is checked here
/// against the archive itself, read with the system's unzip (independent of ZipArchive).
@Suite struct ExportSynthesizerTests {
    func unzip(_ args: [String]) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
        p.arguments = args
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0)
        return data
    }

    /// Lines of an entry (export.xml puts one element per line).
    func lines(_ zip: String, _ entry: String) throws -> [Substring] {
        String(decoding: try unzip(["-p", zip, entry]), as: UTF8.self).split(separator: "\n")
    }

    @Test func summaryCountsMatchTheArchive() throws {
        let dir = Support.temporaryDirectory()
        let zip = dir + "/export.zip"
        let s = try ExportSynthesizer.write(to: zip, options: SynthOptions(days: 3, seed: 42))
        let xml = try lines(zip, "apple_health_export/export.xml")

        var byType: [String: Int] = [:]
        var nested = 0, correlations = 0, workouts = 0, routes = 0, beats = 0, summaries = 0
        for line in xml {
            if line.hasPrefix(" <Record type=\"") {
                let type = line.dropFirst(15).prefix { $0 != "\"" }
                byType[String(type), default: 0] += 1
            } else if line.hasPrefix("  <Record ") {
                nested += 1
            } else if line.hasPrefix(" <Correlation ") {
                correlations += 1
            } else if line.hasPrefix(" <Workout ") {
                workouts += 1
            } else if line.hasPrefix("  <WorkoutRoute ") {
                routes += 1
            } else if line.hasPrefix("   <InstantaneousBeatsPerMinute ") {
                beats += 1
            } else if line.hasPrefix(" <ActivitySummary ") {
                summaries += 1
            }
        }
        #expect(byType == s.recordsByType)
        #expect(byType["HKQuantityTypeIdentifierHeartRate"] == s.heartRateRecords)
        #expect(nested == 2 * s.correlations)   // systolic + diastolic, not in recordsByType
        #expect(correlations == s.correlations && correlations > 0)
        #expect(workouts == s.workouts && workouts >= 3)
        #expect(routes == s.workoutsWithRoutes)
        #expect(beats == s.hrvBeats)
        #expect(summaries == s.activitySummaries && summaries == 3)
        #expect(UInt64(xml.reduce(0) { $0 + $1.utf8.count + 1 }) == s.exportXMLBytes)
        #expect(s.watchStepsByLocalDay.count == 3)

        let names = String(decoding: try unzip(["-Z1", zip]), as: UTF8.self).split(separator: "\n")
        let gpx = names.filter { $0.hasSuffix(".gpx") }
        #expect(gpx.count == s.routeFiles)
        var points = 0
        for name in gpx { points += try lines(zip, String(name)).filter { $0.hasPrefix("      <trkpt ") }.count }
        #expect(points == s.routePoints)
        #expect(names.contains("apple_health_export/export_cda.xml"))
        #expect(names.contains { $0.hasPrefix("apple_health_export/electrocardiograms/ecg_") })
    }

    @Test func brokenLinksGiveOneMissingFileAndOneOrphan() throws {
        let dir = Support.temporaryDirectory()
        var options = SynthOptions(days: 6, seed: 3)
        options.includeBrokenRouteLinks = true
        let s = try ExportSynthesizer.write(to: dir + "/export.zip", options: options)
        let referenced = Set(
            try lines(dir + "/export.zip", "apple_health_export/export.xml")
                .filter { $0.hasPrefix("   <FileReference path=\"") }
                .map { "apple_health_export" + $0.dropFirst(24).prefix { $0 != "\"" } })
        let gpx = Set(
            String(decoding: try unzip(["-Z1", dir + "/export.zip"]), as: UTF8.self)
                .split(separator: "\n").filter { $0.hasSuffix(".gpx") }.map(String.init))
        #expect(referenced.subtracting(gpx).count == 1)
        #expect(gpx.subtracting(referenced).count == 1)
        #expect(gpx.count == s.routeFiles && referenced.count == s.workoutsWithRoutes)
    }

    /// The local-day truths move samples between dates, never in or out of the archive: over all
    /// days they sum as the export-offset truths do, and away from the flights the Watch's steps
    /// fall on the dates its zone gives them.
    @Test func localDayTruthsFollowThePersonsZone() throws {
        let dir = Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try ExportSynthesizer.write(to: dir + "/export.zip", options: SynthOptions(days: 40, seed: 7))
        // 40 days from 2023-01-01: New York from day 20 (n / 2) for 4 days (n / 10).
        let trip = ["2023-01-21", "2023-01-22", "2023-01-23", "2023-01-24"]

        // (d) Each of the 40 days has its zone; New York on exactly the trip's days.
        #expect(s.timeZoneByLocalDay.count == 40)
        #expect(s.timeZoneByLocalDay.filter { $0.value == "America/New_York" }.keys.sorted() == trip)
        #expect(s.timeZoneByLocalDay.values.allSatisfy { $0 == "America/New_York" || $0 == "Europe/Paris" })
        #expect(s.travelDays == ["2023-01-20", "2023-01-21", "2023-01-24", "2023-01-25"])

        // (a) Outside the travel days, the day's windows are its zone's midnights.
        #expect(!s.stepsByLocalDay.isEmpty)
        for day in Set(s.stepsByLocalDay.keys).union(s.watchStepsByLocalDay.keys) where !s.travelDays.contains(day) {
            #expect(s.stepsByLocalDay[day] == s.watchStepsByLocalDay[day], "\(day)")
        }

        // (b) In New York the export offset puts evening samples on the next date; the local
        // day does not, and the steps only move between dates.
        #expect(trip.contains { s.heartRateMeanByLocalDay[$0] != s.heartRateMeanByExportDay[$0] })
        #expect(s.stepsByLocalDay.values.reduce(0, +) == s.stepsByExportDay.values.reduce(0, +))
        #expect(s.flightsByLocalDay.values.reduce(0, +) == s.flightsByExportDay.values.reduce(0, +))

        // (c) Basal energy is split at other boundaries, but none is lost.
        let local = s.basalKcalByLocalDay.values.reduce(0, +), export = s.basalKcalByExportDay.values.reduce(0, +)
        #expect(export > 0 && abs(local - export) <= 1e-6 * export)
    }
}
