import HealthTrailDecode

/// A route point on its way through `TrackCleaner`: its state so far, and where the caller
/// keeps what it needs to write the point's row.
package struct CleanerEntry {
    package var point: RoutePoint
    package var state: PointState
    /// Its active interval (`WorkoutWindows.locate`), -1 when not active.
    package var interval: Int
    /// The GPS jumped just before this point: the step into it is no evidence of distance
    /// covered, and does not count.
    package var jumpBefore = false
    /// The caller's handle to the point's row (a `ByteQueue` position, an array index, …).
    package var payload: Int
    package var payloadLength: Int
    package init(point: RoutePoint, state: PointState, interval: Int, payload: Int, payloadLength: Int) {
        self.point = point
        self.state = state
        self.interval = interval
        self.payload = payload
        self.payloadLength = payloadLength
    }
}

/// The glitch and vehicle filter of one route file's points, streaming: points go in with the
/// state their workout's windows give them (`push`), and come out in the same order with their
/// final state (`next`) once nothing later can change it.
///
/// Among the active points of one interval, a trusted *anchor* is kept (the last point taken):
/// - a fix with a horizontal accuracy worse than `RouteSpeedLimits.worstAccuracy` is a glitch;
/// - a point reachable from the anchor (`RouteSpeedLimits.isImpossible` is false) is taken;
///   any *suspects* since the anchor were glitches (off, then back);
/// - a point the anchor could not reach is a suspect; once `jumpConfirmation` suspects in a row
///   each reach the next, the signal came back somewhere else: they are taken, and the step into
///   the first is a jump that counts for nothing;
/// - in a workout on foot, every taken point of a window of at least `vehicleWindow` seconds
///   whose trusted distance implies more than the activity's `vehicleSpeed` is a vehicle's.
///
/// Points wait at most three vehicle windows of route time (or while suspects are undecided),
/// so memory stays small whatever the route's length.
package final class TrackCleaner {
    private var limits = RouteSpeedLimits.forActivity("")
    /// Entries not yet handed out are `queue[head...]`; `queue[k]` is entry number `base + k`.
    private var queue: [CleanerEntry] = []
    private var head = 0
    private var base = 0
    /// The last taken point of the current interval: its point, interval and chain distance.
    private var anchor: (point: RoutePoint, interval: Int, distance: Double)?
    /// Entry numbers of the undecided points after the anchor.
    private var suspects: [Int] = []
    /// Taken points of the current interval still inside the vehicle window, oldest first
    /// from `recentStart`.
    private var recent: [(time: Int64, distance: Double, number: Int)] = []
    private var recentStart = 0
    /// The latest time pushed: an entry older than `horizon` behind it is decided.
    private var newest = Int64.min
    private var finishing = false

    /// The longest a point waits behind the newest: a vehicle window may stretch to three
    /// windows when fixes are sparse.
    private static let horizon = 3 * RouteSpeedLimits.vehicleWindow

    package init() {}

    /// Starts a route file (the previous one must have been drained after `finish`).
    package func begin(limits: RouteSpeedLimits) {
        self.limits = limits
        queue.removeAll(keepingCapacity: true)
        head = 0
        base = 0
        anchor = nil
        suspects.removeAll(keepingCapacity: true)
        endChain()
        newest = .min
        finishing = false
    }

    /// Adds the route's next point, its state from the windows (`active`, `paused`, `outside`).
    package func push(_ entry: CleanerEntry) {
        let number = base + queue.count
        queue.append(entry)
        newest = Swift.max(newest, entry.point.time)
        guard entry.state == .active else {
            // Anything not active ends the chain: no step is counted across it.
            settleSuspects()
            anchor = nil
            endChain()
            return
        }
        if let accuracy = entry.point.horizontalAccuracy, accuracy > RouteSpeedLimits.worstAccuracy {
            queue[queue.count - 1].state = .glitch
            return
        }
        guard let a = anchor, a.interval == entry.interval else {
            settleSuspects()
            endChain()
            take(number, distance: 0)
            return
        }
        let metres = RouteGeometry.haversine(a.point, entry.point)
        if !impossible(a.point, entry.point, metres: metres) {
            settleSuspects(as: .glitch)
            take(number, distance: a.distance + metres)
            return
        }
        // Unreachable from the anchor: a new suspect, starting a new run unless the last
        // suspect reaches it.
        if let last = suspects.last {
            let previous = self[last].point
            if impossible(previous, entry.point, metres: RouteGeometry.haversine(previous, entry.point)) {
                settleSuspects(as: .glitch)
            }
        }
        suspects.append(number)
        guard suspects.count >= RouteSpeedLimits.jumpConfirmation else { return }
        // Confirmed: the track goes on from where the signal came back.
        let run = suspects
        suspects.removeAll(keepingCapacity: true)
        self[run[0]].jumpBefore = true
        endChain()
        var distance = a.distance
        take(run[0], distance: distance)
        for (k, previous) in zip(run.dropFirst(), run) {
            distance += RouteGeometry.haversine(self[previous].point, self[k].point)
            take(k, distance: distance)
        }
    }

    /// No more points in this file: undecided suspects are glitches, every entry can go out.
    package func finish() {
        settleSuspects()
        finishing = true
    }

    /// The next entry whose state is final, in the order pushed; nil when the next must wait.
    @inline(__always)
    package func next() -> CleanerEntry? {
        guard head < queue.count else {
            base += queue.count
            queue.removeAll(keepingCapacity: true)
            head = 0
            return nil
        }
        let entry = queue[head]
        if let first = suspects.first, base + head >= first { return nil }
        if !finishing, limits.vehicleSpeed != nil, newest - entry.point.time <= Self.horizon { return nil }
        head += 1
        if head >= 4096 && head * 2 >= queue.count {
            queue.removeFirst(head)
            base += head
            head = 0
        }
        return entry
    }

    private subscript(number: Int) -> CleanerEntry {
        get { queue[number - base] }
        set { queue[number - base] = newValue }
    }

    @inline(__always)
    private func impossible(_ a: RoutePoint, _ b: RoutePoint, metres: Double) -> Bool {
        limits.isImpossible(
            from: (a.time, a.horizontalAccuracy ?? 0), to: (b.time, b.horizontalAccuracy ?? 0), metres: metres)
    }

    /// Suspects that never confirmed a jump were off, then back (or never came back before the
    /// chain ended): glitches.
    private func settleSuspects(as state: PointState = .glitch) {
        for s in suspects { self[s].state = state }
        suspects.removeAll(keepingCapacity: true)
    }

    private func endChain() {
        recent.removeAll(keepingCapacity: true)
        recentStart = 0
    }

    /// Takes entry `number` as the new anchor, `distance` metres along its chain, and marks the
    /// vehicle window ending at it when it is too fast for the activity.
    private func take(_ number: Int, distance: Double) {
        let entry = self[number]
        anchor = (entry.point, entry.interval, distance)
        guard let vehicleSpeed = limits.vehicleSpeed else { return }
        let time = entry.point.time
        recent.append((time, distance, number))
        while recent.count - recentStart >= 2 && time - recent[recentStart + 1].time >= RouteSpeedLimits.vehicleWindow {
            recentStart += 1
        }
        let first = recent[recentStart]
        let seconds = time - first.time
        if seconds >= RouteSpeedLimits.vehicleWindow && seconds <= Self.horizon
            && (distance - first.distance) / Double(seconds) > vehicleSpeed
        {
            // Entries before `base + head` are out already; the horizon keeps that from
            // happening inside a window that is not longer than it.
            for k in Swift.max(first.number, base + head)...number where self[k].state == .active {
                self[k].state = .vehicle
            }
        }
        if recentStart >= 1024 {
            recent.removeFirst(recentStart)
            recentStart = 0
        }
    }
}
