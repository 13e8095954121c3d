import HealthTrailBase

/// `svg/calendar-<metric>.svg`: a daily metric as a year-by-week calendar (the style of
/// GitHub's contribution graph).
///
/// One block per calendar year, top to bottom; in a block, columns are weeks starting on Monday
/// (ISO 8601 weeks: the first column is the week holding 1 January, which may be ISO week 52 or
/// 53 of the year before) and rows are weekdays, Monday at the top. Every day from the first to
/// the last date in `values` is one `<rect class="day">`: filled on a sequential scale
/// (`options.colourScale`, linear from the smallest value to the largest) with a `<title>`
/// tooltip, or an empty grey outline (`class="day missing"`) when the day has no value. Months
/// the range touches are labelled above their first week, weekdays at the left; the legend shows
/// the scale from min to max with the unit, and the outline of a missing day.
///
/// As wide as the maps (`options.size`, 800 px by default): days are as large as the widest
/// year's weeks allow in that width (4…40 px, 2 px between days; at the default width, 11 px).
/// A width too narrow for 4 px days grows to fit them.
package enum CalendarHeatmapSVG {
    package static let left: Double = 44
    package static let titleBand: Double = 44
    package static let monthRow: Double = 18
    package static let blockGap: Double = 14
    package static let legendBand: Double = 56
    package static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    package static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// `values` are (`yyyy-MM-dd` local date, value) pairs in any order. Dates that do not parse
    /// and non-finite values are ignored; a date given twice takes its last value.
    ///
    /// `title` heads the calendar ("Steps per day"), followed by the span of the dates; nil
    /// makes one from the metric and unit ("steps per day (count)").
    package static func render(
        metric: String, unit: String, values: [(date: String, value: Double)],
        options: SVGOptions = SVGOptions(), title: String? = nil
    ) -> [UInt8] {
        var byDay: [Int64: Double] = [:]
        for (date, value) in values {
            guard value.isFinite, let day = parseDay(date) else { continue }
            byDay[day] = value
        }
        let heading = title ?? defaultTitle(metric: metric, unit: unit)
        let scale = options.colourScale

        guard let first = byDay.keys.min(), let last = byDay.keys.max() else {
            var out = SVGBytes()
            out.open(width: max(options.size, 100), height: Int(titleBand + 60))
            let title = titleText(heading, range: nil)
            out.literal("<title>"); out.text(title); out.literal("</title>\n")
            out.literal("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n")
            out.textElement(title, x: 16, y: 28, size: 16, weight: "bold", cls: "title")
            out.textElement("No data", x: 16, y: titleBand + 30, size: 13, fill: "#666666", cls: "note")
            out.close()
            return out.bytes
        }
        var low = Double.infinity, high = -Double.infinity
        for v in byDay.values { low = min(low, v); high = max(high, v) }

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
        out.literal("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n")
        out.textElement(title, x: 16, y: 28, size: 16, weight: "bold", cls: "title")

        for year in firstYear...lastYear {
            let top = blocksTop + Double(year - firstYear) * blockHeight
            let monday = firstMonday(ofYear: year)
            out.literal("<g class=\"year\">\n")
            out.textElement("\(year)", x: 4, y: top + 12, size: 12, weight: "bold", cls: "year-label")
            // Months the range touches, above the week of their first day in the range.
            for m in 1...12 {
                let start = Timestamp.daysFromCivil(year: year, month: m, day: 1)
                let end = start + Int64(Timestamp.daysIn(month: m, year: year)) - 1
                guard end >= first, start <= last else { continue }
                let column = (max(start, first) - monday) / 7
                out.textElement(
                    monthNames[m - 1], x: left + Double(column) * pitch, y: top + 12, size: 10,
                    fill: "#555555", cls: "month")
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
                        let t = high > low ? (v - low) / (high - low) : 1
                        out.literal("<rect class=\"day\""); out.attribute("x", x); out.attribute("y", y)
                        out.attribute("width", cell); out.attribute("height", cell)
                        out.literal(" rx=\"2\" fill=\""); out.plain(SVGFormat.hex(scale.rgb(at: t)))
                        out.literal("\"><title>"); out.plain(dateText(day)); out.literal(": ")
                        out.text(SVGFormat.label(v)); if !unit.isEmpty { out.byte(0x20); out.text(unit) }
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

        // Legend: min, five steps of the scale, max (with the unit); then a missing day.
        let y = legendTop + 8
        out.literal("<g class=\"legend\">\n")
        out.textElement(SVGFormat.label(low), x: left - 6, y: y + cell - 2, size: 11, anchor: "end", cls: "legend-min")
        for i in 0..<5 {
            out.literal("<rect class=\"legend-step\""); out.attribute("x", left + Double(i) * pitch)
            out.attribute("y", y); out.attribute("width", cell); out.attribute("height", cell)
            out.literal(" rx=\"2\" fill=\""); out.plain(SVGFormat.hex(scale.rgb(at: Double(i) / 4))); out.literal("\"/>\n")
        }
        let maxLabel = SVGFormat.label(high) + (unit.isEmpty ? "" : " " + unit)
        out.textElement(maxLabel, x: left + 5 * pitch + 4, y: y + cell - 2, size: 11, cls: "legend-max")
        let missingX = left + 5 * pitch + 4 + Double(maxLabel.count) * 7 + 24
        out.literal("<rect class=\"legend-missing\""); out.attribute("x", missingX + 0.5); out.attribute("y", y + 0.5)
        out.attribute("width", cell - 1); out.attribute("height", cell - 1)
        out.literal(" rx=\"2\" fill=\"none\" stroke=\"#c8c8c8\"/>\n")
        out.textElement("no data", x: missingX + pitch + 2, y: y + cell - 2, size: 11, cls: "legend-note")
        out.textElement(
            "linear scale from the lowest to the highest day, " + scale.rawValue, x: left, y: y + cell + 22,
            size: 10, fill: "#777777", cls: "legend-note")
        out.literal("</g>\n")
        out.close()
        return out.bytes
    }

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
