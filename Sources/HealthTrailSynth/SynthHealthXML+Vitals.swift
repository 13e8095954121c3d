#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Heart, body and lab-style measurements.
extension SynthHealthXML {
    /// Watch heart rate every 3½–5½ min all day, every 5 s during workouts.
    package func heartRate(_ plan: SynthDayPlan) throws {
        var r = rng(.heartRate, plan.index)
        let resting = 58 + r.double(-3, 3)
        let day = plan.index
        var t = plan.start + r.int(0, 120)
        var wi = 0
        while t < plan.end {
            try buf.flushIfFull()
            if wi < plan.workouts.count && t >= plan.workouts[wi].start {
                try denseHeartRate(plan.workouts[wi], day: day, resting: resting, &r)
                t = plan.workouts[wi].end + r.int(60, 240)
                wi += 1
                continue
            }
            let asleep = t >= plan.sleepStart && t < plan.sleepEnd
            let walking = plan.bout(at: t) != nil
            let bpm =
                asleep
                ? resting - 6 + r.gauss() * 2.5
                : walking ? resting + 38 + r.gauss() * 7 : resting + 14 + r.gauss() * 6
            // Some samples are logged late, so start dates are not in order.
            let start = r.chance(0.06) ? t - r.int(20, 200) : t
            heartRecord(
                start: start, creation: t + r.int(40, 600), bpm: bpm,
                context: r.chance(0.85) ? (walking ? 2 : (r.chance(0.7) ? 1 : 0)) : -1, day: day, &r)
            t += r.int(200, 330)
        }
    }

    package func denseHeartRate(_ w: SynthWorkoutPlan, day: Int, resting: Double, _ r: inout SynthRandom) throws {
        var u = w.start + r.int(0, 4)
        let target = w.activity.heartRate + r.double(-6, 6)
        var drift = 0.0
        var stats = workoutHR[Int(w.stream)]
        while u < w.end {
            try buf.flushIfFull()
            let warm = min(1.0, Double(u - w.start) / 300)
            drift = drift * 0.97 + r.gauss() * 1.2
            var bpm = resting + 15 + (target - resting - 15) * warm + drift
            if u >= w.pauseStart && u < w.pauseEnd { bpm -= 15 }
            bpm = bpm.rounded()
            stats.sum += bpm; stats.count += 1
            stats.min = Swift.min(stats.min, bpm); stats.max = Swift.max(stats.max, bpm)
            heartRecord(start: u, creation: u + r.int(2, 40), bpm: bpm, context: 2, day: day, &r)
            u += 5
        }
        workoutHR[Int(w.stream)] = stats
    }

    @inline(__always)
    package func heartRecord(start: Int, creation: Int, bpm: Double, context: Int, day: Int, _ r: inout SynthRandom) {
        open(.heartRate, .watch, day: day, device: true, &r)
        unit("count/min")
        dates(creation, start, start)
        // The Watch sometimes stores averaged values with 4 decimals ("47.8478").
        let fractional = context != 2 && r.chance(0.1)
        value(fractional ? bpm : bpm.rounded(), fractional ? 4 : 0, children: context >= 0)
        let written = SynthBuffer.asWritten(fractional ? bpm : bpm.rounded(), fractional ? 4 : 0)
        addMean(&exportDayHeartRate, start, written)
        addLocalMean(&localDayHeartRate, start, written, near: day)
        if context >= 0 {
            switch context {
            case 0: metadata("HKMetadataKeyHeartRateMotionContext", "0")
            case 1: metadata("HKMetadataKeyHeartRateMotionContext", "1")
            default: metadata("HKMetadataKeyHeartRateMotionContext", "2")
            }
            buf.lit(" </Record>\n")
        }
    }

    /// Blood oxygen from the Watch, mostly at night; HealthKit stores the fraction with unit `%`.
    package func oxygen(_ plan: SynthDayPlan) {
        var r = rng(.oxygen, plan.index)
        for _ in 0..<r.int(2, 6) {
            let night = plan.hasSleep && r.chance(0.7)
            let t =
                night
                ? plan.sleepStart + r.int(1_800, max(1_801, plan.sleepEnd - plan.sleepStart - 600))
                : plan.wake + r.int(0, plan.bed - plan.wake)
            quantity(
                .oxygenSaturation, .watch, day: plan.index, device: true, unit: "%",
                creation: t + r.int(5, 300), start: t, end: t, Swift.min(1, r.double(0.94, 0.995)), 2, &r)
        }
    }

    /// Height typed into the Health app on the first day and twice a year after.
    package func height(_ plan: SynthDayPlan) {
        guard plan.index % 180 == 0 else { return }
        var r = rng(.height, plan.index)
        let t = plan.wake + r.int(3_600, 20_000)
        open(.height, .healthApp, day: plan.index, device: false, &r)
        unit("cm")
        dates(t, t, t)
        value(168, 0, children: true)
        metadata("HKWasUserEntered", "1")
        buf.lit(" </Record>\n")
    }

    /// Weekly weigh-in on the Withings scale in pounds, and now and then a hand entry in kg
    /// (every 30 days from day 17, or on the last day of a shorter archive: every archive has both).
    package func bodyMass(_ plan: SynthDayPlan) {
        var r = rng(.bodyMass, plan.index)
        let trend = 152.0 + 4 * sin(Double(plan.index) / 60)
        if plan.index % 7 == 0 {
            let t = plan.wake + r.int(300, 1_500)
            quantity(
                .bodyMass, .withings, day: plan.index, device: false, unit: "lb",
                creation: t + r.int(10, 900), start: t, end: t, trend + r.gauss() * 0.8, 1, &r)
        }
        if plan.index % 30 == Swift.min(17, schedule.days.count - 1) {
            let t = plan.bed - r.int(600, 7_200)
            open(.bodyMass, .healthApp, day: plan.index, device: false, &r)
            unit("kg")
            dates(t, t, t)
            value((trend + r.gauss()) * 0.453_592_37, 1, children: true)
            metadata("HKWasUserEntered", "1")
            buf.lit(" </Record>\n")
        }
    }

    /// An occasional thermometer reading, in °F (every 10 days from day 3, or on the last day of
    /// a shorter archive).
    package func bodyTemperature(_ plan: SynthDayPlan) {
        guard plan.index % 10 == Swift.min(3, schedule.days.count - 1) else { return }
        var r = rng(.temperature, plan.index)
        let t = plan.wake + r.int(600, 3_000)
        quantity(
            .bodyTemperature, .withings, day: plan.index, device: false, unit: "degF",
            creation: t + r.int(5, 120), start: t, end: t, r.double(97.6, 99.1), 1, &r)
    }

    /// The morning blood-pressure reading: its two records, top-level or nested in the Correlation.
    package func bloodPressure(_ plan: SynthDayPlan, systolic: Bool, nested: Bool) {
        guard plan.bloodPressure else { return }
        var r = rng(.bloodPressure, plan.index)
        let t = plan.wake + r.int(900, 2_400)
        let creation = t + r.int(20, 400)
        let sys = Double(r.int(110, 129)), dia = Double(r.int(68, 84))
        open(
            systolic ? .bloodPressureSystolic : .bloodPressureDiastolic, .withings, day: plan.index,
            device: false, &r, nested: nested)
        unit("mmHg")
        dates(creation, t, t)
        value(systolic ? sys : dia, 0)
    }

    package func correlation(_ plan: SynthDayPlan) {
        var r = rng(.bloodPressure, plan.index)
        let t = plan.wake + r.int(900, 2_400)
        let creation = t + r.int(20, 400)
        correlations += 1
        buf.lit(" <Correlation type=\"HKCorrelationTypeIdentifierBloodPressure\" sourceName=\"")
        buf.lit(SynthSource.withings.name)
        buf.lit("\" sourceVersion=\"")
        buf.lit(SynthSource.withings.version(day: plan.index))
        buf.byte(UInt8(ascii: "\""))
        dates(creation, t, t)
        buf.lit(">\n")
        bloodPressure(plan, systolic: false, nested: true)
        bloodPressure(plan, systolic: true, nested: true)
        buf.lit(" </Correlation>\n")
    }

    /// Resting heart rate or walking heart-rate average: one per day, over the waking hours.
    package func dailyHeartRate(_ plan: SynthDayPlan, walking: Bool) {
        var r = rng(walking ? .walkingHR : .resting, plan.index)
        let v = walking ? Double(r.int(94, 112)) : Double(r.int(52, 62))
        quantity(
            walking ? .walkingHeartRateAverage : .restingHeartRate, .watch, day: plan.index, device: false,
            unit: "count/min", creation: plan.bed + r.int(600, 3_000), start: plan.wake, end: plan.bed, v, 0, &r)
    }

    /// Heart-rate variability (SDNN) with the beat-to-beat list the Watch keeps, its times shown
    /// as en_US local time of day ("7:20:37.80 PM").
    package func hrv(_ plan: SynthDayPlan) throws {
        var r = rng(.hrv, plan.index)
        for k in 0..<r.int(3, 6) {
            try buf.flushIfFull()
            let t: Int
            if k < 2 && plan.hasSleep {
                t = plan.sleepStart + r.int(1_200, max(1_201, plan.sleepEnd - plan.sleepStart - 1_200))
            } else {
                t = plan.wake + r.int(0, plan.bed - plan.wake)
            }
            let end = t + r.int(55, 62)
            open(.heartRateVariabilitySDNN, .watch, day: plan.index, device: true, &r)
            unit("ms")
            dates(end + r.int(5, 200), t, end)
            let sdnn = r.double(22, 85)
            value(sdnn, 5, children: true)
            addMean(&exportDayHRV, t, SynthBuffer.asWritten(sdnn, 5))
            addLocalMean(&localDayHRV, t, SynthBuffer.asWritten(sdnn, 5), near: plan.index)
            buf.lit("  <HeartRateVariabilityMetadataList>\n")
            var cs = (plan.localSeconds(t) * 100 + r.int(0, 99)) % 8_640_000
            for _ in 0..<r.int(25, 40) {
                let bpm = r.int(52, 78)
                buf.lit("   <InstantaneousBeatsPerMinute bpm=\"")
                buf.int(bpm)
                buf.lit("\" time=\"")
                let s = cs / 100
                let h24 = s / 3600
                buf.int(h24 % 12 == 0 ? 12 : h24 % 12)
                buf.byte(UInt8(ascii: ":"))
                buf.two((s / 60) % 60)
                buf.byte(UInt8(ascii: ":"))
                buf.two(s % 60)
                buf.byte(UInt8(ascii: "."))
                buf.two(cs % 100)
                buf.lit(h24 < 12 ? " AM\"/>\n" : " PM\"/>\n")
                hrvBeats += 1
                cs = (cs + 6_000 / bpm + r.int(-4, 4)) % 8_640_000
            }
            buf.lit("  </HeartRateVariabilityMetadataList>\n </Record>\n")
        }
    }
}
