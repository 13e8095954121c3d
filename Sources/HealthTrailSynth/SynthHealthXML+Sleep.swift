/// Nightly sleep: the iPhone's in-bed span and the Watch's samples within it, a third-party
/// app's copy of one night, and afternoon naps.
extension SynthHealthXML {
    /// In-bed and asleep samples overlap by design; before the cutoff (first quarter of the days)
    /// the Watch writes legacy `Asleep` spans, after it the iOS 16 stages. Every sleep sample
    /// starts and ends on a whole minute, so minute totals are exact.
    package func sleep(_ plan: SynthDayPlan) throws {
        if plan.hasSleep { try night(plan) }
        if plan.hasNap { nap(plan) }
    }

    private func night(_ plan: SynthDayPlan) throws {
        var r = rng(.sleep, plan.index)
        let sleepStart = SynthCalendar.floorDiv(plan.sleepStart, 60) * 60
        let sleepEnd = SynthCalendar.floorDiv(plan.sleepEnd, 60) * 60
        let inBedStart = sleepStart - r.int(5, 20) * 60
        let inBedEnd = sleepEnd + r.int(1, 10) * 60
        open(.sleepAnalysis, .iPhone, day: plan.index, device: false, &r)
        dates(inBedEnd + r.int(60, 1_800), inBedStart, inBedEnd)
        value("HKCategoryValueSleepAnalysisInBed")
        // The night is named by the (export-offset) date of the morning it ends.
        let key = SynthCalendar.floorDiv(sleepEnd + offset, 86_400)
        var inBed = [(inBedStart, inBedEnd)]
        var asleep = 0

        var t = sleepStart + r.int(5, 20) * 60
        if plan.legacySleep {
            while t < sleepEnd - 600 {
                let len = Swift.min(r.int(40, 120) * 60, sleepEnd - t)
                open(.sleepAnalysis, .watch, day: plan.index, device: true, &r)
                dates(sleepEnd + r.int(60, 900), t, t + len)
                value("HKCategoryValueSleepAnalysisAsleep")
                asleep += len / 60
                t += len + r.int(2, 10) * 60
            }
        } else {
            let night = Double(sleepEnd - sleepStart)
            var phase = 0
            var stages = (core: 0, deep: 0, rem: 0)
            while t < sleepEnd - 60 {
                try buf.flushIfFull()
                let progress = Double(t - sleepStart) / night
                var minutes: Int
                let stage: StaticString
                switch phase {
                case 0: stage = "HKCategoryValueSleepAnalysisAsleepCore"; minutes = r.int(15, 40)
                case 1: stage = "HKCategoryValueSleepAnalysisAsleepDeep"; minutes = Swift.max(4, Int(Double(r.int(10, 35)) * (1 - progress)))
                case 2: stage = "HKCategoryValueSleepAnalysisAsleepCore"; minutes = r.int(10, 30)
                case 3: stage = "HKCategoryValueSleepAnalysisAsleepREM"; minutes = r.int(8, 20) + Int(progress * 20)
                default: stage = "HKCategoryValueSleepAnalysisAwake"; minutes = r.int(1, 4)
                }
                let awake = phase == 4
                let stagePhase = phase
                phase = (phase + 1) % 5
                if phase == 0 && !r.chance(0.5) { continue }   // not every cycle ends awake
                let len = Swift.min(minutes * 60, sleepEnd - t)
                open(.sleepAnalysis, .watch, day: plan.index, device: true, &r)
                dates(sleepEnd + r.int(60, 900), t, t + len)
                value(stage, children: true)
                metadata("HKTimeZone", plan.zone.identifier)
                buf.lit(" </Record>\n")
                if !awake { asleep += len / 60 }
                switch stagePhase {
                case 0, 2: stages.core += len / 60
                case 1: stages.deep += len / 60
                case 3: stages.rem += len / 60
                default: break
                }
                t += len
            }
            stageMinutesByNight[key, default: (0, 0, 0)].core += stages.core
            stageMinutesByNight[key, default: (0, 0, 0)].deep += stages.deep
            stageMinutesByNight[key, default: (0, 0, 0)].rem += stages.rem
        }

        if plan.sleepApp {
            // Sleep Cycle on the phone tracked the same night, in the legacy style: its own in-bed
            // span and a few long `Asleep` spans. The Watch outranks it, so the truth ignores them.
            var a = SynthRandom(
                seed: options.seed, stream: SynthSchedule.Stream.sleepApp.rawValue,
                index: UInt64(plan.index))
            let appStart = sleepStart - a.int(2, 25) * 60
            let appEnd = sleepEnd + a.int(0, 15) * 60
            open(.sleepAnalysis, .sleepCycle, day: plan.index, device: false, &a)
            dates(appEnd + a.int(30, 600), appStart, appEnd)
            value("HKCategoryValueSleepAnalysisInBed")
            inBed.append((appStart, appEnd))
            var u = appStart + a.int(8, 30) * 60
            let last = appEnd - a.int(3, 12) * 60
            while u < last - 300 {
                let len = Swift.min(a.int(70, 200) * 60, last - u)
                open(.sleepAnalysis, .sleepCycle, day: plan.index, device: false, &a)
                dates(appEnd + a.int(30, 600), u, u + len)
                value("HKCategoryValueSleepAnalysisAsleep")
                u += len + a.int(4, 25) * 60
            }
        }

        // In bed: the union of every source's spans, in minutes.
        inBed.sort { $0.0 < $1.0 }
        var union = 0, reach = Int.min
        for (s, e) in inBed {
            let from = Swift.max(s, reach)
            if e > from { union += e - from }
            reach = Swift.max(reach, e)
        }
        asleepMinutesByNight[key, default: 0] += asleep
        inBedMinutesByNight[key, default: 0] += union / 60
    }

    /// An afternoon nap on the Watch: one asleep span (legacy or core), no in-bed sample.
    private func nap(_ plan: SynthDayPlan) {
        var r = rng(.nap, 1_000_000 + plan.index)
        open(.sleepAnalysis, .watch, day: plan.index, device: true, &r)
        dates(plan.napEnd + r.int(60, 600), plan.napStart, plan.napEnd)
        if plan.legacySleep {
            value("HKCategoryValueSleepAnalysisAsleep")
        } else {
            value("HKCategoryValueSleepAnalysisAsleepCore", children: true)
            metadata("HKTimeZone", plan.zone.identifier)
            buf.lit(" </Record>\n")
        }
        napMinutesByDay[SynthCalendar.floorDiv(plan.napEnd + offset, 86_400), default: 0] += (plan.napEnd - plan.napStart) / 60
    }
}
