import HealthTrailArchive
import HealthTrailBase
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
    /// Metres from the last trusted point when the filter measured them (NaN otherwise): the
    /// step the figures count, so that it is measured once.
    package var anchorMetres = Double.nan
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
/// First the clock: the active points of a file must run forward in time, since every figure
/// after (time, pace, splits, best efforts) reads time from them.
/// - a fix whose time is earlier than the last fix passed on, or a third one at its second
///   (`RouteSpeedLimits.fixesPerSecond`), is a glitch: its clock ran back or stood still;
/// - a fix more than `RouteSpeedLimits.clockLeap` seconds later than the last fix passed on (or
///   the file's first fix) leaps: it waits with the fixes after it until `jumpConfirmation` of
///   them run forward, and is then passed on. A fix that goes back below the waiting ones while
///   still later than the last fix passed on shows that those after its second were stamped
///   late: they are glitches. A point that is not active, the end of the file or `maxWaiting`
///   passes the waiting fixes on (those after a non-active point's time are glitches);
/// - a point that is not active by its own time is held to the same clock: stamped earlier than
///   the last fix passed on, it is a glitch; stamped more than `clockLeap` later, it waits for
///   the next point, and is a glitch if that is an active fix earlier than it (stamped late).
///   Otherwise it ends the chain;
/// - a later route file of the same workout goes on from the clock of the one before: its fixes
///   stamped before that file's last fix (a second device recording the same workout) are
///   glitches, so no stretch is counted twice.
///
/// Then the positions, among the active points of one interval passed on by the clock, with a
/// trusted *anchor* kept (the last point taken):
/// - a fix with a horizontal accuracy worse than `RouteSpeedLimits.worstAccuracy` is a glitch;
/// - a point reachable from the anchor (`RouteSpeedLimits.isImpossible` is false) is taken;
///   any *suspects* since the anchor were glitches (off, then back);
/// - a point the anchor could not reach is a suspect; once `jumpConfirmation` suspects in a row
///   each reach the next, the signal came back somewhere else: they are taken, and the step into
///   the first is a jump that counts for nothing. If the chain before the jump had fewer points
///   than that, it was the glitch (a bad first fix): its points are marked so;
/// - in a workout on foot, a window of at least `vehicleWindow` seconds holds a drive when both
///   its trusted distance and the straight line across it imply more than the activity's
///   `vehicleSpeed` (the straight line keeps GPS noise, which lengthens every step, from
///   turning a sprint into a drive). The drive's edges are then found by each step's own speed
///   (`markVehicle`), so the running beside it stays active. A window may be a single step of
///   fixes minutes apart. Time going backwards starts a new window.
///
/// Points wait at most three vehicle windows of route time, while suspects or a leap of the
/// clock are undecided, or while the chain is younger than `jumpConfirmation` points; never
/// more than `maxWaiting` points, so memory stays small whatever the route's length.
package final class TrackCleaner {
    private var limits = RouteSpeedLimits.forActivity("")
    /// Entries not yet handed out are `queue[head...]`; `queue[k]` is entry number `base + k`.
    /// (Boxed: appended to and updated once per point; see `UncheckedBox`.)
    private let queueBox = UncheckedBox<[CleanerEntry]>([])
    private var head = 0
    private var base = 0
    /// The last taken point of the current interval: its point, interval and chain distance.
    private var anchor: (point: RoutePoint, interval: Int, distance: Double)?
    /// Entry numbers of the undecided points after the anchor. (Boxed like the queue, as are
    /// `youngChainBox` and `leapRunBox`: each is read once per point by `push` or `next`.)
    private let suspectsBox = UncheckedBox<[Int]>([])
    /// Entry numbers of the current chain's taken points while it has fewer than
    /// `jumpConfirmation`: they wait, since a jump may yet show them to be the glitch.
    private let youngChainBox = UncheckedBox<[Int]>([])
    /// Points taken since the chain started.
    private var chainTaken = 0
    /// Taken points of the current interval still inside the vehicle window, oldest first
    /// from `recentStart`. (Boxed like the queue.)
    private let recentBox = UncheckedBox<[(time: Int64, distance: Double, point: RoutePoint, number: Int)]>([])
    private var recentStart = 0
    /// The last fix's time the clock passed on, and how many fixes it passed at that second.
    private var clock: (time: Int64, fixes: Int)?
    /// Entry numbers of the fixes waiting after a leap of the clock, in time order.
    private let leapRunBox = UncheckedBox<[Int]>([])
    /// The latest time passed on by the clock or of a point that is not active: an entry older
    /// than `horizon` behind it is decided. (A fix stamped late never moves it: it would hand out
    /// points before the vehicle windows after them are measured.)
    private var newest = Int64.min
    private var finishing = false
    /// A point that is not active, stamped more than `clockLeap` after the clock: it waits for
    /// the next point to show whether it was stamped late (an active fix back below it) before
    /// it ends the chain.
    private var lateBreak: Int?

    /// The longest a point waits behind the newest: a vehicle window may stretch to three
    /// windows when fixes are sparse.
    private static let horizon = 3 * RouteSpeedLimits.vehicleWindow
    /// Points held at most: beyond, undecided suspects are settled as glitches and the oldest
    /// points go out as they are.
    package static let maxWaiting = 10_000

    package init() {}

    /// Starts a route file (the previous one must have been drained after `finish`); a later
    /// file of the workout the last one was of keeps that file's clock (`sameWorkout`), so a
    /// stretch two files recorded (two devices) is counted once.
    package func begin(limits: RouteSpeedLimits, sameWorkout: Bool = false) {
        self.limits = limits
        queueBox.value.removeAll(keepingCapacity: true)
        head = 0
        base = 0
        anchor = nil
        suspectsBox.value.removeAll(keepingCapacity: true)
        youngChainBox.value.removeAll(keepingCapacity: true)
        chainTaken = 0
        recentBox.value.removeAll(keepingCapacity: true)   // the last file's, drained
        recentStart = 0
        if !sameWorkout { clock = nil }
        leapRunBox.value.removeAll(keepingCapacity: true)
        lateBreak = nil
        newest = .min
        finishing = false
    }

    /// Adds the route's next point, its state from the windows (`active`, `paused`, `outside`).
    package func push(_ entry: CleanerEntry) {
        let number = base + queueBox.value.count
        queueBox.value.append(entry)
        if let first = leapRunBox.value.first, number - first >= Self.maxWaiting { passLeapRun() }
        if let first = suspectsBox.value.first, number - first >= Self.maxWaiting { settleSuspects() }
        if let late = lateBreak {
            lateBreak = nil
            if entry.state == .active && entry.point.time < self[late].point.time {
                self[late].state = .glitch   // stamped late: the chain goes on over it
            } else {
                breakChain(at: late)
            }
        }
        guard entry.state == .active else {
            // By its own time the point lies outside the active windows; by the clock's it may
            // be a fix stamped off, as an active one would be a glitch.
            if let clock, leapRunBox.value.isEmpty {
                if entry.point.time < clock.time {
                    self[number].state = .glitch
                    return
                }
                if entry.point.time - clock.time > RouteSpeedLimits.clockLeap {
                    lateBreak = number
                    return
                }
            }
            breakChain(at: number)
            return
        }
        if let accuracy = entry.point.horizontalAccuracy, accuracy > RouteSpeedLimits.worstAccuracy {
            self[number].state = .glitch
            return
        }
        checkClock(number)
    }

    /// Ends the chain at the point `number`, which is not active.
    private func breakChain(at number: Int) {
        let time = self[number].point.time
        newest = Swift.max(newest, time)
        // The waiting fixes after this point's time were stamped late (unless its own clock
        // ran back); the others go on.
        if clock.map({ time > $0.time }) ?? true { dropLeapRun(after: time) }
        passLeapRun()
        // Anything not active ends the chain: no step is counted across it.
        settleSuspects()
        anchor = nil
        youngChainBox.value.removeAll(keepingCapacity: true)
        chainTaken = 0
        endChain()
    }

    /// Passes the active fix `number` on to `place`, holds it after a leap, or marks it a
    /// glitch, by its time (see the type's documentation).
    private func checkClock(_ number: Int) {
        let time = self[number].point.time
        if let clock, !Self.runsForward(time, from: clock.time, fixes: clock.fixes) {
            self[number].state = .glitch
            return
        }
        // Back below the waiting fixes: those after its second were stamped late.
        dropLeapRun(after: time)
        if let last = leapRunBox.value.last {
            let lastTime = self[last].point.time
            guard Self.runsForward(time, from: lastTime, fixes: fixes(at: lastTime)) else {
                self[number].state = .glitch
                return
            }
            leapRunBox.value.append(number)
            if leapRunBox.value.count >= RouteSpeedLimits.jumpConfirmation { passLeapRun() }
            return
        }
        guard let clock, time - clock.time <= RouteSpeedLimits.clockLeap else {
            leapRunBox.value.append(number)
            return
        }
        pass(number)
    }

    /// Whether a fix at `time` runs forward from one at `last`, whose second holds `fixes` fixes.
    @inline(__always)
    private static func runsForward(_ time: Int64, from last: Int64, fixes: Int) -> Bool {
        time > last || (time == last && fixes < RouteSpeedLimits.fixesPerSecond)
    }

    /// Fixes at second `time` passed on or waiting.
    private func fixes(at time: Int64) -> Int {
        var count = clock.map { $0.time == time ? $0.fixes : 0 } ?? 0
        for k in leapRunBox.value where self[k].point.time == time { count += 1 }
        return count
    }

    /// Marks the waiting fixes later than `time` as glitches.
    private func dropLeapRun(after time: Int64) {
        while let last = leapRunBox.value.last, self[last].point.time > time {
            self[last].state = .glitch
            leapRunBox.value.removeLast()
        }
    }

    /// Passes every waiting fix on, in order.
    private func passLeapRun() {
        // By index: a copy of the array would make the emptying below allocate anew.
        for i in leapRunBox.value.indices { pass(leapRunBox.value[i]) }
        leapRunBox.value.removeAll(keepingCapacity: true)
    }

    /// Passes fix `number` on from the clock to the position filter.
    private func pass(_ number: Int) {
        let time = self[number].point.time
        clock = (time, clock.map { $0.time == time ? $0.fixes + 1 : 1 } ?? 1)
        newest = Swift.max(newest, time)
        place(number)
    }

    /// The position filter of an active fix the clock passed on.
    private func place(_ number: Int) {
        let entry = self[number]
        guard let a = anchor, a.interval == entry.interval else {
            settleSuspects()
            endChain()
            youngChainBox.value.removeAll(keepingCapacity: true)
            chainTaken = 0
            take(number, distance: 0)
            return
        }
        let metres = RouteGeometry.haversine(a.point, entry.point)
        if !impossible(a.point, entry.point, metres: metres) {
            settleSuspects()
            self[number].anchorMetres = metres
            take(number, distance: a.distance + metres)
            return
        }
        // Unreachable from the anchor: a new suspect, starting a new run unless the last
        // suspect reaches it.
        if let last = suspectsBox.value.last {
            let previous = self[last].point
            if impossible(previous, entry.point, metres: RouteGeometry.haversine(previous, entry.point)) {
                settleSuspects()
            }
        }
        suspectsBox.value.append(number)
        guard suspectsBox.value.count >= RouteSpeedLimits.jumpConfirmation else { return }
        // Confirmed: the track goes on from where the signal came back. A chain too short to
        // be trusted before it was the glitch: a bad fix the track started from.
        let run = suspectsBox.value
        suspectsBox.value.removeAll(keepingCapacity: true)
        let badStart = !youngChainBox.value.isEmpty && youngChainBox.value.count < RouteSpeedLimits.jumpConfirmation
        if badStart {
            for k in youngChainBox.value where k >= base + head { self[k].state = .glitch }
        } else {
            self[run[0]].jumpBefore = true
        }
        youngChainBox.value.removeAll(keepingCapacity: true)
        chainTaken = 0
        endChain()
        var distance = badStart ? 0 : a.distance
        take(run[0], distance: distance)
        for (k, previous) in zip(run.dropFirst(), run) {
            let step = RouteGeometry.haversine(self[previous].point, self[k].point)
            self[k].anchorMetres = step
            distance += step
            take(k, distance: distance)
        }
    }

    /// No more points in this file: undecided suspects are glitches, every entry can go out.
    package func finish() {
        if let late = lateBreak {
            lateBreak = nil
            breakChain(at: late)
        }
        passLeapRun()
        settleSuspects()
        youngChainBox.value.removeAll(keepingCapacity: true)
        endChain()
        finishing = true
    }

    /// The next entry whose state is final, in the order pushed; nil when the next must wait.
    @inline(__always)
    package func next() -> CleanerEntry? {
        let count = queueBox.value.count
        guard head < count else {
            base += count
            queueBox.value.removeAll(keepingCapacity: true)
            head = 0
            return nil
        }
        let entry = queueBox.value[head]
        if count - head <= Self.maxWaiting {
            if let first = leapRunBox.value.first, base + head >= first { return nil }
            if let first = suspectsBox.value.first, base + head >= first { return nil }
            if let first = youngChainBox.value.first, base + head >= first { return nil }
            if let late = lateBreak, base + head >= late { return nil }
            if !finishing, limits.vehicleSpeed != nil, newest == .min || newest - entry.point.time <= Self.horizon {
                return nil
            }
        }
        head += 1
        if head >= 4096 && head * 2 >= count {
            queueBox.value.removeFirst(head)
            base += head
            head = 0
        }
        return entry
    }

    private subscript(number: Int) -> CleanerEntry {
        get { queueBox.value[number - base] }
        set { queueBox.value[number - base] = newValue }
    }

    @inline(__always)
    private func impossible(_ a: RoutePoint, _ b: RoutePoint, metres: Double) -> Bool {
        limits.isImpossible(
            from: (a.time, a.horizontalAccuracy ?? 0), to: (b.time, b.horizontalAccuracy ?? 0), metres: metres)
    }

    /// Suspects that never confirmed a jump were off, then back (or never came back before the
    /// chain ended): glitches.
    private func settleSuspects() {
        guard !suspectsBox.value.isEmpty else { return }
        for s in suspectsBox.value where s >= base + head { self[s].state = .glitch }
        suspectsBox.value.removeAll(keepingCapacity: true)
    }

    private func endChain() {
        closeDrive()
        recentBox.value.removeAll(keepingCapacity: true)
        recentStart = 0
    }

    /// A drive goes on while its steps stay at vehicle speed, wherever it turns (a window across
    /// a turn has a short straight line): the point before the newest, reached from a vehicle's
    /// point by a fast step and left by one, is the vehicle's.
    private func continueDrive(speed: Double) {
        let n = recentBox.value.count
        guard n - recentStart >= 3 else { return }
        let (a, b, c) = (recentBox.value[n - 3], recentBox.value[n - 2], recentBox.value[n - 1])
        guard a.number >= base + head, self[a.number].state == .vehicle, self[b.number].state == .active else { return }
        if Self.speed(from: a, to: b) > speed && Self.speed(from: b, to: c) > speed { self[b.number].state = .vehicle }
    }

    /// Metres per second of the chain's step between two of its taken points (a step inside one
    /// second counts as one second).
    @inline(__always)
    private static func speed(
        from a: (time: Int64, distance: Double, point: RoutePoint, number: Int),
        to b: (time: Int64, distance: Double, point: RoutePoint, number: Int)
    ) -> Double {
        (b.distance - a.distance) / Double(Swift.max(1, b.time - a.time))
    }

    /// A chain that ends in a drive (the track stops in the car, or the workout ends there): its
    /// last point, reached from a vehicle's point by a step at vehicle speed, is the vehicle's
    /// too. While the chain goes on, a point is left active until a step leaves it
    /// (`markVehicle`): it may be where the drive stopped and the running went on.
    private func closeDrive() {
        guard let vehicleSpeed = limits.vehicleSpeed else { return }
        let n = recentBox.value.count
        guard n - recentStart >= 2 else { return }
        let (a, b) = (recentBox.value[n - 2], recentBox.value[n - 1])
        guard a.number >= base + head, self[a.number].state == .vehicle, self[b.number].state == .active else { return }
        if Self.speed(from: a, to: b) > vehicleSpeed { self[b.number].state = .vehicle }
    }

    /// Takes entry `number` as the new anchor, `distance` metres along its chain, and marks the
    /// vehicle window ending at it when it is too fast for the activity.
    private func take(_ number: Int, distance: Double) {
        let entry = self[number]
        anchor = (entry.point, entry.interval, distance)
        chainTaken += 1
        if chainTaken < RouteSpeedLimits.jumpConfirmation {
            youngChainBox.value.append(number)
        } else if !youngChainBox.value.isEmpty {
            youngChainBox.value.removeAll(keepingCapacity: true)
        }
        guard let vehicleSpeed = limits.vehicleSpeed else { return }
        let time = entry.point.time
        // A clock stepping back would make the window's seconds too few for its distance.
        if let last = recentBox.value.last, time < last.time { endChain() }
        recentBox.value.append((time, distance, entry.point, number))
        while recentBox.value.count - recentStart >= 2
            && time - recentBox.value[recentStart + 1].time >= RouteSpeedLimits.vehicleWindow
        {
            recentStart += 1
        }
        continueDrive(speed: vehicleSpeed)
        let first = recentBox.value[recentStart]
        let seconds = time - first.time
        if seconds >= RouteSpeedLimits.vehicleWindow
            && (distance - first.distance) / Double(seconds) > vehicleSpeed
            && RouteGeometry.haversine(first.point, entry.point) / Double(seconds) > vehicleSpeed
        {
            markVehicle(upTo: recentBox.value.count - 1, speed: vehicleSpeed)
        }
        if recentStart >= 1024 {
            recentBox.value.removeFirst(recentStart)
            recentStart = 0
        }
    }

    /// Marks the drive inside the vehicle window `recent[recentStart...last]`: the window's
    /// average only says a vehicle was in it, so its ends are refined by each step's own speed.
    /// From the first point the window reaches by a step faster than `speed` to the last it
    /// leaves by one, every taken point is the vehicle's; the points around them, reached and
    /// left on foot, stay active. A window whose one fast step is its only step (fixes minutes
    /// apart) marks the point that step reaches.
    private func markVehicle(upTo last: Int, speed: Double) {
        let recent = recentBox.value
        func isFast(_ k: Int) -> Bool { Self.speed(from: recent[k - 1], to: recent[k]) > speed }   // into recent[k]
        guard var from = (recentStart + 1...last).first(where: isFast) else { return }
        var to = (recentStart + 1...last).last(where: isFast)! - 1
        if to < from { to = from }
        from = Swift.max(recent[from].number, base + head)
        to = recent[to].number
        // Entries before `base + head` are out already: a window longer than the horizon (fixes
        // minutes apart) cannot reach them.
        guard from <= to else { return }
        for k in from...to where self[k].state == .active { self[k].state = .vehicle }
    }
}
