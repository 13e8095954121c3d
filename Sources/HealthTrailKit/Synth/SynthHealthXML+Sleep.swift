/// Nightly sleep: the iPhone's in-bed span and the Watch's samples within it.
extension SynthHealthXML {
    /// In-bed and asleep samples overlap by design; before the cutoff (first quarter of the days)
    /// the Watch writes legacy `Asleep` spans, after it the iOS 16 stages.
    func sleep(_ plan: SynthDayPlan) throws {
        guard plan.hasSleep else { return }
        var r = rng(.sleep, plan.index)
        let inBedStart = plan.sleepStart - r.int(300, 1_200)
        let inBedEnd = plan.sleepEnd + r.int(60, 600)
        open(.sleepAnalysis, .iPhone, day: plan.index, device: false, &r)
        dates(inBedEnd + r.int(60, 1_800), inBedStart, inBedEnd)
        value("HKCategoryValueSleepAnalysisInBed")

        var t = plan.sleepStart + r.int(300, 1_200)
        if plan.legacySleep {
            while t < plan.sleepEnd - 600 {
                let len = Swift.min(r.int(2_400, 7_200), plan.sleepEnd - t)
                open(.sleepAnalysis, .watch, day: plan.index, device: true, &r)
                dates(plan.sleepEnd + r.int(60, 900), t, t + len)
                value("HKCategoryValueSleepAnalysisAsleep")
                t += len + r.int(120, 600)
            }
            return
        }
        let night = Double(plan.sleepEnd - plan.sleepStart)
        var phase = 0
        while t < plan.sleepEnd - 60 {
            try buf.flushIfFull()
            let progress = Double(t - plan.sleepStart) / night
            var minutes: Int
            let stage: StaticString
            switch phase {
            case 0: stage = "HKCategoryValueSleepAnalysisAsleepCore"; minutes = r.int(15, 40)
            case 1: stage = "HKCategoryValueSleepAnalysisAsleepDeep"; minutes = Swift.max(4, Int(Double(r.int(10, 35)) * (1 - progress)))
            case 2: stage = "HKCategoryValueSleepAnalysisAsleepCore"; minutes = r.int(10, 30)
            case 3: stage = "HKCategoryValueSleepAnalysisAsleepREM"; minutes = r.int(8, 20) + Int(progress * 20)
            default: stage = "HKCategoryValueSleepAnalysisAwake"; minutes = r.int(1, 4)
            }
            phase = (phase + 1) % 5
            if phase == 0 && !r.chance(0.5) { continue }   // not every cycle ends awake
            let len = Swift.min(minutes * 60 + r.int(0, 59), plan.sleepEnd - t)
            open(.sleepAnalysis, .watch, day: plan.index, device: true, &r)
            dates(plan.sleepEnd + r.int(60, 900), t, t + len)
            value(stage, children: true)
            metadata("HKTimeZone", plan.zone.identifier)
            buf.lit(" </Record>\n")
            t += len
        }
    }
}
