import HealthTrailBase

/// `report.html`: one self-contained page (inline style and script, SVG drawn here, no font,
/// tile or library from elsewhere) of a run's trends, workouts with their maps, best efforts,
/// sleep and ECG recordings. Its Content-Security-Policy lets no request leave the file.
///
/// Text is HTML-escaped (`&`, `<`, `>`, `"`, `'`), so a source named `Alex’s Apple Watch & <b>`
/// reads as written. Every figure is an SVG with a `<title>` and `role="img"`, every table has a
/// caption and header cells with a scope, and every control is a button or a link.
package enum ReportPage {
    /// The Content-Security-Policy of the page: nothing may be fetched, only the page's own
    /// style, script and `data:` images run or show.
    package static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

    /// The page's bytes.
    package static func render(_ content: ReportContent) -> [UInt8] {
        var h = SVGBytes(capacity: 1 << 20)
        h.literal("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        h.literal("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        h.literal("<meta http-equiv=\"Content-Security-Policy\" content=\""); h.text(contentSecurityPolicy); h.literal("\">\n")
        h.literal("<title>HealthTrail report</title>\n<style>\n")
        h.plain(ReportAssets.style)
        // The heart-rate ramp: a class per step for the maps' paths, one gradient for their legends.
        for step in 0..<ReportRoute.colourSteps {
            h.literal(".h"); h.int(step); h.literal("{stroke:"); h.plain(ReportRoute.colour(step: step)); h.literal("}")
        }
        h.literal("\n.ramp{display:inline-block;width:144px;height:10px;background:linear-gradient(to right")
        for step in 0..<ReportRoute.colourSteps { h.byte(0x2C); h.plain(ReportRoute.colour(step: step)) }
        h.literal(")}")
        h.literal("\n</style>\n</head>\n<body>\n<header>\n<h1>HealthTrail report</h1>\n<p>")
        if let first = content.days.first, let last = content.days.last {
            h.text("\(ReportFormat.date(day: first.day)) to \(ReportFormat.date(day: last.day)): ")
        }
        h.text(
            "\(content.days.count) days, \(content.workouts.count) workouts, \(content.nights.count) nights, "
                + "\(content.ecg.count) ECG recordings. This page holds raw health data: keep it private.")
        h.literal("</p>\n<nav aria-label=\"Sections\"><a href=\"#overview\">Overview</a> <a href=\"#workouts\">Workouts</a> ")
        h.literal("<a href=\"#efforts\">Best efforts</a> <a href=\"#sleep\">Sleep</a> <a href=\"#ecg\">ECG</a></nav>\n</header>\n<main>\n")
        overview(content, into: &h)
        workouts(content, into: &h)
        efforts(content, into: &h)
        sleep(content, into: &h)
        ecg(content, into: &h)
        h.literal("</main>\n<div id=\"tip\" role=\"status\" aria-live=\"polite\" hidden></div>\n<script>\n")
        h.plain(ReportAssets.script)
        h.literal("\n</script>\n</body>\n</html>\n")
        return h.bytes
    }

    // MARK: Overview

    /// A metric of the overview: its title, unit, values and how one is written.
    struct Metric: Sendable {
        var title: String
        var unit: String
        var value: @Sendable (ReportDay) -> Double?
        var format: @Sendable (Double) -> String
    }

    static let metrics: [Metric] = [
        Metric(title: "Steps per day", unit: "steps", value: { $0.steps }, format: { ReportFormat.value($0) }),
        Metric(
            title: "Walking and running distance per day", unit: "km", value: { $0.distanceMeters.map { $0 / 1000 } },
            format: { ReportFormat.value($0) }),
        Metric(title: "Active energy per day", unit: "kcal", value: { $0.activeKcal }, format: { ReportFormat.value($0) }),
        Metric(title: "Resting heart rate", unit: "bpm", value: { $0.restingHR }, format: { ReportFormat.value($0) }),
        Metric(title: "Heart rate variability (SDNN)", unit: "ms", value: { $0.hrvMS }, format: { ReportFormat.value($0) }),
        Metric(
            title: "Time asleep per night", unit: "h:mm", value: { $0.sleepMinutes }, format: { ReportFormat.hoursMinutes(minutes: $0) }),
        Metric(title: "VO2 max", unit: "mL/kg·min", value: { $0.vo2Max }, format: { ReportFormat.value($0) }),
    ]

    static func overview(_ content: ReportContent, into h: inout SVGBytes) {
        h.literal("<section id=\"overview\" aria-labelledby=\"overview-h\">\n<h2 id=\"overview-h\">Overview</h2>\n")
        h.literal(
            "<p class=\"note\">Bars: the mean of the days with a value in each week (Monday to Sunday) or month. Line: the rolling mean of the last 4 weeks or 3 months.</p>\n<div class=\"trends\">\n"
        )
        var drawn = 0
        for (index, metric) in metrics.enumerated() {
            let values = content.days.compactMap { d in metric.value(d).map { (day: d.day, value: $0) } }
            guard !values.isEmpty else { continue }
            drawn += 1
            h.literal("<figure class=\"trend\">\n<figcaption>"); h.text("\(metric.title) (\(metric.unit))"); h.literal("</figcaption>\n")
            trendChart(values, period: .week, window: 4, metric: metric, id: "t\(index)w", into: &h)
            trendChart(values, period: .month, window: 3, metric: metric, id: "t\(index)m", into: &h)
            h.literal("</figure>\n")
        }
        if drawn == 0 { h.literal("<p>No daily figures.</p>\n") }
        h.literal("</div>\n")
        let travel = content.days.filter { $0.timeZone.contains(";") }
        let zones = Set(content.days.flatMap { $0.timeZone.split(separator: ";").map(String.init) }).sorted()
        if !zones.isEmpty {
            h.literal("<p>Time zones: "); h.text(zones.joined(separator: ", ")); h.literal(".</p>\n")
        }
        if !travel.isEmpty {
            h.literal("<table class=\"small\">\n<caption>Travel days: the first and last time zone of the day</caption>\n")
            h.literal("<thead><tr><th scope=\"col\">Date</th><th scope=\"col\">Time zones</th></tr></thead>\n<tbody>\n")
            for d in travel {
                h.literal("<tr><td>"); h.text(ReportFormat.date(day: d.day)); h.literal("</td><td>")
                h.text(d.timeZone.split(separator: ";").joined(separator: " → ")); h.literal("</td></tr>\n")
            }
            h.literal("</tbody>\n</table>\n")
        }
        h.literal("</section>\n")
    }

    /// A trend chart: period means as bars, their rolling mean as a line.
    static func trendChart(
        _ values: [(day: Int64, value: Double)], period: TrendSeries.Period, window: Int, metric: Metric, id: String,
        into h: inout SVGBytes
    ) {
        let points = TrendSeries.means(values, by: period)
        let rolling = TrendSeries.rollingMean(points.map(\.mean), window: window)
        let word = period == .week ? "week" : "month"
        let (w, ht) = (320.0, 150.0)
        let (left, right, top, bottom) = (44.0, 312.0, 16.0, 128.0)
        let means = points.map(\.mean)
        var low = min(means.min()!, rolling.min()!), high = max(means.max()!, rolling.max()!)
        // Counts, distances and energies are bars from zero; heart rate, HRV, sleep and VO2 max
        // are dots on their own range, where a bar's length would mean nothing.
        let fromZero = metric.unit == "steps" || metric.unit == "km" || metric.unit == "kcal"
        if fromZero { low = 0 }
        if high - low < 1e-9 {
            if !fromZero { low -= 1 }
            high += 1
        }
        let pad = (high - low) * 0.05
        if !fromZero { low -= pad }
        high += pad
        func y(_ v: Double) -> Double { bottom - (v - low) / (high - low) * (bottom - top) }
        // Periods sit at their place in time, so a stretch without data shows as a gap.
        let slots = points.map { period.index(of: $0.start) - period.index(of: points[0].start) }
        let step = (right - left) / Double(slots.last! + 1)
        let latest = points.last!
        let label =
            "\(metric.title), mean per \(word): \(points.count) \(word)s from \(ReportFormat.date(day: points.first!.start)) "
            + "to \(ReportFormat.date(day: latest.start)); the latest \(metric.format(latest.mean)) \(metric.unit), "
            + "rolling mean \(metric.format(rolling.last!)) \(metric.unit)"
        h.literal("<svg class=\"chart\" viewBox=\"0 0 "); h.number(w); h.byte(0x20); h.number(ht)
        h.literal("\" role=\"img\" aria-labelledby=\""); h.plain(id); h.literal("\"><title id=\""); h.plain(id); h.literal("\">")
        h.text(label); h.literal("</title>\n")
        h.literal("<line class=\"axis\" x1=\"44\" x2=\"312\""); h.attribute("y1", bottom); h.attribute("y2", bottom); h.literal("/>\n")
        h.textElement(metric.format(high - pad), x: left - 4, y: top + 4, size: 10, anchor: "end", fill: "#555555")
        h.textElement(metric.format(fromZero ? 0 : low + pad), x: left - 4, y: bottom, size: 10, anchor: "end", fill: "#555555")
        h.textElement(period == .week ? "weekly" : "monthly", x: right, y: 10, size: 10, anchor: "end", fill: "#555555")
        h.textElement(ReportFormat.date(day: points.first!.start), x: left, y: ht - 6, size: 10, fill: "#555555")
        h.textElement(ReportFormat.date(day: latest.start), x: right, y: ht - 6, size: 10, anchor: "end", fill: "#555555")
        h.literal("<g class=\"bars\">")
        for (i, p) in points.enumerated() {
            let top = y(p.mean)
            if fromZero {
                h.literal("<rect"); h.attribute("x", left + Double(slots[i]) * step + step * 0.1, digits: 2); h.attribute("y", top)
                h.attribute("width", max(step * 0.8, 0.3), digits: 2); h.attribute("height", max(bottom - top, 0.5)); h.literal("/>")
            } else {
                h.literal("<circle r=\"2\""); h.attribute("cx", left + (Double(slots[i]) + 0.5) * step); h.attribute("cy", top); h.literal("/>")
            }
        }
        h.literal("</g>\n<polyline class=\"roll\" points=\"")
        for (i, v) in rolling.enumerated() {
            if i > 0 { h.byte(0x20) }
            h.number(left + (Double(slots[i]) + 0.5) * step, digits: 1); h.byte(0x2C); h.number(y(v), digits: 1)
        }
        h.literal("\"/>\n</svg>\n")
    }

    // MARK: Workouts

    static func workouts(_ content: ReportContent, into h: inout SVGBytes) {
        h.literal("<section id=\"workouts\" aria-labelledby=\"workouts-h\">\n<h2 id=\"workouts-h\">Workouts</h2>\n")
        guard !content.workouts.isEmpty else {
            h.literal("<p>No workouts.</p>\n</section>\n")
            return
        }
        h.literal("<div class=\"scroll\"><table class=\"sortable\" id=\"workout-table\">\n")
        h.literal("<caption>Every workout: sort by a column with its button; a date opens the workout below</caption>\n<thead><tr>")
        for (key, title) in [
            ("date", "Date"), ("activity", "Activity"), ("distance", "Distance (km)"), ("duration", "Duration"),
            ("pace", "Pace (/km)"), ("hr", "Heart rate (bpm)"),
        ] {
            h.literal("<th scope=\"col\""); if key == "date" { h.literal(" aria-sort=\"ascending\"") }
            h.literal("><button type=\"button\" data-key=\""); h.plain(key); h.literal("\">"); h.text(title); h.literal("</button></th>")
        }
        h.literal("<th scope=\"col\">Route</th></tr></thead>\n<tbody>\n")
        for w in content.workouts {
            let pace = pace(of: w)
            h.literal("<tr data-id=\""); h.text(w.id); h.literal("\"><td data-v=\""); h.int(Int(w.start)); h.literal("\"><a href=\"#w-")
            h.text(w.id); h.literal("\">"); h.text(ReportFormat.localDateTime(w.start, offsetMinutes: w.offsetMinutes)); h.literal("</a></td>")
            h.literal("<td>"); h.text(SVGFormat.activityTitle(w.activity)); h.literal("</td>")
            cell(w.distanceMeters.map { $0 / 1000 }, text: { SVGFormat.decimals($0, 2) }, into: &h)
            cell(w.duration, text: ReportFormat.duration, into: &h)
            cell(pace, text: ReportFormat.pace, into: &h)
            cell(w.avgHR, text: { SVGFormat.decimals($0, 0) }, into: &h)
            h.literal("<td>")
            if let route = content.routes[w.id] {
                h.literal("<svg class=\"thumb\" viewBox=\"0 0 60 40\" width=\"60\" height=\"40\" role=\"img\" aria-label=\"Route thumbnail\">")
                h.literal("<title>Route thumbnail</title><polyline points=\""); h.plain(route.thumbnail); h.literal("\"/></svg>")
            }
            h.literal("</td></tr>\n")
        }
        h.literal("</tbody>\n</table></div>\n")
        let effortsByWorkout = Dictionary(grouping: content.efforts.filter { $0.scope == "workout" }, by: \.workoutID)
        for w in content.workouts {
            workoutSection(w, route: content.routes[w.id], splits: content.splits[w.id] ?? [], efforts: effortsByWorkout[w.id] ?? [], into: &h)
        }
        h.literal("</section>\n")
    }

    /// The workout's pace: its route's, else its duration over its distance.
    static func pace(of w: ReportWorkout) -> Double? {
        if let p = w.paceSecondsPerKm { return p }
        guard let d = w.distanceMeters, d >= 100 else { return nil }
        return w.duration / (d / 1000)
    }

    /// A numeric table cell: its sort value in `data-v`, empty for none.
    static func cell(_ value: Double?, text: (Double) -> String, into h: inout SVGBytes) {
        guard let value, value.isFinite else {
            h.literal("<td data-v=\"\"></td>")
            return
        }
        h.literal("<td data-v=\""); h.number(value, digits: 3); h.literal("\">"); h.text(text(value)); h.literal("</td>")
    }

    static func workoutSection(_ w: ReportWorkout, route: ReportRoute?, splits: [ReportSplit], efforts: [ReportEffort], into h: inout SVGBytes) {
        let date = ReportFormat.localDateTime(w.start, offsetMinutes: w.offsetMinutes)
        let name = SVGFormat.activityTitle(w.activity)
        h.literal("<details class=\"workout\" id=\"w-"); h.text(w.id); h.literal("\"><summary>"); h.text("\(date) · \(name)")
        if let d = w.distanceMeters { h.text(" · \(SVGFormat.decimals(d / 1000, 2)) km") }
        h.text(" · \(ReportFormat.duration(w.duration))"); h.literal("</summary>\n<div class=\"wbody\">\n<dl class=\"facts\">")
        func fact(_ term: String, _ value: String?) {
            guard let value else { return }
            h.literal("<div><dt>"); h.text(term); h.literal("</dt><dd>"); h.text(value); h.literal("</dd></div>")
        }
        fact("Duration", ReportFormat.duration(w.duration))
        fact("Distance", w.distanceMeters.map { "\(SVGFormat.decimals($0 / 1000, 2)) km" })
        fact("Pace", pace(of: w).map { "\(ReportFormat.pace($0)) /km" })
        fact("Heart rate", w.avgHR.map { "\(SVGFormat.decimals($0, 0)) bpm average" + (w.maxHR.map { ", \(SVGFormat.decimals($0, 0)) max" } ?? "") })
        fact("Energy", w.energyKcal.map { "\(ReportFormat.grouped($0)) kcal" })
        fact("Elevation gain", w.elevationGainMeters.map { "\(SVGFormat.decimals($0, 0)) m" })
        fact("Source", w.source.isEmpty ? nil : w.source)
        h.literal("</dl>\n")
        if let route { map(route, workout: w, title: "\(name) on \(date)", into: &h) }
        if !splits.isEmpty {
            let unit = splits[0].unit
            h.literal("<table class=\"small\">\n<caption>Splits per "); h.text(unit == "mi" ? "mile" : "kilometre"); h.literal("</caption>\n")
            h.literal("<thead><tr><th scope=\"col\">Split</th><th scope=\"col\">Distance (km)</th><th scope=\"col\">Moving time</th>")
            h.literal(
                "<th scope=\"col\">Pace (/km)</th><th scope=\"col\">Heart rate (bpm)</th><th scope=\"col\">Climb (m)</th></tr></thead>\n<tbody>\n")
            for s in splits {
                h.literal("<tr><th scope=\"row\">"); h.int(s.number); h.literal("</th><td>"); h.text(SVGFormat.decimals(s.distanceMeters / 1000, 2))
                h.literal("</td><td>"); h.text(ReportFormat.duration(s.movingSeconds)); h.literal("</td><td>")
                h.text(s.paceSecondsPerKm.map(ReportFormat.pace) ?? ""); h.literal("</td><td>")
                h.text(s.avgHR.map { SVGFormat.decimals($0, 0) } ?? ""); h.literal("</td><td>")
                h.text(s.elevationGainMeters.map { SVGFormat.decimals($0, 0) } ?? ""); h.literal("</td></tr>\n")
            }
            h.literal("</tbody>\n</table>\n")
        }
        if !efforts.isEmpty {
            h.literal("<table class=\"small\">\n<caption>Best efforts of this workout</caption>\n")
            h.literal(
                "<thead><tr><th scope=\"col\">Distance</th><th scope=\"col\">Time</th><th scope=\"col\">Pace (/km)</th></tr></thead>\n<tbody>\n")
            for e in efforts {
                h.literal("<tr><th scope=\"row\">"); h.text(e.effort); h.literal("</th><td>"); h.text(ReportFormat.duration(e.elapsedSeconds))
                h.literal("</td><td>"); h.text(ReportFormat.pace(e.paceSecondsPerKm)); h.literal("</td></tr>\n")
            }
            h.literal("</tbody>\n</table>\n")
        }
        h.literal("</div>\n</details>\n")
    }

    /// A route's map: pan and zoom with the buttons, the keyboard (arrows, + and −), a drag or
    /// the wheel; hovering shows the nearest point's clock time where the workout was and the
    /// time since the route's start, its heart rate, pace and elevation. `data-t0` is the
    /// route's start as seconds after local midnight, by the workout's offset.
    static func map(_ route: ReportRoute, workout w: ReportWorkout, title: String, into h: inout SVGBytes) {
        let id = "m-" + w.id
        h.literal("<figure class=\"map\">\n<div class=\"mapctl\">")
        h.literal("<button type=\"button\" data-zoom=\"in\" aria-label=\"Zoom in\">+</button>")
        h.literal("<button type=\"button\" data-zoom=\"out\" aria-label=\"Zoom out\">−</button>")
        h.literal("<button type=\"button\" data-zoom=\"reset\">Whole route</button></div>\n")
        h.literal("<svg class=\"route\" tabindex=\"0\" viewBox=\"0 0 "); h.int(route.width); h.byte(0x20); h.int(route.height)
        h.literal("\" role=\"img\" aria-labelledby=\""); h.text(id)
        let localStart = route.startTime + Int64(w.offsetMinutes) * 60
        h.literal("\" data-t0=\""); h.int(Int(((localStart % 86_400) + 86_400) % 86_400))
        h.literal("\" data-p=\""); h.plain(route.hoverData)
        h.literal("\"><title id=\""); h.text(id); h.literal("\">"); h.text("Map of the route: \(title)")
        if let r = route.bpmRange {
            h.text(", coloured by heart rate from \(SVGFormat.decimals(r.lowerBound, 0)) to \(SVGFormat.decimals(r.upperBound, 0)) bpm")
        }
        h.literal("</title>\n<g>"); h.plain(route.mapPaths); h.literal("</g><circle class=\"mark\" r=\"5\" cx=\"-20\" cy=\"-20\"/></svg>\n")
        h.literal("<figcaption>")
        if let r = route.bpmRange {
            h.literal("<span>"); h.text(SVGFormat.decimals(r.lowerBound, 0)); h.literal(" bpm</span>")
            h.literal("<span class=\"ramp\" aria-hidden=\"true\"></span><span>"); h.text(SVGFormat.decimals(r.upperBound, 0))
            h.literal(" bpm</span>")
        } else {
            h.literal("<span>No heart rate on this route.</span>")
        }
        h.literal(" <span class=\"note\">Drag or use the arrow keys to pan; the wheel, + and − to zoom.</span></figcaption>\n</figure>\n")
    }

    // MARK: Best efforts

    static func efforts(_ content: ReportContent, into h: inout SVGBytes) {
        h.literal("<section id=\"efforts\" aria-labelledby=\"efforts-h\">\n<h2 id=\"efforts-h\">Best efforts</h2>\n")
        let ranked = content.efforts.filter { $0.scope != "workout" }
        guard !ranked.isEmpty else {
            h.literal("<p>No best efforts: they come from running and cycling workouts with a route.</p>\n</section>\n")
            return
        }
        let dates = Dictionary(content.workouts.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        h.literal(
            "<p class=\"note\">The fastest stretch of each distance, of all time and of each year: pace per kilometre (m:ss), then the time and the date.</p>\n"
        )
        var activities: [String] = []
        for e in ranked where !activities.contains(e.activity) { activities.append(e.activity) }
        for activity in activities {
            let rows = ranked.filter { $0.activity == activity }
            var names: [String] = []
            for e in rows where !names.contains(e.effort) { names.append(e.effort) }
            let years = Set(rows.compactMap(\.year)).sorted(by: >)
            h.literal("<div class=\"scroll\"><table class=\"small\">\n<caption>"); h.text(SVGFormat.activityTitle(activity))
            h.literal(": fastest by distance</caption>\n<thead><tr><th scope=\"col\">Distance</th><th scope=\"col\">All time</th>")
            for y in years { h.literal("<th scope=\"col\">"); h.int(y); h.literal("</th>") }
            h.literal("</tr></thead>\n<tbody>\n")
            for name in names {
                h.literal("<tr><th scope=\"row\">"); h.text(name); h.literal("</th>")
                let cells =
                    [rows.first { $0.effort == name && $0.scope == "all_time" }]
                    + years.map { y in rows.first { $0.effort == name && $0.scope == "year" && $0.year == y } }
                for e in cells {
                    h.literal("<td>")
                    if let e {
                        h.literal("<a href=\"#w-"); h.text(e.workoutID); h.literal("\">"); h.text(ReportFormat.pace(e.paceSecondsPerKm))
                        h.literal("</a><br><small>"); h.text(ReportFormat.duration(e.elapsedSeconds))
                        let date = dates[e.workoutID].map { $0.localDate } ?? Timestamp(utcSeconds: e.start).localDateString
                        h.text(" · " + date); h.literal("</small>")
                    }
                    h.literal("</td>")
                }
                h.literal("</tr>\n")
            }
            h.literal("</tbody>\n</table></div>\n")
        }
        h.literal("</section>\n")
    }

    // MARK: Sleep

    /// Mean minutes asleep and in bed of each weekday's nights, a night being dated (and so given
    /// the weekday of) the morning it ends. Monday first; nil for a weekday without nights.
    package static func weekdayAverages(_ nights: [ReportNight]) -> [(nights: Int, asleep: Double, inBed: Double)?] {
        var sums = [(n: Int, asleep: Double, inBed: Double)](repeating: (0, 0, 0), count: 7)
        for night in nights {
            let d = ReportFormat.weekday(day: night.day)
            sums[d].n += 1
            sums[d].asleep += night.asleepMinutes
            sums[d].inBed += night.inBedMinutes
        }
        return sums.map { $0.n == 0 ? nil : (nights: $0.n, asleep: $0.asleep / Double($0.n), inBed: $0.inBed / Double($0.n)) }
    }

    static func sleep(_ content: ReportContent, into h: inout SVGBytes) {
        h.literal("<section id=\"sleep\" aria-labelledby=\"sleep-h\">\n<h2 id=\"sleep-h\">Sleep</h2>\n")
        let nights = content.nights
        guard !nights.isEmpty else {
            h.literal("<p>No sleep nights.</p>\n</section>\n")
            return
        }
        let barWidth = max(4, min(24, (800 / Double(nights.count)).rounded(.down))), chartHeight = 160.0, top = 8.0, bottom = 140.0
        let maxMinutes = max(nights.map(\.inBedMinutes).max() ?? 60, 60)
        let hours = Int((maxMinutes / 60).rounded(.up))
        let width = 40 + Double(nights.count) * barWidth
        let scale = (bottom - top) / (Double(hours) * 60)
        h.literal("<div class=\"scroll sleepscroll\"><svg class=\"sleep\" viewBox=\"0 0 "); h.number(width); h.byte(0x20); h.number(chartHeight)
        h.literal("\" width=\""); h.number(width); h.literal("\" height=\""); h.number(chartHeight)
        h.literal("\" role=\"img\" aria-labelledby=\"sleep-t\"><title id=\"sleep-t\">")
        h.text(
            "Sleep stages of \(nights.count) nights from \(ReportFormat.date(day: nights.first!.day)) to "
                + "\(ReportFormat.date(day: nights.last!.day)), each night a bar of hours: deep, core, REM, awake in bed")
        h.literal("</title>\n")
        for hour in stride(from: 0, through: hours, by: 2) {
            let y = bottom - Double(hour) * 60 * scale
            h.literal("<line class=\"grid\" x1=\"36\""); h.attribute("x2", width); h.attribute("y1", y); h.attribute("y2", y); h.literal("/>")
            h.textElement("\(hour) h", x: 32, y: y + 4, size: 10, anchor: "end", fill: "#555555")
        }
        for (i, n) in nights.enumerated() {
            let x = 40 + Double(i) * barWidth
            var y = bottom
            // Written piece by piece: a night is a few small strings, never one built per night.
            h.literal("<g><title>"); h.text(ReportFormat.date(day: n.day)); h.literal(" (night ending that morning): asleep ")
            h.text(ReportFormat.hoursMinutes(minutes: n.asleepMinutes)); h.literal(", in bed ")
            h.text(ReportFormat.hoursMinutes(minutes: n.inBedMinutes))
            let staged: [(StaticString, StaticString, Double?)] = [
                ("s-deep", "deep", n.deepMinutes), ("s-core", "core", n.coreMinutes), ("s-rem", "REM", n.remMinutes),
            ]
            let hasStages = staged.contains { $0.2 != nil }
            var separator: StaticString = "; "
            for s in staged {
                guard let minutes = s.2 else { continue }
                h.literal(separator); h.literal(s.1); h.byte(0x20); h.text(ReportFormat.hoursMinutes(minutes: minutes))
                separator = ", "
            }
            h.literal("</title>")
            func bar(_ cls: StaticString, _ minutes: Double) {
                guard minutes > 0 else { return }
                let height = minutes * scale
                y -= height
                h.literal("<rect class=\""); h.literal(cls); h.literal("\""); h.attribute("x", x); h.attribute("y", y)
                h.attribute("width", barWidth - 1); h.attribute("height", height); h.literal("/>")
            }
            if hasStages {
                for s in staged { bar(s.0, s.2 ?? 0) }
                bar("s-asleep", max(0, n.asleepMinutes - staged.reduce(0) { $0 + ($1.2 ?? 0) }))
            } else {
                bar("s-asleep", n.asleepMinutes)
            }
            bar("s-awake", max(0, n.inBedMinutes - n.asleepMinutes))
            h.literal("</g>\n")
        }
        h.literal("</svg></div>\n<p class=\"legend\"><span class=\"key s-deep\"></span>Deep <span class=\"key s-core\"></span>Core ")
        h.literal("<span class=\"key s-rem\"></span>REM <span class=\"key s-asleep\"></span>Asleep, no stage recorded ")
        h.literal("<span class=\"key s-awake\"></span>Awake in bed</p>\n")
        h.literal("<table class=\"small\">\n<caption>Average by weekday. A night is dated by the morning it ends: ")
        h.literal("Monday is the night from Sunday to Monday.</caption>\n<thead><tr><th scope=\"col\">Night</th>")
        h.literal("<th scope=\"col\">Nights</th><th scope=\"col\">Asleep (h:mm)</th><th scope=\"col\">In bed (h:mm)</th></tr></thead>\n<tbody>\n")
        for (d, avg) in weekdayAverages(nights).enumerated() {
            let name = ReportFormat.weekdays[d], before = ReportFormat.weekdays[(d + 6) % 7]
            h.literal("<tr><th scope=\"row\">"); h.text("\(name) (\(before) to \(name))"); h.literal("</th><td>")
            if let avg {
                h.int(avg.nights); h.literal("</td><td>"); h.text(ReportFormat.hoursMinutes(minutes: avg.asleep)); h.literal("</td><td>")
                h.text(ReportFormat.hoursMinutes(minutes: avg.inBed))
            } else {
                h.literal("0</td><td></td><td>")
            }
            h.literal("</td></tr>\n")
        }
        h.literal("</tbody>\n</table>\n</section>\n")
    }

    // MARK: ECG

    static func ecg(_ content: ReportContent, into h: inout SVGBytes) {
        h.literal("<section id=\"ecg\" aria-labelledby=\"ecg-h\">\n<h2 id=\"ecg-h\">ECG</h2>\n")
        guard !content.ecg.isEmpty else {
            h.literal("<p>No ECG recordings.</p>\n</section>\n")
            return
        }
        h.literal("<table class=\"small\">\n<caption>Apple Watch ECG recordings and their classification</caption>\n<thead><tr>")
        h.literal("<th scope=\"col\">Recorded</th><th scope=\"col\">Classification</th><th scope=\"col\">Symptoms</th>")
        h.literal("<th scope=\"col\">Duration</th></tr></thead>\n<tbody>\n")
        for e in content.ecg {
            h.literal("<tr><td>"); h.text(ReportFormat.localDateTime(e.recorded, offsetMinutes: e.offsetMinutes)); h.literal("</td><td>")
            h.text(e.classification); h.literal("</td><td>"); h.text(e.symptoms.isEmpty ? "none" : e.symptoms); h.literal("</td><td>")
            h.text(e.durationSeconds.map(ReportFormat.duration) ?? ""); h.literal("</td></tr>\n")
        }
        h.literal("</tbody>\n</table>\n</section>\n")
    }
}
