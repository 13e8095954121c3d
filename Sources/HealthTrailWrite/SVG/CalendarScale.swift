/// The values a calendar's colours span: the 5th to the 95th percentile of its days, so one
/// outlier day cannot paint every other day the same colour.
///
/// The percentiles interpolate linearly between the sorted values (numpy's default): the value
/// at rank `p × (n − 1)`. Days below the range take the first colour of the scale and days above
/// it the last; the legend counts them as outliers. With fewer than
/// `minimumDaysForPercentiles` days the ends of a percentile range are just the few lowest and
/// highest days, so the scale spans the lowest to the highest day and nothing is an outlier.
package struct CalendarScale: Sendable, Equatable {
    /// The lower end of the range, as a fraction of the days (the 5th percentile).
    package static let lowerPercentile = 0.05
    /// The upper end of the range, as a fraction of the days (the 95th percentile).
    package static let upperPercentile = 0.95
    /// Days a calendar needs for its colours to span percentiles rather than the extremes.
    package static let minimumDaysForPercentiles = 20

    /// The value drawn in the scale's first colour (and every value below it).
    package var low: Double
    /// The value drawn in the scale's last colour (and every value above it).
    package var high: Double
    /// True when `low` and `high` are the percentiles, false when they are the extremes.
    package var isPercentileRange: Bool
    /// Days whose value is below `low`.
    package var daysBelow: Int
    /// Days whose value is above `high`.
    package var daysAbove: Int

    /// The scale of `values` (finite, any order). No values: the range 0…0.
    package init(values: [Double]) {
        let sorted = values.sorted()
        guard let lowest = sorted.first, let highest = sorted.last else {
            self.init(low: 0, high: 0, isPercentileRange: false, daysBelow: 0, daysAbove: 0)
            return
        }
        guard sorted.count >= Self.minimumDaysForPercentiles else {
            self.init(low: lowest, high: highest, isPercentileRange: false, daysBelow: 0, daysAbove: 0)
            return
        }
        let low = Self.percentile(sorted, Self.lowerPercentile)
        let high = Self.percentile(sorted, Self.upperPercentile)
        self.init(
            low: low, high: high, isPercentileRange: true,
            daysBelow: sorted.prefix { $0 < low }.count, daysAbove: sorted.reversed().prefix { $0 > high }.count)
    }

    /// A scale from its parts.
    package init(low: Double, high: Double, isPercentileRange: Bool, daysBelow: Int, daysAbove: Int) {
        self.low = low
        self.high = high
        self.isPercentileRange = isPercentileRange
        self.daysBelow = daysBelow
        self.daysAbove = daysAbove
    }

    /// Where `value` falls on the colour scale: 0 at `low` and below, 1 at `high` and above; 1
    /// for every value when the range is a single value.
    package func position(of value: Double) -> Double {
        guard high > low else { return 1 }
        return min(1, max(0, (value - low) / (high - low)))
    }

    /// The value at fraction `p` of `sorted` (ascending, not empty), interpolated linearly
    /// between the neighbouring ranks.
    package static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        let rank = p * Double(sorted.count - 1)
        let below = Int(rank.rounded(.down))
        let above = min(below + 1, sorted.count - 1)
        return sorted[below] + (sorted[above] - sorted[below]) * (rank - Double(below))
    }
}

/// How a calendar writes its values in tooltips and the legend.
package enum CalendarValueFormat: Sendable {
    /// A plain number (`SVGFormat.label`: `8432`, `61.5`), followed by the unit.
    case number
    /// Minutes as hours and minutes, `h:mm` (`452` → `7:32`), rounded to the minute.
    case hoursMinutes
    /// Seconds per kilometre as a pace, `m:ss /km` (`307` → `5:07 /km`), rounded to the second.
    case pacePerKilometre

    /// `value` written in this format (without the calendar's unit).
    package func text(_ value: Double) -> String {
        switch self {
        case .number:
            return SVGFormat.label(value)
        case .hoursMinutes:
            let minutes = value.isFinite ? Int(abs(value).rounded()) : 0
            return (value < 0 && minutes != 0 ? "-" : "") + "\(minutes / 60):" + SVGFormat.pad2(minutes % 60)
        case .pacePerKilometre:
            return SVGFormat.minutesSeconds(value) + " /km"
        }
    }
}
