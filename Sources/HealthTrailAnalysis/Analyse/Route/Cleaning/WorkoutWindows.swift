import HealthTrailDecode

/// When a workout was active, to tell each of its route points' `PointState`.
///
/// Active time is the workout's span, cut to its parts' windows when it has parts
/// (`WorkoutActivity`), less the spans between a pause event and the next resume
/// (`HKWorkoutEventTypePause`/`Resume`, `HKWorkoutEventTypeMotionPaused`/`MotionResumed`; a pause
/// never resumed lasts to the end). Each maximal run of active time is an interval: points of
/// two intervals are never joined by a counted step, so neither a pause nor the gap between
/// parts adds distance.
///
/// Times are whole UTC seconds, like the dates of exports and route files: an interval is
/// closed, and a pause covers its own second up to (not including) the resume's.
package struct WorkoutWindows: Sendable, Equatable {
    /// The workout's span; nil for a route no workout owns, all of which is active.
    package let span: ClosedRange<Int64>?
    /// The active intervals, sorted and disjoint.
    package let active: [ClosedRange<Int64>]
    /// The paused spans inside `span`, sorted and disjoint.
    package let paused: [ClosedRange<Int64>]

    /// A route no workout owns: every point active, one interval.
    package static let unbounded = WorkoutWindows(span: nil, active: [Int64.min...Int64.max], paused: [])

    package init(span: ClosedRange<Int64>?, active: [ClosedRange<Int64>], paused: [ClosedRange<Int64>]) {
        self.span = span
        self.active = active
        self.paused = paused
    }

    /// The windows of `workout`, from its span, parts and pause events.
    package init(_ workout: Workout) {
        let start = workout.start.utcSeconds
        let end = Swift.max(start, workout.end.utcSeconds)
        let span = start...end

        // Parts: each from its start to its end (or start + duration, or the workout's end).
        var parts: [ClosedRange<Int64>] = []
        for part in workout.activities {
            let s = part.start.utcSeconds
            let e = part.end?.utcSeconds ?? part.duration?.seconds.map { s + Int64($0.rounded()) } ?? end
            if let clipped = Self.clip(s...Swift.max(s, e), to: span) { parts.append(clipped) }
        }
        let base = parts.isEmpty ? [span] : Self.union(parts)

        // Pauses: manual and motion pauses each open and close on their own; paused while either is.
        var pauses: [ClosedRange<Int64>] = []
        var manual: Int64?, motion: Int64?
        for event in workout.events.sorted(by: { $0.date.utcSeconds < $1.date.utcSeconds }) {
            let t = event.date.utcSeconds
            switch event.type {
            case "HKWorkoutEventTypePause": if manual == nil { manual = t }
            case "HKWorkoutEventTypeMotionPaused": if motion == nil { motion = t }
            case "HKWorkoutEventTypeResume":
                if let p = manual, t > p { pauses.append(p...(t - 1)) }
                manual = nil
            case "HKWorkoutEventTypeMotionResumed":
                if let p = motion, t > p { pauses.append(p...(t - 1)) }
                motion = nil
            default: break
            }
        }
        for open in [manual, motion].compactMap({ $0 }) { pauses.append(open...Swift.max(open, end)) }
        let paused = Self.union(pauses.compactMap { Self.clip($0, to: span) })

        self.init(span: span, active: Self.subtract(paused, from: base), paused: paused)
    }

    /// The state a point at `time` has by these windows (`active`, `paused` or `outside`), and
    /// the index of its active interval (-1 when not active).
    @inline(__always)
    package func locate(_ time: Int64) -> (state: PointState, interval: Int) {
        if let k = Self.index(of: time, in: active) { return (.active, k) }
        if let span, span.contains(time), Self.index(of: time, in: paused) != nil { return (.paused, -1) }
        return (.outside, -1)
    }

    /// The index of the range of sorted, disjoint `ranges` that holds `t`.
    private static func index(of t: Int64, in ranges: [ClosedRange<Int64>]) -> Int? {
        var low = 0, high = ranges.count
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].upperBound < t { low = mid + 1 } else { high = mid }
        }
        return low < ranges.count && ranges[low].contains(t) ? low : nil
    }

    private static func clip(_ r: ClosedRange<Int64>, to span: ClosedRange<Int64>) -> ClosedRange<Int64>? {
        let lo = Swift.max(r.lowerBound, span.lowerBound), hi = Swift.min(r.upperBound, span.upperBound)
        return lo <= hi ? lo...hi : nil
    }

    /// Sorted, disjoint ranges covering the same seconds as `ranges` (touching ones merged).
    static func union(_ ranges: [ClosedRange<Int64>]) -> [ClosedRange<Int64>] {
        var merged: [ClosedRange<Int64>] = []
        for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, r.lowerBound <= last.upperBound + 1 {
                merged[merged.count - 1] = last.lowerBound...Swift.max(last.upperBound, r.upperBound)
            } else {
                merged.append(r)
            }
        }
        return merged
    }

    /// The seconds of sorted, disjoint `base` not in sorted, disjoint `holes`.
    static func subtract(_ holes: [ClosedRange<Int64>], from base: [ClosedRange<Int64>]) -> [ClosedRange<Int64>] {
        var result: [ClosedRange<Int64>] = []
        for r in base {
            var lo = r.lowerBound
            var cut = false
            for h in holes where h.upperBound >= lo && h.lowerBound <= r.upperBound {
                if h.lowerBound > lo { result.append(lo...(h.lowerBound - 1)) }
                if h.upperBound >= r.upperBound { cut = true; break }
                lo = h.upperBound + 1
            }
            if !cut { result.append(lo...r.upperBound) }
        }
        return result
    }
}
