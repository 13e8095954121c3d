import HealthTrailArchive

/// One figure's sum over one quarter hour of UTC time, waiting to be dated: which local day a
/// moment belongs to is known only once the person's time zones are (`TimeZoneTimeline`), and
/// every zone's midnight falls on a quarter hour.
package struct QuarterSum: BitwiseCopyable {
    /// What is summed: the `CumulativeKind`s by raw value, then the figures below.
    package static let heartRate: UInt8 = 6
    package static let restingHeartRate: UInt8 = 7
    package static let heartRateVariability: UInt8 = 8
    /// `sum` counts the hours stood, `count` the stand-hour records.
    package static let standHour: UInt8 = 9
    package static let figures = 10

    /// Quarter hours since 1970 (UTC).
    package var quarter: Int64
    package var sum: Double
    /// Samples (or de-duplicated shares) summed; at least 1 in a stored sum.
    package var count: UInt32
    /// The offset stamped on the last sample added: the fallback when no zone was seen.
    package var stampedOffset: Int16
    package var figure: UInt8
}

/// Sums per quarter hour, collected as samples come and read back in time order with
/// `drain`: sorted runs spilled to a file (`SortedRunFile`), so memory stays the same however
/// many years an export holds.
///
/// Each figure sums one quarter hour at a time and stores it when the next sample falls in
/// another: a type's records come mostly in time order, and de-duplicated shares always do, so
/// a quarter hour is usually stored once per figure.
package final class QuarterSums {
    private let sums: SortedRunFile<QuarterSum>
    /// The quarter hour each figure is summing (`count` 0: none yet). Boxed: updated once per
    /// heart-rate sample, where a class's array property would cost an exclusivity check.
    private let open = UncheckedBox<[QuarterSum]>(
        (0..<QuarterSum.figures).map { QuarterSum(quarter: 0, sum: 0, count: 0, stampedOffset: 0, figure: UInt8($0)) })

    /// - Parameter spillPath: where sorted runs go (nil: kept in memory).
    package init(spillPath: String?, runLength: Int = 1 << 16) {
        sums = SortedRunFile(path: spillPath, runLength: runLength) { $0.quarter < $1.quarter }
    }

    /// Adds `value` (and `count` samples) to `figure` in quarter hour `quarter`.
    @inline(__always)
    package func add(_ figure: UInt8, quarter: Int64, value: Double, count: UInt32 = 1, stampedOffset: Int16) {
        let i = Int(figure)
        if open.value[i].count > 0 {
            if open.value[i].quarter == quarter {
                open.value[i].sum += value
                open.value[i].count += count
                open.value[i].stampedOffset = stampedOffset
                return
            }
            sums.append(open.value[i])
        }
        open.value[i] = QuarterSum(quarter: quarter, sum: value, count: count, stampedOffset: stampedOffset, figure: figure)
    }

    /// Every sum in quarter-hour order (figures of one quarter hour in any order), then forgets them.
    /// - Throws: when the spilled sums cannot be read back (or could not be written).
    package func drain(_ body: (QuarterSum) throws -> Void) throws {
        for i in 0..<QuarterSum.figures where open.value[i].count > 0 {
            sums.append(open.value[i])
            open.value[i].count = 0
        }
        try sums.drain(body)
    }
}
