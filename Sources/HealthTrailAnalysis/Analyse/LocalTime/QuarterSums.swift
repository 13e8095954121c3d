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
    /// Set in a stored `figure` (`QuarterSums.add(_:quarters:…)`): the entry is an equal share,
    /// `sum`, in each of `count` quarter hours from `quarter` on.
    package static let stretch: UInt8 = 0x80

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
/// a quarter hour is usually stored once per figure. A sample's equal shares in a stretch of
/// whole quarter hours are stored as one entry, and handed out quarter hour by quarter hour
/// only as `drain` reads them back: what a sample costs on disk does not grow with its length.
package final class QuarterSums {
    private let sums: SortedRunFile<QuarterSum>
    /// The quarter hour each figure is summing (`count` 0: none yet). Boxed: updated once per
    /// heart-rate sample, where a class's array property would cost an exclusivity check.
    private let open = UncheckedBox<[QuarterSum]>(
        (0..<QuarterSum.figures).map { QuarterSum(quarter: 0, sum: 0, count: 0, stampedOffset: 0, figure: UInt8($0)) })

    /// Sums stored so far (a stretch is one, however many quarter hours it covers), not
    /// counting the quarter hour each figure is summing.
    package var storedSums: Int { sums.count }

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

    /// Adds `valuePerQuarter` to `figure` in each of the `quarters` quarter hours from
    /// `firstQuarter` on: one stored entry, however many quarter hours.
    package func add(_ figure: UInt8, quarters: Int64, from firstQuarter: Int64, valuePerQuarter: Double, stampedOffset: Int16) {
        guard quarters > 0 else { return }
        if quarters == 1 {
            add(figure, quarter: firstQuarter, value: valuePerQuarter, stampedOffset: stampedOffset)
            return
        }
        sums.append(
            QuarterSum(
                quarter: firstQuarter, sum: valuePerQuarter, count: UInt32(clamping: quarters), stampedOffset: stampedOffset,
                figure: figure | QuarterSum.stretch))
    }

    /// Every sum in quarter-hour order (figures of one quarter hour in any order), then forgets
    /// them. A stretch's shares come as one sum per quarter hour and figure, with the stretches
    /// that cover it added together (`count`: how many).
    /// - Parameter byStampedOffset: keep the shares of stretches stamped with different offsets
    ///   apart (each sum carries its own): for dating at the stamped offset, when no zone was seen.
    /// - Throws: when the spilled sums cannot be read back (or could not be written).
    package func drain(byStampedOffset: Bool, _ body: (QuarterSum) throws -> Void) throws {
        for i in 0..<QuarterSum.figures where open.value[i].count > 0 {
            sums.append(open.value[i])
            open.value[i].count = 0
        }
        var stretches = OpenStretches(byStampedOffset: byStampedOffset)
        try sums.drain { q in
            // Every quarter hour before this entry's is complete: no later entry starts in one.
            try stretches.handOut(before: q.quarter, body)
            if q.figure & QuarterSum.stretch != 0 {
                stretches.open(q)
            } else {
                try body(q)
            }
        }
        try stretches.handOut(before: Int64.max, body)
    }
}

/// The stretches `QuarterSums.drain` has met that still cover quarter hours to come, summed per
/// figure (and stamped offset): each quarter hour costs one sum per figure, however many
/// stretches cover it.
private struct OpenStretches {
    /// The stretches covering the quarter hours from `next` on, summed per key.
    private struct Group {
        var figure: UInt8
        var stampedOffset: Int16
        /// The sum of the open stretches' shares, with the rounding error of adding and taking
        /// them away (Neumaier): a share comes back as it went in once the others are gone.
        var sum = 0.0
        var compensation = 0.0
        var stretches: UInt32 = 0

        mutating func add(_ x: Double) {
            let t = sum + x
            compensation += abs(sum) >= abs(x) ? (sum - t) + x : (x - t) + sum
            sum = t
        }
    }

    let byStampedOffset: Bool
    private var groups: [Group] = []
    /// Open stretches by the quarter hour after their last: a binary min-heap.
    private var ends: [(end: Int64, figure: UInt8, stampedOffset: Int16, share: Double)] = []
    /// The first quarter hour not yet handed out.
    private var next = Int64.min

    init(byStampedOffset: Bool) { self.byStampedOffset = byStampedOffset }

    private func groupIndex(_ figure: UInt8, _ stampedOffset: Int16) -> Int? {
        groups.firstIndex { $0.figure == figure && (!byStampedOffset || $0.stampedOffset == stampedOffset) }
    }

    /// A stretch starting at its quarter hour (none before it is left to hand out).
    mutating func open(_ q: QuarterSum) {
        let figure = q.figure & ~QuarterSum.stretch
        let i =
            groupIndex(figure, q.stampedOffset)
            ?? {
                groups.append(Group(figure: figure, stampedOffset: q.stampedOffset))
                return groups.count - 1
            }()
        groups[i].add(q.sum)
        groups[i].stretches += 1
        // `handOut(before: q.quarter)` came first: `next` is there, or earlier with none open.
        next = max(next, q.quarter)
        // The stretch's quarter hours, as stored: `count` ≥ 2, so `end` > `quarter`.
        ends.append((q.quarter + Int64(q.count), figure, q.stampedOffset, q.sum))
        var child = ends.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard ends[child].end < ends[parent].end else { break }
            ends.swapAt(child, parent)
            child = parent
        }
    }

    /// Hands out one sum per open group for each quarter hour before `limit`.
    mutating func handOut(before limit: Int64, _ body: (QuarterSum) throws -> Void) throws {
        while let first = ends.first {
            // Quarter hours up to the first stretch's end keep the same groups.
            let stop = min(limit, first.end)
            while next < stop {
                for g in groups {
                    try body(
                        QuarterSum(
                            quarter: next, sum: g.sum + g.compensation, count: g.stretches, stampedOffset: g.stampedOffset,
                            figure: g.figure))
                }
                next += 1
            }
            if first.end > limit { return }
            close(first)
            removeFirstEnd()
        }
    }

    private mutating func close(_ stretch: (end: Int64, figure: UInt8, stampedOffset: Int16, share: Double)) {
        guard let i = groupIndex(stretch.figure, stretch.stampedOffset) else { return }
        groups[i].stretches -= 1
        if groups[i].stretches == 0 {
            // Exactly nothing once no stretch covers the quarter hours: no rounding left behind.
            groups.remove(at: i)
        } else {
            groups[i].add(-stretch.share)
        }
    }

    private mutating func removeFirstEnd() {
        let last = ends.removeLast()
        guard !ends.isEmpty else { return }
        ends[0] = last
        var parent = 0
        while true {
            let l = 2 * parent + 1, r = l + 1
            var m = parent
            if l < ends.count && ends[l].end < ends[m].end { m = l }
            if r < ends.count && ends[r].end < ends[m].end { m = r }
            if m == parent { return }
            ends.swapAt(parent, m)
            parent = m
        }
    }
}
