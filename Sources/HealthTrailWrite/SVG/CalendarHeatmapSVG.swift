import HealthTrailBase

/// `svg/calendar-<metric>.svg`: a daily metric as a year-by-week calendar (the style of
/// GitHub's contribution graph).
///
/// One block per calendar year, top to bottom; in a block, columns are weeks starting on Monday
/// (ISO 8601 weeks: the first column is the week holding 1 January, which may be ISO week 52 or
/// 53 of the year before) and rows are weekdays, Monday at the top. Every day from the first to
/// the last date in `values` is one `<rect class="day">` with a `<title>` tooltip: filled on a
/// sequential scale (`options.colourScale`) over the days' 5th to 95th percentile
/// (`CalendarScale`: outlier days take the end colours and the legend counts them), a light grey
/// `class="day zero"` for a value of 0 (no part of the scale), or an empty grey outline
/// (`class="day missing"`) when the day has no value. Months the range touches are labelled
/// above their first week, except a month whose label would overlap the next one's (the few days
/// of a month the range starts at its end); weekdays are labelled at the left. The legend shows
/// the scale's ends with the unit, the outliers, a zero day and a missing day; a `<desc>` says
/// the same for screen readers.
///
/// As wide as the maps (`options.size`, 800 px by default): days are as large as the widest
/// year's weeks allow in that width (4…40 px, 2 px between days; at the default width, 11 px).
/// A width too narrow for 4 px days grows to fit them.
package enum CalendarHeatmapSVG {
    package static let left: Double = 44
    package static let titleBand: Double = 44
    package static let monthRow: Double = 18
    package static let blockGap: Double = 14
    package static let legendBand: Double = 70
    /// The fill of a day whose value is 0: lighter than every colour of both scales.
    package static let zeroFill = "#ebedf0"
    /// Room a month label needs before the next (three letters of 10 px type and a gap).
    package static let monthLabelWidth: Double = 22
    package static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    package static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// `values` are (`yyyy-MM-dd` local date, value) pairs in any order. Dates that do not parse
    /// and non-finite values are ignored; a date given twice takes its last value.
    ///
    /// `title` heads the calendar ("Steps per day"), followed by the span of the dates; nil
    /// makes one from the metric and unit ("steps per day (count)"). Values are written in
    /// `format`, followed by `unit` unless it is empty.
    package static func render(
        metric: String, unit: String, values: [(date: String, value: Double)],
        options: SVGOptions = SVGOptions(), title: String? = nil, format: CalendarValueFormat = .number
    ) -> [UInt8] {
        var byDay: [Int64: Double] = [:]
        for (date, value) in values {
            guard value.isFinite, let day = parseDay(date) else { continue }
            byDay[day] = value
        }
        let heading = title ?? defaultTitle(metric: metric, unit: unit)
        let scale = options.colourScale
        func valueText(_ v: Double) -> String { format.text(v) + (unit.isEmpty ? "" : " " + unit) }

        guard let first = byDay.keys.min(), let last = byDay.keys.max() else {
            var out = SVGBytes()
            out.open(width: max(options.size, 100), height: Int(titleBand + 60))
            let title = titleText(heading, range: nil)
            out.literal("<title>"); out.text(title); out.literal("</title>\n")
            out.literal("<desc>No data.</desc>\n")
            out.literal("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n")
            out.textElement(title, x: 16, y: 28, size: 16, weight: "bold", cls: "title")
            out.textElement("No data", x: 16, y: titleBand + 30, size: 13, fill: "#666666", cls: "note")
            out.close()
            return out.bytes
        }
        // The extremes, earliest day first on ties, for the legend's outliers.
        var lowest: (day: Int64, value: Double)?, highest: (day: Int64, value: Double)?
        var scaled: [Double] = []
        var zeroDays = 0
        for (day, v) in byDay {
            guard v != 0 else { zeroDays += 1; continue }
            scaled.append(v)
            if lowest.map({ v < $0.value || (v == $0.value && day < $0.day) }) ?? true { lowest = (day, v) }
            if highest.map({ v > $0.value || (v == $0.value && day < $0.day) }) ?? true { highest = (day, v) }
        }
        let range = CalendarScale(values: scaled)

        let firstYear = Timestamp.civilFromDays(first).year
        let lastYear = Timestamp.civilFromDays(last).year
        var columns = 0
        for y in firstYear...lastYear { columns = max(columns, weeks(inYear: y)) }
        let pitch = Self.pitch(width: options.size, columns: columns)
        let cell = pitch - 2
        let blockHeight = monthRow + 7 * pitch + blockGap
        let blocksTop = titleBand
        let legendTop = blocksTop + Double(lastYear - firstYear + 1) * blockHeight
        let width = max(options.size, Int(left + Double(columns) * pitch + 16))
        let height = Int(legendTop + legendBand)

        var out = SVGBytes(capacity: 8192 + Int(last - first + 1) * 120)
        out.open(width: width, height: height)
        let title = titleText(heading, range: (first, last))
        out.literal("<title>"); out.text(title); out.literal("</title>\n")
        out.literal("<desc>")
        out.text(
            description(
                days: Int(last - first + 1), withValue: byDay.count, zeroDays: zeroDays, range: range,
                scaleName: scale.rawValue, valueText: valueText))
        out.literal("</desc>\n")
        out.literal("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n")
        out.textElement(title, x: 16, y: 28, size: 16, weight: "bold", cls: "title")

        for year in firstYear...lastYear {
            let top = blocksTop + Double(year - firstYear) * blockHeight
            let monday = firstMonday(ofYear: year)
            out.literal("<g class=\"year\">\n")
            out.textElement("\(year)", x: 4, y: top + 12, size: 12, weight: "bold", cls: "year-label")
            for (name, x) in monthLabels(year: year, first: first, last: last, pitch: pitch) {
                out.textElement(name, x: x, y: top + 12, size: 10, fill: "#555555", cls: "month")
            }
            for (row, name) in weekdayNames.enumerated() {
                out.textElement(
                    name, x: left - 6, y: top + monthRow + Double(row) * pitch + cell - 2,
                    size: min(10, cell - 1), anchor: "end", fill: "#555555", cls: "weekday")
            }
            let from = max(first, Timestamp.daysFromCivil(year: year, month: 1, day: 1))
            let to = min(last, Timestamp.daysFromCivil(year: year, month: 12, day: 31))
            if from <= to {
                for day in from...to {
                    let x = left + Double((day - monday) / 7) * pitch
                    let y = top + monthRow + Double(weekday(day)) * pitch
                    if let v = byDay[day] {
                        if v == 0 {
                            out.literal("<rect class=\"day zero\"")
                        } else {
                            out.literal("<rect class=\"day\"")
                        }
                        out.attribute("x", x); out.attribute("y", y)
                        out.attribute("width", cell); out.attribute("height", cell)
                        out.literal(" rx=\"2\" fill=\"")
                        out.plain(v == 0 ? zeroFill : SVGFormat.hex(scale.rgb(at: range.position(of: v))))
                        out.literal("\"><title>"); out.plain(dateText(day)); out.literal(": ")
                        out.text(valueText(v))
                        out.literal("</title></rect>\n")
                    } else {
                        out.literal("<rect class=\"day missing\""); out.attribute("x", x + 0.5); out.attribute("y", y + 0.5)
                        out.attribute("width", cell - 1); out.attribute("height", cell - 1)
                        out.literal(" rx=\"2\" fill=\"none\" stroke=\"#c8c8c8\"><title>"); out.plain(dateText(day))
                        out.literal(": no data</title></rect>\n")
                    }
                }
            }
            out.literal("</g>\n")
        }

        // Legend, first row: the low end, five steps of the scale, the high end (with the unit;
        // "≤"/"≥" when outliers share the end colours), a zero day if any, a missing day.
        let y = legendTop + 8
        let baseline = y + cell - 2
        out.literal("<g class=\"legend\">\n")
        let minLabel = (range.daysBelow > 0 ? "≤ " : "") + format.text(range.low)
        out.textElement(minLabel, x: 16, y: baseline, size: 11, cls: "legend-min")
        var x = 16 + textWidth(minLabel) + 6
        for i in 0..<5 {
            out.literal("<rect class=\"legend-step\""); out.attribute("x", x + Double(i) * pitch)
            out.attribute("y", y); out.attribute("width", cell); out.attribute("height", cell)
            out.literal(" rx=\"2\" fill=\""); out.plain(SVGFormat.hex(scale.rgb(at: Double(i) / 4))); out.literal("\"/>\n")
        }
        x += 5 * pitch + 4
        let maxLabel = (range.daysAbove > 0 ? "≥ " : "") + valueText(range.high)
        out.textElement(maxLabel, x: x, y: baseline, size: 11, cls: "legend-max")
        x += textWidth(maxLabel) + 24
        if zeroDays > 0 {
            out.literal("<rect class=\"legend-zero\""); out.attribute("x", x); out.attribute("y", y)
            out.attribute("width", cell); out.attribute("height", cell)
            out.literal(" rx=\"2\" fill=\""); out.plain(zeroFill); out.literal("\"/>\n")
            let zeroLabel = valueText(0)
            out.textElement(zeroLabel, x: x + pitch + 2, y: baseline, size: 11, cls: "legend-note")
            x += pitch + 2 + textWidth(zeroLabel) + 24
        }
        out.literal("<rect class=\"legend-missing\""); out.attribute("x", x + 0.5); out.attribute("y", y + 0.5)
        out.attribute("width", cell - 1); out.attribute("height", cell - 1)
        out.literal(" rx=\"2\" fill=\"none\" stroke=\"#c8c8c8\"/>\n")
        out.textElement("no data", x: x + pitch + 2, y: baseline, size: 11, cls: "legend-note")
        // Second row: the outliers, named; third: what the colours span.
        var outliers: [String] = []
        if range.daysAbove > 0, let (day, v) = highest {
            outliers.append(
                daysText(range.daysAbove) + " above " + format.text(range.high) + " (highest " + valueText(v) + ", "
                    + dateText(day) + ")")
        }
        if range.daysBelow > 0, let (day, v) = lowest {
            outliers.append(
                daysText(range.daysBelow) + " below " + format.text(range.low) + " (lowest " + valueText(v) + ", "
                    + dateText(day) + ")")
        }
        if !outliers.isEmpty {
            out.textElement(
                "Outliers in the end colours: " + outliers.joined(separator: "; "), x: 16, y: y + cell + 18, size: 10,
                fill: "#333333", cls: "legend-outliers")
        }
        let note =
            range.isPercentileRange
            ? "colours span the 5th to 95th percentile of the days, " + scale.rawValue
            : "linear scale from the lowest to the highest day, " + scale.rawValue
        out.textElement(note, x: 16, y: y + cell + 34, size: 10, fill: "#777777", cls: "legend-note")
        out.literal("</g>\n")
        out.close()
        return out.bytes
    }

    /// Month labels of `year`'s block for the days `first`…`last`: each month the range touches,
    /// at the x of the week of its first day in the range. A label that would not leave
    /// `monthLabelWidth` before the next is left out (only the month the range starts in can be
    /// that close: whole months are at least four weeks wide).
    package static func monthLabels(year: Int, first: Int64, last: Int64, pitch: Double) -> [(name: String, x: Double)] {
        let monday = firstMonday(ofYear: year)
        var labels: [(name: String, x: Double)] = []
        for m in 1...12 {
            let start = Timestamp.daysFromCivil(year: year, month: m, day: 1)
            let end = start + Int64(Timestamp.daysIn(month: m, year: year)) - 1
            guard end >= first, start <= last else { continue }
            let x = left + Double((max(start, first) - monday) / 7) * pitch
            if let previous = labels.last, x - previous.x < monthLabelWidth { labels.removeLast() }
            labels.append((monthNames[m - 1], x))
        }
        return labels
    }

    /// The `<desc>` of a calendar: its days, the colour range and the outliers, in words.
    static func description(
        days: Int, withValue: Int, zeroDays: Int, range: CalendarScale, scaleName: String,
        valueText: (Double) -> String
    ) -> String {
        var text = "A calendar of \(daysText(days)), one square a day, weeks as columns from Monday to Sunday: "
        text += "\(daysText(withValue)) with a value, \(daysText(days - withValue)) without"
        if zeroDays > 0 { text += ", \(daysText(zeroDays)) of 0 in light grey" }
        text += ". Colours (\(scaleName), dark to light) span " + valueText(range.low) + " to " + valueText(range.high)
        text += range.isPercentileRange ? " (the 5th to 95th percentile of the days)" : ""
        if range.daysBelow > 0 || range.daysAbove > 0 {
            text += "; \(daysText(range.daysBelow)) below and \(daysText(range.daysAbove)) above take the end colours"
        }
        return text + "."
    }

    /// `1 day`, `3 days`.
    static func daysText(_ n: Int) -> String { n == 1 ? "1 day" : "\(n) days" }

    /// A generous width of `text` in the legend's 11 px type, for placing what follows it.
    static func textWidth(_ text: String) -> Double { Double(text.count) * 6.5 }

    /// Distance between the days' left edges: the widest year's `columns` weeks in `width`
    /// beside the weekday labels, whole pixels, a day of 4…40 px.
    package static func pitch(width: Int, columns: Int) -> Double {
        let fitting = ((Double(width) - left - 16) / Double(max(1, columns))).rounded(.down)
        return min(42, max(6, fitting))
    }

    /// `steps per day (count)`: the title of a calendar given none.
    package static func defaultTitle(metric: String, unit: String) -> String {
        metric + " per day" + (unit.isEmpty ? "" : " (" + unit + ")")
    }

    /// `Steps per day · 2023-01-01 – 2024-03-05`.
    package static func titleText(_ heading: String, range: (Int64, Int64)?) -> String {
        guard let (a, b) = range else { return heading }
        return heading + " · " + dateText(a) + " – " + dateText(b)
    }

    /// Days since 1970-01-01 of a strict `yyyy-MM-dd` calendar date.
    package static func parseDay(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count == 10, b[4] == 0x2D, b[7] == 0x2D else { return nil }
        func digits(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r { guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }; v = v * 10 + Int(b[i] - 0x30) }
            return v
        }
        guard let y = digits(0..<4), let m = digits(5..<7), let d = digits(8..<10),
            (1...12).contains(m), (1...Timestamp.daysIn(month: m, year: y)).contains(d)
        else { return nil }
        return Timestamp.daysFromCivil(year: y, month: m, day: d)
    }

    /// `2024-01-15`: the local date of days since 1970-01-01.
    package static func dateText(_ day: Int64) -> String {
        Timestamp(utcSeconds: day * 86_400).localDateString
    }

    /// 0 for Monday … 6 for Sunday (1970-01-01 was a Thursday).
    package static func weekday(_ day: Int64) -> Int {
        Int(((day + 3) % 7 + 7) % 7)
    }

    /// The Monday on or before 1 January of `year`: the first column of its block.
    package static func firstMonday(ofYear year: Int) -> Int64 {
        let jan1 = Timestamp.daysFromCivil(year: year, month: 1, day: 1)
        return jan1 - Int64(weekday(jan1))
    }

    /// Columns of a year's block: 53 or 54.
    package static func weeks(inYear year: Int) -> Int {
        Int((Timestamp.daysFromCivil(year: year, month: 12, day: 31) - firstMonday(ofYear: year)) / 7) + 1
    }
}
