/// Movement: steps and distance from two devices, energy, flights, exercise and stand.
extension SynthHealthXML {
    /// Walks the step samples one device writes on a day: `body(start, end, steps, running)`.
    /// Both the StepCount and the DistanceWalkingRunning passes call it, so distance samples
    /// match step samples one for one, as HealthKit's pedometer writes them.
    func stepSamples(_ plan: SynthDayPlan, phone: Bool, _ body: (Int, Int, Int, Bool) throws -> Void) throws {
        var r = rng(.steps, plan.index * 2 + (phone ? 1 : 0))
        // The phone chops walks into longer, unaligned samples and misses the walks it was not
        // carried on, so its totals differ a little from the Watch's for the same minutes.
        let minLength = phone ? 150 : 45, maxLength = phone ? 600 : 180
        let low = phone ? 0.8 : 0.86, high = phone ? 1.05 : 1.1
        func span(_ a: Int, _ b: Int, _ cadence: Int, _ r: inout SynthRandom) throws {
            var t = a
            while t < b - 10 {
                let len = Swift.min(r.int(minLength, maxLength), b - t)
                let steps = Swift.max(1, Int(Double(cadence * len) / 60 * r.double(low, high)))
                try body(t, t + len, steps, cadence > 140)
                t += len
            }
        }
        for b in plan.bouts {
            if phone && r.chance(0.15) { continue }
            let shift = phone ? r.int(-40, 40) : 0
            try span(b.start + shift, b.end + shift, b.cadence, &r)
        }
        for w in plan.workouts where w.activity.cadence > 0 {
            if phone && !r.chance(w.activity == .running ? 0.4 : 0.7) { continue }
            if w.paused {
                try span(w.start, w.pauseStart, w.activity.cadence, &r)
                try span(w.pauseEnd, w.end, w.activity.cadence, &r)
            } else {
                try span(w.start, w.end, w.activity.cadence, &r)
            }
        }
        // Pottering about the house between walks.
        for _ in 0..<(phone ? r.int(4, 9) : r.int(8, 16)) {
            let t = plan.wake + r.int(0, plan.bed - plan.wake - 200)
            if plan.bout(at: t) != nil || plan.workout(at: t) != nil { continue }
            try body(t, t + r.int(30, 150), r.int(8, 60), false)
        }
    }

    /// StepCount (or DistanceWalkingRunning) from the Watch, then from the iPhone.
    func steps(_ plan: SynthDayPlan, distance: Bool) throws {
        var r = rng(distance ? .distance : .steps, 1_000_000 + plan.index)
        for phone in [false, true] {
            let source: SynthSource = phone ? .iPhone : .watch
            var localDays: [(day: Int, steps: Int)] = []
            try stepSamples(plan, phone: phone) { start, end, steps, running in
                try self.buf.flushIfFull()
                let creation = end + r.int(30, 900)
                if distance {
                    let km = Double(steps) * (running ? 1.08 : 0.74) / 1_000
                    self.quantity(.distanceWalkingRunning, source, day: plan.index, device: true, unit: "km",
                                  creation: creation, start: start, end: end, km, 5, &r)
                } else {
                    self.quantity(.stepCount, source, day: plan.index, device: true, unit: "count",
                                  creation: creation, start: start, end: end, Double(steps), 0, &r)
                    if !phone {
                        let local = start + plan.zone.offset(utc: start)
                        localDays.append((SynthCalendar.floorDiv(local, 86_400), steps))
                    }
                }
            }
            for (day, n) in localDays { watchSteps[day, default: 0] += n }
            try buf.flushIfFull()
        }
    }

    /// Resting energy from the Watch every 5–15 minutes, around the clock.
    func basalEnergy(_ plan: SynthDayPlan) throws {
        var r = rng(.basal, plan.index)
        var t = plan.start + r.int(0, 300)
        while t < plan.end {
            try buf.flushIfFull()
            let dt = r.int(240, 720)
            quantity(.basalEnergyBurned, .watch, day: plan.index, device: true, unit: "kcal",
                     creation: t + dt + r.int(10, 600), start: t, end: t + dt,
                     Double(dt) / 60 * r.double(0.95, 1.15), 3, &r)
            t += dt
        }
    }

    /// Active energy from the Watch about every minute while awake (sparser at night), plus
    /// copies from third-party apps in `Cal` and `kJ` that overlap the Watch's workouts.
    func activeEnergy(_ plan: SynthDayPlan) throws {
        var r = rng(.active, plan.index)
        var t = plan.start + r.int(0, 60)
        var total = 0.0
        while t < plan.end {
            try buf.flushIfFull()
            let asleep = t >= plan.sleepStart && t < plan.sleepEnd
            let awake = t >= plan.wake && t < plan.bed
            let dt = asleep ? r.int(300, 720) : (awake ? r.int(40, 70) : r.int(120, 300))
            let rate: Double
            if let w = plan.workout(at: t) {
                rate = w.activity.kcalPerMinute * r.double(0.8, 1.2)
            } else if plan.bout(at: t) != nil {
                rate = r.double(2.6, 4.0)
            } else {
                rate = asleep ? r.double(0.02, 0.08) : (awake ? r.double(0.15, 0.9) : r.double(0.08, 0.3))
            }
            let kcal = (rate * Double(dt) / 60 * 1_000).rounded() / 1_000
            total += kcal
            quantity(.activeEnergyBurned, .watch, day: plan.index, device: true, unit: "kcal",
                     creation: t + dt + r.int(5, 600), start: t, end: t + dt, kcal, 3, &r)
            t += dt
        }
        dayActiveKcal[plan.index] = total
        for (k, w) in plan.workouts.enumerated() {
            if w.activity == .cycling && r.chance(0.7) {
                quantity(.activeEnergyBurned, .zwift, day: plan.index, device: false, unit: "kJ",
                         creation: w.end + r.int(60, 900), start: w.start, end: w.end, w.energyKcal * 4.184, 1, &r)
            } else if w.activity == .running && (r.chance(0.5) || plan.index == 0 && k == 0) {
                quantity(.activeEnergyBurned, .strava, day: plan.index, device: false, unit: "Cal",
                         creation: w.end + r.int(60, 900), start: w.start, end: w.end, w.energyKcal, 0, &r)
            }
        }
    }

    /// Flights of stairs, counted by both devices.
    func flights(_ plan: SynthDayPlan) {
        var r = rng(.flights, plan.index)
        for source in [SynthSource.watch, SynthSource.iPhone] {
            for _ in 0..<r.int(2, 7) {
                let t = plan.wake + r.int(0, plan.bed - plan.wake - 300)
                let len = r.int(10, 120)
                quantity(.flightsClimbed, source, day: plan.index, device: true, unit: "count",
                         creation: t + len + r.int(30, 900), start: t, end: t + len, Double(r.int(1, 3)), 0, &r)
            }
        }
    }

    /// One-minute exercise samples during workouts and brisk walks.
    func exerciseTime(_ plan: SynthDayPlan) throws {
        var r = rng(.exercise, plan.index)
        var minutes = 0
        func span(_ a: Int, _ b: Int, _ r: inout SynthRandom) throws {
            var t = a
            while t + 60 <= b {
                try buf.flushIfFull()
                quantity(.appleExerciseTime, .watch, day: plan.index, device: true, unit: "min",
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
    func standTime(_ plan: SynthDayPlan) throws {
        var r = rng(.standTime, plan.index)
        var t = plan.wake + r.int(0, 1_800)
        while t < plan.bed {
            let len = r.int(1, 4) * 60
            quantity(.appleStandTime, .watch, day: plan.index, device: true, unit: "min",
                     creation: t + len + r.int(30, 900), start: t, end: t + len, Double(len / 60), 0, &r)
            t += len + r.int(900, 3_600)
        }
    }

    /// Stood or idle, for each local hour the person is up (a category: no unit).
    func standHour(_ plan: SynthDayPlan) throws {
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
