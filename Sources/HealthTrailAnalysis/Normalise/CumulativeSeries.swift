import HealthTrailDecode

/// One sample of a cumulative quantity in 20 bytes: a type's samples are held until its group
/// of records ends, and one type can have millions (active energy, once a minute for years).
/// Seconds take 40 bits, the low 32 and a byte above them that sits in what would otherwise be
/// padding: every date the decoders accept (years 1900–2200, before 1970 too) and any span
/// between two of them fit, so no record's date is lost here. One sample's value needs no more
/// than a `Float`'s 7 digits (sums are kept in `Double`). The source index takes 32 bits: an
/// export can name more than 65,536 sources, and merging two would let one's samples escape the
/// other's rank.
package struct CumulativeSample: BitwiseCopyable {
    private var startLow: UInt32
    private var durationLow: UInt32
    private var storedValue: Float
    private var sourceIndex: UInt32
    package var offsetMinutes: Int16
    private var startHigh: Int8
    private var durationHigh: UInt8

    /// `start` and `end` in UTC seconds are held within ±2^39 (years −15,000 to 19,000), and
    /// `end − start` below 2^40: every date `Timestamp.parse` accepts lies far inside.
    package init(start: Int64, end: Int64, value: Double, source: Int32, offsetMinutes: Int16) {
        let start = min(max(start, -(1 << 39)), (1 << 39) - 1)
        let duration = min(max(0, end - start), (1 << 40) - 1)
        startLow = UInt32(truncatingIfNeeded: start)
        startHigh = Int8(truncatingIfNeeded: start >> 32)
        durationLow = UInt32(truncatingIfNeeded: duration)
        durationHigh = UInt8(truncatingIfNeeded: duration >> 32)
        storedValue = Float(value)
        sourceIndex = UInt32(clamping: source)
        self.offsetMinutes = offsetMinutes
    }

    package var start: Int64 { Int64(startHigh) << 32 | Int64(startLow) }
    package var end: Int64 { start + (Int64(durationHigh) << 32 | Int64(durationLow)) }
    /// In the kind's canonical unit (count, m, kcal, s).
    package var value: Double { Double(storedValue) }
    package var source: Int32 { Int32(bitPattern: sourceIndex) }
}

/// The samples of one cumulative record type, de-duplicated across sources by priority.
///
/// Where sources overlap in time, one source per time span counts: the best-ranked source's
/// samples count whole; a lower-ranked sample counts only for the part of its span no better
/// source covers, pro rata (a 10-minute iPhone sample half covered by the Watch keeps half its
/// value). Samples of one source never exclude each other. This is how the Health app avoids
/// summing the iPhone's and the Watch's steps for the same walk.
///
/// Memory does not grow with the history: samples go to a `SortedRunFile` (sorted runs spilled
/// to disk) and come back in time order, and only one *cluster* is held at a time, a stretch of
/// samples that overlap one another. Samples of different clusters cannot cover each other, so
/// de-duplicating cluster by cluster gives each sample exactly the share it would get against
/// the whole series.
package struct CumulativeSeries {
    package let kind: CumulativeKind
    private(set) var samples: SortedRunFile<CumulativeSample>

    /// - Parameter spillPath: where sorted runs of samples go (nil: kept in memory).
    package init(kind: CumulativeKind, spillPath: String? = nil, runLength: Int = 1 << 16) {
        self.kind = kind
        samples = SortedRunFile(path: spillPath, runLength: runLength) { $0.start < $1.start }
    }

    @inline(__always)
    package func append(_ sample: CumulativeSample) { samples.append(sample) }

    /// Its type's group of records ended: the samples in memory go to the spill file
    /// (`SortedRunFile.setAside`), so that series waiting for the end of export.xml hold little.
    package func setAside() { samples.setAside() }

    /// What `deduplicate` and `spread` hand over: `valuePerQuarter` for each of `quarters`
    /// consecutive quarter hours of UTC from `firstQuarter` (quarter hours since 1970), with the
    /// sample's stamped offset. A stretch of whole quarter hours comes in one call however long
    /// it is, so a sample costs the same whether it lasts an hour or a century.
    package typealias QuarterShares = (_ firstQuarter: Int64, _ quarters: Int64, _ valuePerQuarter: Double, _ offsetMinutes: Int16) -> Void

    /// Adds each sample's surviving value to the quarter hours of UTC it covers (pro rata when it
    /// spans several), with the sample's stamped offset, and forgets the samples. Quarter hours,
    /// not days: which local day an instant belongs to is known only once the person's time
    /// zones are (`TimeZoneTimeline`), and every zone's midnight falls on a quarter hour.
    /// - Parameter ranking: the priority order of the sources, knowing every source of the samples.
    /// - Throws: when the spilled samples cannot be read back (or could not be written).
    package func deduplicate(ranking: SourceRanking, into add: QuarterShares) throws {
        var cluster: [CumulativeSample] = []
        var clusterEnd = Int64.min
        var work = ClusterWork()
        try samples.drain { s in
            // An instant sample occupies its second here, so a span starting then still joins it.
            let end = max(s.end, s.start + 1)
            if s.start >= clusterEnd && !cluster.isEmpty {
                work.deduplicate(&cluster, ranking: ranking, into: add)
                cluster.removeAll(keepingCapacity: true)
            }
            if cluster.isEmpty { clusterEnd = end } else { clusterEnd = max(clusterEnd, end) }
            cluster.append(s)
        }
        if !cluster.isEmpty { work.deduplicate(&cluster, ranking: ranking, into: add) }
    }

    /// The buffers of one cluster's de-duplication, reused from cluster to cluster.
    private struct ClusterWork {
        package var covered = SpanTree()   // spans of every better-ranked source
        package var pending: [(Int64, Int64)] = []   // spans of the source being processed
        /// Samples of the source being processed whose spans overlap one another (sorted by
        /// start), counted together by `countOverlapping`, and where the last of them ends.
        package var overlapping: [CumulativeSample] = []
        package var overlappingEnd = Int64.min
        /// `countOverlapping`'s starts and ends: (time, change of rate, change of count).
        package var changes: [(time: Int64, rate: Double, count: Int)] = []

        package mutating func deduplicate(_ cluster: inout [CumulativeSample], ranking: SourceRanking, into add: QuarterShares) {
            if cluster.count == 1 {
                // Nothing to overlap: the common case of one source at a time.
                let s = cluster[0]
                if s.end <= s.start {
                    add(CumulativeSeries.quarterHour(of: s.start), 1, s.value, s.offsetMinutes)
                } else {
                    CumulativeSeries.spread(s.value, over: s.start, s.end, offsetMinutes: s.offsetMinutes, into: add)
                }
                return
            }
            // Best source first; within a source, by time. (No two sources rank equal.)
            cluster.sort {
                $0.source != $1.source ? ranking.precedes(Int($0.source), Int($1.source)) : $0.start < $1.start
            }
            covered.removeAll()
            pending.removeAll(keepingCapacity: true)
            var currentSource: Int32 = -1
            for s in cluster {
                if s.source != currentSource {
                    countOverlapping(into: add)
                    covered.insert(contentsOf: pending)
                    pending.removeAll(keepingCapacity: true)
                    currentSource = s.source
                }
                if s.end <= s.start {
                    // An instant sample survives unless a better source covers that moment.
                    if !covered.contains(s.start) { add(CumulativeSeries.quarterHour(of: s.start), 1, s.value, s.offsetMinutes) }
                } else {
                    if !overlapping.isEmpty && s.start >= overlappingEnd { countOverlapping(into: add) }
                    overlapping.append(s)
                    overlappingEnd = max(overlappingEnd, s.end)
                }
                pending.append((s.start, max(s.end, s.start)))
            }
            countOverlapping(into: add)
        }

        /// Counts `overlapping` for the parts of their spans no better source covers, and empties it.
        ///
        /// A sample alone counts for each gap pro rata: `value × gap / span`. Samples of one
        /// source that overlap one another are counted together: between two consecutive starts
        /// or ends the same samples are open, and their values per second (summed) count over
        /// each gap there. Each gap is then walked once, not once per sample over it: a source's
        /// long samples lying over many of a better source's cost what their number and the
        /// gaps' number do, not their product.
        private mutating func countOverlapping(into add: QuarterShares) {
            defer {
                overlapping.removeAll(keepingCapacity: true)
                overlappingEnd = Int64.min
            }
            guard let first = overlapping.first else { return }
            if overlapping.count == 1 {
                let length = Double(first.end - first.start)
                covered.forEachGap(in: first.start, first.end) { a, b in
                    CumulativeSeries.spread(first.value * Double(b - a) / length, over: a, b, offsetMinutes: first.offsetMinutes, into: add)
                }
                return
            }
            changes.removeAll(keepingCapacity: true)
            for s in overlapping {
                let rate = s.value / Double(s.end - s.start)
                changes.append((s.start, rate, 1))
                changes.append((s.end, -rate, -1))
            }
            changes.sort { $0.time < $1.time }
            // The open samples' values per second, summed with the rounding error of adding and
            // taking them away (Neumaier), and how many are open.
            var rate = 0.0, compensation = 0.0, open = 0
            var t = changes[0].time
            for change in changes {
                if change.time > t {
                    if open > 0 {
                        let perSecond = rate + compensation
                        covered.forEachGap(in: t, change.time) { a, b in
                            // The group is dated at its first sample's stamped offset.
                            CumulativeSeries.spread(
                                perSecond * Double(b - a), over: a, b, offsetMinutes: first.offsetMinutes, into: add)
                        }
                    }
                    t = change.time
                }
                open += change.count
                if open == 0 {
                    rate = 0
                    compensation = 0
                } else {
                    let sum = rate + change.rate
                    compensation += abs(rate) >= abs(change.rate) ? (rate - sum) + change.rate : (change.rate - sum) + rate
                    rate = sum
                }
            }
        }
    }

    @inline(__always)
    package static func localDay(_ utc: Int64, _ offsetMinutes: Int16) -> Int64 {
        let local = utc + Int64(offsetMinutes) * 60
        return local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
    }

    /// Seconds in a quarter hour.
    package static let quarterHour: Int64 = 900

    /// The quarter hour of UTC time holding `utc` (quarter hours since 1970).
    @inline(__always)
    package static func quarterHour(of utc: Int64) -> Int64 {
        utc >= 0 ? utc / quarterHour : (utc - (quarterHour - 1)) / quarterHour
    }

    /// Splits `value` over [a, b) (a < b) in proportion to the time in each quarter hour of UTC,
    /// in at most three calls: the part of a quarter hour it starts in, the whole quarter hours
    /// (one call, an equal share each), the part of a quarter hour it ends in. Each quarter
    /// hour's share is `value × seconds in it / (b − a)`, however long the sample: a broken
    /// record spanning a century costs what a minute's does, and is read back per quarter hour
    /// (`QuarterSums.drain`).
    package static func spread(_ value: Double, over a: Int64, _ b: Int64, offsetMinutes: Int16, into add: QuarterShares) {
        let length = Double(b - a)
        let firstQuarter = quarterHour(of: a)
        if firstQuarter == quarterHour(of: b - 1) {
            add(firstQuarter, 1, value * length / length, offsetMinutes)
            return
        }
        var t = a
        var quarter = firstQuarter
        if t > quarter * quarterHour {
            // Starts inside a quarter hour (and ends in a later one): the rest of it.
            let stop = (quarter + 1) * quarterHour
            add(quarter, 1, value * Double(stop - t) / length, offsetMinutes)
            t = stop
            quarter += 1
        }
        // The quarter hours [quarter, wholeEnd) lie wholly inside [t, b).
        let wholeEnd = b >= 0 ? b / quarterHour : (b - (quarterHour - 1)) / quarterHour
        if wholeEnd > quarter {
            add(quarter, wholeEnd - quarter, value * Double(quarterHour) / length, offsetMinutes)
            t = wholeEnd * quarterHour
        }
        if t < b { add(wholeEnd, 1, value * Double(b - t) / length, offsetMinutes) }
    }
}

/// A set of disjoint half-open time spans, kept sorted and merged: for a set made in one go and
/// then queried (the heart-rate join's windows). Each `insert` rebuilds the arrays, so a set that
/// grows a little at a time, as de-duplication's does, is a `SpanTree`.
package struct IntervalSet {
    private(set) var starts: [Int64] = []
    private(set) var ends: [Int64] = []

    /// Spare arrays for `insert`, kept so that inserting again reuses their memory.
    private var nextStarts: [Int64] = []
    private var nextEnds: [Int64] = []

    /// Adds spans (in any order), merging overlaps. Allocates only when the set outgrows its
    /// largest size so far, or when `spans` are not sorted by start.
    package mutating func insert(contentsOf spans: [(Int64, Int64)]) {
        guard !spans.isEmpty else { return }
        var isSorted = true
        for i in spans.indices.dropFirst() where spans[i].0 < spans[i - 1].0 { isSorted = false; break }
        let sorted = isSorted ? spans : spans.sorted { $0.0 < $1.0 }
        nextStarts.removeAll(keepingCapacity: true)
        nextEnds.removeAll(keepingCapacity: true)
        var i = 0, j = 0
        while i < starts.count || j < sorted.count {
            let a: Int64, b: Int64
            if j >= sorted.count || (i < starts.count && starts[i] <= sorted[j].0) {
                a = starts[i]; b = ends[i]; i += 1
            } else {
                a = sorted[j].0; b = sorted[j].1; j += 1
            }
            if let last = nextEnds.last, a <= last {
                if b > last { nextEnds[nextEnds.count - 1] = b }
            } else {
                nextStarts.append(a); nextEnds.append(b)
            }
        }
        swap(&starts, &nextStarts)
        swap(&ends, &nextEnds)
    }

    /// Index of the first span ending after `t`.
    private func firstEnding(after t: Int64) -> Int {
        var lo = 0, hi = ends.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if ends[mid] <= t { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    package func contains(_ t: Int64) -> Bool {
        let i = firstEnding(after: t)
        return i < starts.count && starts[i] <= t
    }

    package mutating func removeAll() {
        starts.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }

    /// Calls `body` with each part of [a, b) no span covers, in order (no allocation).
    package func forEachGap(in a: Int64, _ b: Int64, _ body: (Int64, Int64) -> Void) {
        var t = a
        var i = firstEnding(after: a)
        while t < b {
            if i >= starts.count || starts[i] >= b {
                body(t, b)
                break
            }
            if starts[i] > t { body(t, starts[i]) }
            t = max(t, ends[i])
            i += 1
        }
    }
}
