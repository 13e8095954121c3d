import Foundation
import HealthTrailSynth
import HealthTrailTestSupport
import Testing

/// `report.html` from a run of the binary on a synthetic export, opened in headless Chromium
/// from disk: its scripts run without an error, it asks for nothing outside itself, it lists
/// every workout of workouts.csv, and it draws at a phone's and a desktop's width.
@Suite(.serialized) struct ReportTests {
    /// One synthetic export's run, shared by the tests (a run costs a second or two).
    static let run: (dir: String, out: String, zip: String) = {
        let dir = Support.temporaryDirectory("report")
        let zip = dir + "/export.zip"
        _ = try! ExportSynthesizer.write(to: zip, options: SynthOptions(days: 20, seed: 41))
        let result = try! Support.runCLI(["run", zip, "--out", dir + "/out", "--quiet"])
        precondition(result.status == 0, result.stderr)
        return (dir, dir + "/out", zip)
    }()

    /// The workout ids of workouts.csv (its first column; ids hold no comma or quote).
    static func workoutIDs(_ out: String) throws -> [String] {
        let text = try String(contentsOfFile: out + "/workouts.csv", encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { String($0.prefix(while: { $0 != "," })) }
    }

    @Test func aRunWritesAnOwnerOnlyPageTheManifestNames() throws {
        let path = Self.run.out + "/report.html"
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let manifest = try String(contentsOfFile: Self.run.out + "/manifest.json", encoding: .utf8)
        #expect(manifest.contains("\"report.html\""))
        let page = try String(contentsOfFile: path, encoding: .utf8)
        let ids = try Self.workoutIDs(Self.run.out)
        #expect(ids.count >= 5)
        for id in ids { #expect(page.contains("<details class=\"workout\" id=\"w-\(id)\">"), "\(id)") }
    }

    @Test(.enabled(if: BrowserRendering.isAvailable))
    func chromiumRunsItsScriptWithoutAnErrorOrARequestAndListsEveryWorkout() throws {
        let (dom, log) = try BrowserRendering.dumpDOM(htmlPath: Self.run.out + "/report.html")
        // The page's script marks the root when it has set up, and records an error or a
        // refused request there; Chromium's console log would show either too.
        #expect(dom.contains("data-ready=\"1\""), "\(log)")
        #expect(!dom.contains("data-error="), "\(log)")
        #expect(!dom.contains("data-blocked="), "\(log)")
        for word in ["Uncaught", "Refused to", "ERR_", "Failed to load"] { #expect(!log.contains(word), "\(log)") }
        let ids = try Self.workoutIDs(Self.run.out)
        for id in ids {
            #expect(dom.contains("<tr data-id=\"\(id)\">"), "\(id)")
            #expect(dom.contains("id=\"w-\(id)\""), "\(id)")
        }
        // Controls are buttons, links and summaries: reachable with the keyboard. Maps take focus.
        #expect(dom.components(separatedBy: "<th scope=\"col\"><button type=\"button\"").count - 1 >= 5)
        #expect(!dom.contains("onclick") && !dom.contains("<div role=\"button\""))
        #expect(dom.contains("<svg class=\"route\" tabindex=\"0\""))
    }

    /// A pointer over the first route's start, in Chromium: the tooltip gives that point's clock
    /// time where the workout was, 0:00 since the start, its heart rate and its elevation, as
    /// route_points.csv and workouts.csv have them. The page is copied with a script added that
    /// opens the workout, moves a pointer event to the point and writes the tooltip on the root.
    @Test(.enabled(if: BrowserRendering.isAvailable))
    func hoveringARoutesStartShowsItsClockTimeAndFigures() throws {
        let page = try String(contentsOfFile: Self.run.out + "/report.html", encoding: .utf8)
        let probe = """
            <script>(function(){var svg=document.querySelector('svg.route');var d=svg.closest('details');d.open=true;
            var q=svg.getAttribute('data-p').split(';')[0].split(',');var p=svg.createSVGPoint();p.x=+q[0];p.y=+q[1];
            var c=p.matrixTransform(svg.getScreenCTM());
            svg.dispatchEvent(new PointerEvent('pointermove',{clientX:c.x,clientY:c.y,bubbles:true}));
            document.documentElement.setAttribute('data-workout',d.id.slice(2));
            document.documentElement.setAttribute('data-tip',document.getElementById('tip').textContent)})();</script>
            """
        let probed = Support.temporaryDirectory("report-hover") + "/report.html"
        try page.replacingOccurrences(of: "</body>", with: probe + "</body>").write(toFile: probed, atomically: true, encoding: .utf8)
        let (dom, log) = try BrowserRendering.dumpDOM(htmlPath: probed)
        #expect(!dom.contains("data-error="), "\(log)")
        let workout = try #require(dom.firstMatch(of: #/data-workout="([^"]+)"/#).map { String($0.output.1) }, "\(log)")
        let tip = try #require(dom.firstMatch(of: #/data-tip="([^"]*)"/#).map { String($0.output.1) }, "\(log)")

        // The route's first active point, and the workout's offset, from the CSVs.
        let points = try Support.readCSV(Self.run.out + "/route_points.csv")
        func column(_ table: (header: [String], rows: [[String]]), _ name: String) throws -> Int {
            try #require(table.header.firstIndex(of: name))
        }
        let (id, state, time, bpm, elevation) = try (
            column(points, "workout_id"), column(points, "state"), column(points, "time_utc"), column(points, "hr_bpm"), column(points, "ele_m")
        )
        let first = try #require(points.rows.first { $0[id] == workout && $0[state] == "active" })
        let workouts = try Support.readCSV(Self.run.out + "/workouts.csv")
        let offsetText = try #require(workouts.rows.first { $0[0] == workout }?[column(workouts, "utc_offset")])
        let sign = offsetText.hasPrefix("-") ? -1 : 1
        let offsetParts = offsetText.dropFirst().split(separator: ":").compactMap { Int($0) }
        let offset = sign * (offsetParts[0] * 3600 + offsetParts[1] * 60)
        let hms = first[time].dropFirst(11).prefix(8).split(separator: ":").compactMap { Int($0) }
        let local = ((hms[0] * 3600 + hms[1] * 60 + hms[2] + offset) % 86_400 + 86_400) % 86_400
        let clock = String(format: "%02d:%02d:%02d", local / 3600, local / 60 % 60, local % 60)
        #expect(tip.hasPrefix("\(clock) (0:00 in)"), "\(tip) for \(first)")
        if let value = Double(first[bpm]) { #expect(tip.contains(" · \(Int(value.rounded())) bpm"), "\(tip) for \(first)") }
        if let value = Double(first[elevation]) { #expect(tip.hasSuffix(" · \(Int(value.rounded())) m"), "\(tip) for \(first)") }
    }

    @Test(.enabled(if: BrowserRendering.isAvailable), arguments: [390, 1280])
    func itDrawsAtAPhonesAndADesktopsWidth(width: Int) throws {
        let image = try BrowserRendering.screenshot(htmlPath: Self.run.out + "/report.html", width: width, height: 1600)
        #expect(image.width == width)
        // Not blank: text, bars and lines in many colours, and none of it wider than the window.
        var colours = Set<String>()
        for y in stride(from: 0, to: image.height, by: 3) {
            for x in stride(from: 0, to: image.width, by: 3) { colours.insert(hexString(image.pixel(x: x, y: y))) }
        }
        #expect(colours.count > 30, "\(colours.count) colours")
    }

    @Test func noReportAndAPipelineWithoutItWriteNoPage() throws {
        let dir = Support.temporaryDirectory()
        let skipped = try Support.runCLI(["run", Self.run.zip, "--out", dir + "/skipped", "--no-report", "--no-svg", "--quiet"])
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/skipped/report.html"))
        #expect(FileManager.default.fileExists(atPath: dir + "/skipped/workouts.csv"))
        try FileManager.default.createDirectory(atPath: dir + "/exports", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.run.zip, toPath: dir + "/exports/export.zip")
        for (name, outputs, written) in [("without", "[csv]", false), ("with", "[csv, report]", true)] {
            try """
            version: 1
            kind: person
            input:
              path: exports
            output: \(name)
            outputs: \(outputs)
            """.write(toFile: dir + "/\(name).yaml", atomically: true, encoding: .utf8)
            let result = try Support.runCLI(["run", "--pipeline", dir + "/\(name).yaml", "--quiet"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(FileManager.default.fileExists(atPath: dir + "/\(name)/report.html") == written, "\(name)")
        }
    }
}
