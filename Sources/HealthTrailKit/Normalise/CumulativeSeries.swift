/// A cumulative quantity summed per day: steps, distance, energy, flights, exercise minutes.
public enum CumulativeKind: Int, CaseIterable, Sendable {
    case steps, distance, activeEnergy, basalEnergy, flights, exerciseTime
}

/// One sample of a cumulative quantity in 16 bytes: a type's samples are held until its group
/// of records ends, and one type can have millions (active energy, once a minute for years).
/// Seconds fit 32 bits unsigned until 2106; one sample's value needs no more than a `Float`'s
/// 7 digits (sums are kept in `Double`).
struct CumulativeSample {
    private var startSeconds: UInt32
    private var durationSeconds: UInt32
    private var storedValue: Float
    private var sourceIndex: UInt16
    var offsetMinutes: Int16

    init(start: Int64, end: Int64, value: Double, source: Int32, offsetMinutes: Int16) {
        startSeconds = UInt32(clamping: start)
        durationSeconds = UInt32(clamping: max(0, end - start))
        storedValue = Float(value)
        sourceIndex = UInt16(clamping: source)
        self.offsetMinutes = offsetMinutes
    }

    var start: Int64 { Int64(startSeconds) }
    var end: Int64 { Int64(startSeconds) + Int64(durationSeconds) }
    /// In the kind's canonical unit (count, m, kcal, s).
    var value: Double { Double(storedValue) }
    var source: Int32 { Int32(sourceIndex) }
}

/// The samples of one cumulative record type, de-duplicated across sources by priority.
///
/// Where sources overlap in time, one source per time span counts: the best-ranked source's
/// samples count whole; a lower-ranked sample counts only for the part of its span no better
/// source covers, pro rata (a 10-minute iPhone sample half covered by the Watch keeps half its
/// value). Samples of one source never exclude each other. This is how the Health app avoids
/// summing the iPhone's and the Watch's steps for the same walk.
struct CumulativeSeries {
    let kind: CumulativeKind
    var samples: [CumulativeSample] = []

    init(kind: CumulativeKind) { self.kind = kind }

    /// Adds each sample's surviving value to the local days it covers.
    /// - Parameter sourceOrder: position of each source index in the priority order (0 best).
    mutating func deduplicate(sourceOrder: [Int], into add: (_ localDay: Int64, _ value: Double) -> Void) {
        // Best source first; within a source, by time. Sorted in place: no second copy.
        samples.sort {
            let a = sourceOrder[Int($0.source)], b = sourceOrder[Int($1.source)]
            return a != b ? a < b : $0.start < $1.start
        }
        let sorted = samples
        var covered = IntervalSet()       // spans of every better-ranked source
        var pending: [(Int64, Int64)] = [] // spans of the rank being processed
        var currentRank = -1
        for s in sorted {
            let rank = sourceOrder[Int(s.source)]
            if rank != currentRank {
                covered.insert(contentsOf: pending)
                pending.removeAll(keepingCapacity: true)
                currentRank = rank
            }
            if s.end <= s.start {
                // An instant sample survives unless a better source covers that moment.
                if !covered.contains(s.start) { add(Self.localDay(s.start, s.offsetMinutes), s.value) }
            } else {
                let length = Double(s.end - s.start)
                for (a, b) in covered.gaps(in: s.start, s.end) {
                    Self.spread(s.value * Double(b - a) / length, over: a, b, offsetMinutes: s.offsetMinutes, into: add)
                }
            }
            pending.append((s.start, max(s.end, s.start)))
        }
    }

    @inline(__always)
    static func localDay(_ utc: Int64, _ offsetMinutes: Int16) -> Int64 {
        let local = utc + Int64(offsetMinutes) * 60
        return local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
    }

    /// Splits `value` over [a, b) in proportion to the time on each side of local midnights.
    static func spread(_ value: Double, over a: Int64, _ b: Int64, offsetMinutes: Int16,
                       into add: (Int64, Double) -> Void) {
        let offset = Int64(offsetMinutes) * 60
        var t = a
        while t < b {
            let day = localDay(t, offsetMinutes)
            let nextMidnight = (day + 1) * 86_400 - offset
            let stop = min(b, nextMidnight)
            add(day, value * Double(stop - t) / Double(b - a))
            t = stop
        }
    }
}

/// A set of disjoint half-open time spans, kept sorted and merged.
struct IntervalSet {
    private(set) var starts: [Int64] = []
    private(set) var ends: [Int64] = []

    /// Adds spans (in any order), merging overlaps.
    mutating func insert(contentsOf spans: [(Int64, Int64)]) {
        guard !spans.isEmpty else { return }
        var all = zip(starts, ends).map { ($0, $1) } + spans
        all.sort { $0.0 < $1.0 }
        var s: [Int64] = [], e: [Int64] = []
        s.reserveCapacity(all.count); e.reserveCapacity(all.count)
        for (a, b) in all {
            if let last = e.last, a <= last {
                if b > last { e[e.count - 1] = b }
            } else {
                s.append(a); e.append(b)
            }
        }
        starts = s; ends = e
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

    func contains(_ t: Int64) -> Bool {
        let i = firstEnding(after: t)
        return i < starts.count && starts[i] <= t
    }

    /// The parts of [a, b) no span covers.
    func gaps(in a: Int64, _ b: Int64) -> [(Int64, Int64)] {
        var result: [(Int64, Int64)] = []
        var t = a
        var i = firstEnding(after: a)
        while t < b {
            if i >= starts.count || starts[i] >= b {
                result.append((t, b))
                break
            }
            if starts[i] > t { result.append((t, starts[i])) }
            t = max(t, ends[i])
            i += 1
        }
        return result
    }
}
