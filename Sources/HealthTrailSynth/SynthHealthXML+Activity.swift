/// Movement: steps and distance from two devices, energy, flights, exercise and stand.
extension SynthHealthXML {
    /// One pedometer sample: UTC span, steps, and whether it was running (longer strides).
    package struct StepSample { var start: Int; var end: Int; var steps: Int; var running: Bool }

    /// The next midnight of the export's offset after `t` (UTC): cumulative Watch samples never
    /// straddle one, so their per-day totals do not depend on how a reader splits a sample.
    @inline(__always)
    package func nextExportMidnight(_ t: Int) -> Int {
        (SynthCalendar.floorDiv(t + offset, 86_400) + 1) * 86_400 - offset
    }

    /// The step samples one device writes on a day. Both the StepCount and the
    /// DistanceWalkingRunning passes call it, so distance samples match step samples one for
    /// one, as HealthKit's pedometer writes them.
    ///
    /// The Watch's samples never overlap one another. The iPhone's are made from the Watch's:
    /// it misses the walks it was not carried on, and chops the others into longer, unaligned
    /// samples (one to three Watch samples merged, or one split in two, shrunk by a few seconds
    /// at each end) with counts up to 15% off. Each phone sample thus lies entirely within time
    /// the Watch covers, so de-duplication by source priority leaves exactly the Watch's totals.
    package func stepSamples(_ plan: SynthDayPlan, phone: Bool) -> [StepSample] {
        var r = rng(.steps, plan.index * 2)
        var watch: [StepSample] = []
        watch.reserveCapacity(256)
        // Where each walk's run of contiguous samples begins, and whether the phone tends to stay
        // behind on it (runs: 0.6, other workouts: 0.3, walks in daily life: 0.15).
        var runs: [(first: Int, skip: Double)] = []
        func span(_ a: Int, _ b: Int, _ cadence: Int, skip: Double, _ r: inout SynthRandom) {
            runs.append((watch.count, skip))
            var t = a
            while t < b - 10 {
                let len = Swift.min(r.int(45, 180), b - t, nextExportMidnight(t) - t)
                let steps = Swift.max(1, Int(Double(cadence * len) / 60 * r.double(0.86, 1.1)))
                watch.append(.init(start: t, end: t + len, steps: steps, running: cadence > 140))
                t += len
            }
        }
        for b in plan.bouts { span(b.start, b.end, b.cadence, skip: 0.15, &r) }
        for w in plan.workouts where w.activity.cadence > 0 {
            let skip = w.activity == .running ? 0.6 : 0.3
            if w.paused {
                span(w.start, w.pauseStart, w.activity.cadence, skip: skip, &r)
                span(w.pauseEnd, w.end, w.activity.cadence, skip: skip, &r)
            } else {
                span(w.start, w.end, w.activity.cadence, skip: skip, &r)
            }
        }
        // Pottering about the house between walks (never over a walk, a workout, a nap or another).
        let walked = watch.count
        var potter: [(Int, Int)] = []
        for _ in 0..<r.int(8, 16) {
            let t = plan.wake + r.int(0, plan.bed - plan.wake - 200)
            let e = Swift.min(t + r.int(30, 150), nextExportMidnight(t))
            let steps = r.int(8, 60)
            if e - t < 20 || plan.bouts.contains(where: { $0.start < e && $0.end > t })
                || plan.workouts.contains(where: { $0.start < e && $0.end > t })
                || plan.hasNap && plan.napStart < e && plan.napEnd > t
                || potter.contains(where: { $0.0 < e && $0.1 > t })
            {
                continue
            }
            potter.append((t, e))
            watch.append(.init(start: t, end: e, steps: steps, running: false))
        }
        guard phone else { return watch }

        var p = rng(.steps, plan.index * 2 + 1)
        var out: [StepSample] = []
        out.reserveCapacity(watch.count)
        /// A phone sample over `watch[i..<j]` (contiguous, one export day), shrunk inside it.
        func emit(_ a: Int, _ b: Int, _ steps: Int, _ running: Bool, _ p: inout SynthRandom) {
            let trim = Swift.min(15, (b - a) / 5)
            let s = a + p.int(0, trim), e = b - p.int(0, trim)
            let n = Swift.max(1, Int(Double(steps) * p.double(0.85, 1.15)))
            out.append(.init(start: s, end: e, steps: n, running: running))
        }
        for (k, run) in runs.enumerated() {
            let end = k + 1 < runs.count ? runs[k + 1].first : walked
            if p.chance(run.skip) || run.first >= end { continue }
            var i = run.first
            while i < end {
                var j = i + 1
                let want = p.int(1, 3)
                let day = SynthCalendar.floorDiv(watch[i].start + offset, 86_400)
                var steps = watch[i].steps
                while j < end && j - i < want && SynthCalendar.floorDiv(watch[j].start + offset, 86_400) == day {
                    steps += watch[j].steps
                    j += 1
                }
                let a = watch[i].start, b = watch[j - 1].end
                if j == i + 1 && b - a >= 90 && p.chance(0.25) {
                    let cut = a + (b - a) * p.int(30, 70) / 100
                    let first = steps * (cut - a) / (b - a)
                    emit(a, cut, first, watch[i].running, &p)
                    emit(cut, b, steps - first, watch[i].running, &p)
                } else {
                    emit(a, b, steps, watch[i].running, &p)
                }
                i = j
            }
        }
        for i in walked..<watch.count where p.chance(0.4) {
            emit(watch[i].start, watch[i].end, watch[i].steps, false, &p)
        }
        return out
    }

    /// StepCount (or DistanceWalkingRunning) from the Watch, then from the iPhone.
    package func steps(_ plan: SynthDayPlan, distance: Bool) throws {
        var r = rng(distance ? .distance : .steps, 1_000_000 + plan.index)
        for phone in [false, true] {
            let source: SynthSource = phone ? .iPhone : .watch
            for sample in stepSamples(plan, phone: phone) {
                try buf.flushIfFull()
                let (start, end, steps) = (sample.start, sample.end, sample.steps)
                let creation = end + r.int(30, 900)
                if distance {
                    // Whole centimetres (5 decimals of km), so the day's metres are exact.
                    let cm = (Double(steps) * (sample.running ? 108 : 74)).rounded()
                    quantity(
                        .distanceWalkingRunning, source, day: plan.index, device: true, unit: "km",
                        creation: creation, start: start, end: end, cm / 100_000, 5, &r)
                    if !phone {
                        exportDayDistanceCm[SynthCalendar.floorDiv(start + offset, 86_400), default: 0] += Int(cm)
                        localDayDistanceCm[localDay(start, near: plan.index).day, default: 0] += Int(cm)
                    }
                } else {
                    quantity(
                        .stepCount, source, day: plan.index, device: true, unit: "count",
                        creation: creation, start: start, end: end, Double(steps), 0, &r)
                    if !phone {
                        let local = start + plan.zone.offset(utc: start)
                        watchSteps[SynthCalendar.floorDiv(local, 86_400), default: 0] += steps
                        exportDaySteps[SynthCalendar.floorDiv(start + offset, 86_400), default: 0] += steps
                        localDaySteps[localDay(start, near: plan.index).day, default: 0] += steps
                    }
                }
            }
            try buf.flushIfFull()
        }
    }

    /// Resting energy from the Watch every 5–15 minutes, around the clock.
    package func basalEnergy(_ plan: SynthDayPlan) throws {
        var r = rng(.basal, plan.index)
        var t = plan.start + r.int(0, 300)
        while t < plan.end {
            try buf.flushIfFull()
            let dt = r.int(240, 720)
            quantity(
                .basalEnergyBurned, .watch, day: plan.index, device: true, unit: "kcal",
                creation: t + dt + r.int(10, 600), start: t, end: t + dt,
                Double(dt) / 60 * r.double(0.95, 1.15), 3, &r)
            t += dt
        }
    }

    /// Active energy from the Watch about every minute while awake (sparser at night), plus
    /// copies from third-party apps in `Cal` and `kJ` that overlap the Watch's workouts.
    package func activeEnergy(_ plan: SynthDayPlan) throws {
        var r = rng(.active, plan.index)
        // Back to back from the day's first instant to its last, cut at export-offset midnights:
        // the Watch covers all time, so every third-party copy lies within its samples.
        var t = plan.start
        var total = 0.0
        while t < plan.end {
            try buf.flushIfFull()
            let asleep = t >= plan.sleepStart && t < plan.sleepEnd
            let awake = t >= plan.wake && t < plan.bed
            let dt = Swift.min(
                asleep ? r.int(300, 720) : (awake ? r.int(40, 70) : r.int(120, 300)),
                plan.end - t, nextExportMidnight(t) - t)
            let rate: Double
            if let w = plan.workout(at: t) {
                rate = w.activity.kcalPerMinute * r.double(0.8, 1.2)
            } else if plan.bout(at: t) != nil {
                rate = r.double(2.6, 4.0)
            } else {
                rate = asleep ? r.double(0.02, 0.08) : (awake ? r.double(0.15, 0.9) : r.double(0.08, 0.3))
            }
            let milli = (rate * Double(dt) / 60 * 1_000).rounded()
            let kcal = milli / 1_000
            total += kcal
            exportDayActiveMilli[SynthCalendar.floorDiv(t + offset, 86_400), default: 0] += Int(milli)
            localDayActiveMilli[localDay(t, near: plan.index).day, default: 0] += Int(milli)
            quantity(
                .activeEnergyBurned, .watch, day: plan.index, device: true, unit: "kcal",
                creation: t + dt + r.int(5, 600), start: t, end: t + dt, kcal, 3, &r)
            t += dt
        }
        dayActiveKcal[plan.index] = total
        for (k, w) in plan.workouts.enumerated() {
            if w.activity == .cycling && r.chance(0.7) {
                quantity(
                    .activeEnergyBurned, .zwift, day: plan.index, device: false, unit: "kJ",
                    creation: w.end + r.int(60, 900), start: w.start, end: w.end, w.energyKcal * 4.184, 1, &r)
            } else if w.activity == .running && (r.chance(0.5) || plan.index == 0 && k == 0) {
                quantity(
                    .activeEnergyBurned, .strava, day: plan.index, device: false, unit: "Cal",
                    creation: w.end + r.int(60, 900), start: w.start, end: w.end, w.energyKcal, 0, &r)
            }
        }
    }

    /// Flights of stairs, counted by both devices: the iPhone counts some of the Watch's climbs
    /// again, always within the Watch's span (so the Watch's figure is the de-duplicated one).
    package func flights(_ plan: SynthDayPlan) {
        var r = rng(.flights, plan.index)
        var climbs: [(start: Int, end: Int, count: Int)] = []
        for _ in 0..<r.int(2, 7) {
            let t = plan.wake + r.int(0, plan.bed - plan.wake - 300)
            let e = Swift.min(t + r.int(10, 120), nextExportMidnight(t))
            let n = r.int(1, 3)
            if e - t < 10 || climbs.contains(where: { $0.start < e && $0.end > t }) { continue }
            climbs.append((t, e, n))
            quantity(
                .flightsClimbed, .watch, day: plan.index, device: true, unit: "count",
                creation: e + r.int(30, 900), start: t, end: e, Double(n), 0, &r)
            exportDayFlights[SynthCalendar.floorDiv(t + offset, 86_400), default: 0] += n
            localDayFlights[localDay(t, near: plan.index).day, default: 0] += n
        }
        for c in climbs where r.chance(0.6) {
            let trim = (c.end - c.start) / 4
            let s = c.start + r.int(0, trim), e = c.end - r.int(0, trim)
            quantity(
                .flightsClimbed, .iPhone, day: plan.index, device: true, unit: "count",
                creation: e + r.int(30, 900), start: s, end: e, Double(Swift.max(1, c.count + r.int(-1, 1))), 0, &r)
        }
    }

    /// One-minute exercise samples during workouts and brisk walks.
    package func exerciseTime(_ plan: SynthDayPlan) throws {
        var r = rng(.exercise, plan.index)
        var minutes = 0
        func span(_ a: Int, _ b: Int, _ r: inout SynthRandom) throws {
            var t = a
            while t + 60 <= b {
                try buf.flushIfFull()
                quantity(
                    .appleExerciseTime, .watch, day: plan.index, device: true, unit: "min",
                    creation: t + 60 + r.int(5, 300), start: t, end: t + 60, 1, 0, &r)
                minutes += 1
                t += 60
            }
        }
        for w in plan.workouts { try span(w.start, w.end, &r) }
        for b in plan.bouts where b.cadence >= 110 { try span(b.start, b.end, &r) }
        dayExerciseMinutes[plan.index] = minutes
    }

    /// Minutes of standing, a few dozen short samples through the day.
    package func standTime(_ plan: SynthDayPlan) throws {
        var r = rng(.standTime, plan.index)
        var t = plan.wake + r.int(0, 1_800)
        while t < plan.bed {
            let len = r.int(1, 4) * 60
            quantity(
                .appleStandTime, .watch, day: plan.index, device: true, unit: "min",
                creation: t + len + r.int(30, 900), start: t, end: t + len, Double(len / 60), 0, &r)
            t += len + r.int(900, 3_600)
        }
    }

    /// Stood or idle, for each local hour the person is up (a category: no unit).
    package func standHour(_ plan: SynthDayPlan) throws {
        var r = rng(.standHour, plan.index)
        let firstHour = (plan.wake - plan.localMidnight) / 3_600
        let lastHour = (plan.bed - plan.localMidnight) / 3_600
        var stood = 0
        for h in Swift.max(0, firstHour)...Swift.max(0, lastHour) {
            let s = plan.localMidnight + h * 3_600
            let up = r.chance(0.78) || plan.workouts.contains { $0.start < s + 3_600 && $0.end > s }
            open(.appleStandHour, .watch, day: plan.index, device: true, &r)
            dates(s + 3_600 + r.int(60, 900), s, s + 3_600)
            value(up ? "HKCategoryValueAppleStandHourStood" : "HKCategoryValueAppleStandHourIdle")
            if up { stood += 1 }
        }
        dayStoodHours[plan.index] = stood
    }
}
