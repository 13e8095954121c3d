/// Every day's plan for a whole archive, decided up front from the seed.
///
/// Holding the plans costs a few hundred bytes a day (not the XML), and lets every pass, the
/// workouts and the GPX files agree without regenerating anything.
package struct SynthSchedule {
    package var days: [SynthDayPlan] = []
    /// When the export was made (UTC), the morning after the last day.
    package var exportInstant = 0
    /// The orphan GPX file (no workout names it), when asked for.
    package var orphan: SynthWorkoutPlan?

    /// Random stream numbers, one per purpose, so passes never share a generator.
    package enum Stream: UInt64 {
        case plan = 1, dayOrder, heartRate, steps, distance, basal, active, flights, exercise
        case standTime, standHour, resting, walkingHR, hrv, sleep, bodyMass, height, temperature
        case oxygen, bloodPressure, workout, route, sidecar
        case nap, sleepApp
    }

    package init(options: SynthOptions) {
        let n = max(options.days, 0)
        let first = SynthCalendar.days(
            year: options.firstDay.year, month: options.firstDay.month,
            day: options.firstDay.day)
        // A run of days in New York mid-way (from the second day in small archives).
        let tripStart = n >= 2 ? max(1, n / 2) : Int.max
        let tripLength = max(1, min(9, n / 10))
        func zone(_ i: Int) -> SynthTimeZone { i >= tripStart && i < tripStart + tripLength ? .newYork : .paris }
        func midnight(_ i: Int, _ z: SynthTimeZone) -> Int { z.utc(local: (first + i) * 86_400) }
        // A day starts at the later of its local midnight and the previous zone's midnight, so
        // flying west stretches the last Paris day and flying east starts Paris late.
        func windowStart(_ i: Int) -> Int {
            let here = midnight(i, zone(i))
            return i == 0 ? here : max(here, midnight(i, zone(i - 1)))
        }

        var streamCounter: UInt64 = 0
        for i in 0..<n {
            var rng = SynthRandom(seed: options.seed, stream: Stream.plan.rawValue, index: UInt64(i))
            let z = zone(i)
            let mid = midnight(i, z)
            var plan = SynthDayPlan(
                index: i, dayNumber: first + i, zone: z, localMidnight: mid,
                start: windowStart(i), end: windowStart(i + 1))
            if i == n - 1 { plan.end = max(plan.end, midnight(i + 1, z)) }
            plan.legacySleep = i < n / 4
            plan.bloodPressure = i % 4 == 1

            // Sleep: to bed around 23:00 the evening before, up around 07:00. The night after
            // the flight home from New York is spent on the plane: no sleep samples.
            let redEye = i > 0 && zone(i - 1) == .newYork && z == .paris
            if !redEye {
                plan.sleepStart = mid - rng.int(25, 85) * 60 - rng.int(0, 59)
                plan.sleepEnd = mid + rng.int(390, 470) * 60 + rng.int(0, 59)
                plan.wake = plan.sleepEnd + rng.int(4, 20) * 60
            } else {
                plan.wake = plan.start + rng.int(20, 60) * 60
            }
            plan.bed = mid + rng.int(1_335, 1_365) * 60   // 22:15–22:45

            // Workouts: about four a week; the first two days always have an outdoor one each,
            // one in each style, so even tiny archives exercise routes and both totals styles.
            let weekday = SynthCalendar.weekday(first + i)
            var kinds: [SynthActivity] = []
            if i == 0 {
                kinds = [.running]
            } else if i == 1 {
                kinds = [.walking]
            } else {
                let r = rng.unit()
                let count = r < 0.45 ? 1 : (r < 0.52 ? 2 : 0)
                for _ in 0..<count {
                    if (weekday == 0 || weekday == 6) && rng.chance(0.3) { kinds.append(.hiking); continue }
                    let k = rng.unit()
                    kinds.append(k < 0.32 ? .running : k < 0.52 ? .walking : k < 0.72 ? .cycling : k < 0.86 ? .swimming : .hiit)
                }
            }
            // The first New York day ends with an evening workout after 19:00 local: the export
            // offset already puts its dates on the next day, while its HKTimeZone does not.
            let nyEvening = i == tripStart && tripStart < n
            if nyEvening && (kinds.isEmpty || kinds.last == .hiking) { kinds.append(.walking) }
            var previousEnd = plan.wake
            for (slot, kind) in kinds.enumerated() {
                var w = SynthWorkoutPlan(activity: kind)
                w.zone = z
                let minutes = rng.int(kind.minutes.0, kind.minutes.1)
                if kind == .hiking {
                    w.start = max(previousEnd, mid + rng.int(570, 630) * 60) + rng.int(0, 59)
                } else if !(nyEvening && slot == kinds.count - 1)
                    && (kinds.count >= 2 && slot == 0 || kinds.count == 1 && i != 0 && rng.chance(0.4))
                {
                    w.start = plan.wake + rng.int(10, 40) * 60 + rng.int(0, 59)
                } else {
                    let evening = nyEvening && slot == kinds.count - 1 ? rng.int(1_145, 1_180) : rng.int(1_050, 1_155)
                    w.start = max(previousEnd + 3_600, mid + evening * 60 + rng.int(0, 59))
                }
                w.end = w.start + minutes * 60 + rng.int(0, 59)
                if w.end > plan.bed - 600 { w.end = plan.bed - 600 }
                guard w.end - w.start >= 600 else { continue }
                previousEnd = w.end
                if kind != .swimming && kind != .hiit && rng.chance(0.35) {
                    w.pauseStart = w.start + Int(Double(w.seconds) * rng.double(0.3, 0.7))
                    w.pauseEnd = w.pauseStart + rng.int(30, 180)
                }
                w.oldStyle = i == 1 ? true : (i == 0 ? false : rng.chance(0.5))
                w.multiPart = !w.oldStyle && (kind == .running || kind == .cycling) && rng.chance(0.2)
                w.miles = i == 1 || rng.chance(0.25)
                w.energyUnit = i == 1 ? 2 : (rng.chance(0.6) ? 0 : (rng.chance(0.6) ? 1 : 2))
                let moving = Double(w.movingSeconds)
                w.distanceKm = kind.speed * moving * rng.double(0.93, 1.07) / 1_000
                w.energyKcal = kind.kcalPerMinute * moving / 60 * rng.double(0.9, 1.1)
                w.stream = streamCounter
                streamCounter += 1
                if options.includeRoutes && kind.outdoor {
                    w.hasRoute = true
                    w.routeFirst = w.start + rng.int(1, 4)
                    w.routeLast = w.end - rng.int(1, 3)
                    w.routeFileName = SynthWorkoutPlan.routeName(utc: w.routeLast, zone: z)
                }
                plan.workouts.append(w)
            }

            // Walks in daily life: commute, errands, lunch, evening, none inside a workout.
            let boutCount = rng.int(8, 14)
            for _ in 0..<boutCount {
                let s = plan.wake + Int(Double(plan.bed - plan.wake - 3_600) * rng.unit())
                let e = s + rng.int(3, 35) * 60 + rng.int(0, 59)
                if plan.workouts.contains(where: { e > $0.start - 120 && s < $0.end + 120 }) { continue }
                if plan.bouts.contains(where: { e > $0.start && s < $0.end }) { continue }
                plan.bouts.append(.init(start: s, end: e, cadence: rng.int(85, 122)))
            }
            plan.bouts.sort { $0.start < $1.start }
            days.append(plan)
        }

        // Exactly one night also recorded by a third-party sleep app (from three days on): the
        // first staged Paris night from a quarter of the way in.
        if n >= 3 {
            let eligible = { (p: SynthDayPlan) in p.hasSleep && !p.legacySleep }
            if let k = days.firstIndex(where: { $0.index >= n / 4 && eligible($0) && $0.zone == .paris })
                ?? days.firstIndex(where: eligible)
            {
                days[k].sleepApp = true
            }
        }
        // Afternoon naps (around 14:00 local, ~25 min, Watch only): from four days on, one on the
        // last ordinary Paris day (or, failing that, the latest day it fits), and now and then one
        // at a weekend.
        func nap(_ k: Int, _ r: inout SynthRandom) -> Bool {
            let p = days[k]
            let s = p.localMidnight + (13 * 60 + 45 + r.int(0, 30)) * 60
            let e = s + r.int(22, 28) * 60
            // (Not at the orphan route's walk either.)
            guard !(options.includeBrokenRouteLinks && k == n / 2), s > p.wake + 3_600, e < p.bed - 3_600,
                !p.workouts.contains(where: { $0.start < e + 600 && $0.end > s - 600 })
            else { return false }
            days[k].napStart = s
            days[k].napEnd = e
            days[k].bouts.removeAll { $0.start < e + 300 && $0.end > s - 300 }
            return true
        }
        if n >= 4 {
            let preferred = { (p: SynthDayPlan) in p.zone == .paris && !p.sleepApp && p.hasSleep }
            let order = (0..<n).reversed().filter { preferred(days[$0]) } + (0..<n).reversed().filter { !preferred(days[$0]) }
            for k in order {
                var r = SynthRandom(seed: options.seed, stream: Stream.nap.rawValue, index: UInt64(k))
                if nap(k, &r) { break }
            }
        }
        for k in 0..<n where !days[k].hasNap && [0, 6].contains(SynthCalendar.weekday(days[k].dayNumber)) {
            var r = SynthRandom(seed: options.seed, stream: Stream.nap.rawValue, index: UInt64(k))
            if r.chance(0.3) { _ = nap(k, &r) }
        }

        if options.includeBrokenRouteLinks && options.includeRoutes {
            // The last routed workout loses its file; an orphan walk appears on the middle day.
            if let d = days.lastIndex(where: { $0.workouts.contains { $0.hasRoute } }),
                let w = days[d].workouts.lastIndex(where: { $0.hasRoute })
            {
                days[d].workouts[w].routeMissing = true
            }
            if !days.isEmpty {
                let day = days[n / 2]
                var o = SynthWorkoutPlan(activity: .walking)
                o.zone = day.zone
                o.start = day.localMidnight + 14 * 3_600 + 10 * 60
                o.end = o.start + 15 * 60
                o.hasRoute = true
                o.routeFirst = o.start
                o.routeLast = o.end - 1
                o.routeFileName = SynthWorkoutPlan.routeName(utc: o.routeLast, zone: o.zone)
                o.stream = streamCounter
                orphan = o
            }
        }
        exportInstant = SynthTimeZone.paris.utc(local: (first + n) * 86_400) + 9 * 3_600 + 12 * 60 + 37
    }
}
