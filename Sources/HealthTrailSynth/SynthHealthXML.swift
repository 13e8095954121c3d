/// Writes the main export.xml of a synthetic archive, type group by type group, into a
/// `SynthBuffer` that streams it out in 1 MB chunks.
///
/// Every pass walks all days and draws from its own random stream per day, so passes are
/// independent and need no memory beyond the schedule and a few per-day totals.
package final class SynthHealthXML {
    package let options: SynthOptions
    package let schedule: SynthSchedule
    package let buf: SynthBuffer
    /// The export's UTC offset in seconds, stamped on every date.
    package let offset: Int

    package var recordCounts = [Int](repeating: 0, count: SynthRecordType.allCases.count)
    package var correlations = 0
    package var workouts = 0
    package var workoutsWithRoutes = 0
    package var activitySummaries = 0
    package var hrvBeats = 0
    /// Watch steps per local day number (the person's zone).
    package var watchSteps: [Int: Int] = [:]
    /// Per day number in the export's offset: the Watch's steps, distance (cm), active energy
    /// (thousandths of a kcal) and flights, which de-duplication by source must reproduce.
    package var exportDaySteps: [Int: Int] = [:]
    package var exportDayDistanceCm: [Int: Int] = [:]
    package var exportDayActiveMilli: [Int: Int] = [:]
    package var exportDayFlights: [Int: Int] = [:]
    /// Per night, keyed by the export-offset day number of its morning: the winning source's
    /// asleep minutes and the union of in-bed minutes. Naps per export-offset day number.
    package var asleepMinutesByNight: [Int: Int] = [:]
    package var inBedMinutesByNight: [Int: Int] = [:]
    package var napMinutesByDay: [Int: Int] = [:]
    /// Per day index: Watch active energy (kcal), exercise minutes, stood hours, for ActivitySummary.
    package var dayActiveKcal: [Double]
    package var dayExerciseMinutes: [Int]
    package var dayStoodHours: [Int]
    /// Per day number in the export's offset, for daily.csv's means: every HeartRate value
    /// (all sources), RestingHeartRate and HeartRateVariabilitySDNN, each as written; and the
    /// Watch's basal energy (its only source), split pro rata between days like any reader must.
    package var exportDayHeartRate: [Int: (sum: Double, count: Int)] = [:]
    package var exportDayRestingHR: [Int: (sum: Double, count: Int)] = [:]
    package var exportDayHRV: [Int: (sum: Double, count: Int)] = [:]
    package var exportDayBasalKcal: [Int: Double] = [:]
    /// The same truths per local day number of the person (`localDay(_:near:)`): the Watch's
    /// steps, distance (cm), active energy (thousandths of a kcal) and flights, the HeartRate,
    /// RestingHeartRate and HeartRateVariabilitySDNN means, and the basal energy split pro rata.
    package var localDaySteps: [Int: Int] = [:]
    package var localDayDistanceCm: [Int: Int] = [:]
    package var localDayActiveMilli: [Int: Int] = [:]
    package var localDayFlights: [Int: Int] = [:]
    package var localDayHeartRate: [Int: (sum: Double, count: Int)] = [:]
    package var localDayRestingHR: [Int: (sum: Double, count: Int)] = [:]
    package var localDayHRV: [Int: (sum: Double, count: Int)] = [:]
    package var localDayBasalKcal: [Int: Double] = [:]
    /// Per staged night (keys as `asleepMinutesByNight`): core, deep and REM minutes.
    package var stageMinutesByNight: [Int: (core: Int, deep: Int, rem: Int)] = [:]
    /// Per `ActivitySummary` (local day number): active energy as written, exercise minutes, stood hours.
    package var activitySummaryTruths: [Int: (activeKcal: Double, exerciseMinutes: Int, standHours: Int)] = [:]
    /// Every workout's truth with its start instant, in writing order.
    package var workoutTruths: [(start: Int, truth: WorkoutTruth)] = []
    /// Per workout stream: heart-rate sum, count, minimum, maximum of its 5 s samples.
    package var workoutHR: [(sum: Double, count: Int, min: Double, max: Double)]

    package init(options: SynthOptions, schedule: SynthSchedule, buffer: SynthBuffer) {
        self.options = options
        self.schedule = schedule
        self.buf = buffer
        self.offset = options.exportOffsetMinutes * 60
        let n = schedule.days.count
        dayActiveKcal = .init(repeating: 0, count: n)
        dayExerciseMinutes = .init(repeating: 0, count: n)
        dayStoodHours = .init(repeating: 0, count: n)
        let streams = schedule.days.reduce(0) { $0 + $1.workouts.count } + 1
        workoutHR = .init(repeating: (0, 0, .infinity, -.infinity), count: streams)
    }

    /// Writes the whole document.
    package func write() throws {
        try buf.bigLit(SynthDTD.upToLastAttribute)
        buf.lit(options.brokenDTD ? SynthDTD.brokenClosing : SynthDTD.closing)
        buf.lit("<HealthData locale=\"en_US\">\n <ExportDate value=\"")
        buf.healthDate(schedule.exportInstant, offset: offset)
        buf.lit(
            "\"/>\n <Me HKCharacteristicTypeIdentifierDateOfBirth=\"1988-10-29\" HKCharacteristicTypeIdentifierBiologicalSex=\"HKBiologicalSexFemale\" HKCharacteristicTypeIdentifierBloodType=\"HKBloodTypeNotSet\" HKCharacteristicTypeIdentifierFitzpatrickSkinType=\"HKFitzpatrickSkinTypeNotSet\" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse=\"None\"/>\n"
        )
        for type in SynthRecordType.allCases {
            for d in dayOrder(type) {
                try buf.flushIfFull()
                let plan = schedule.days[d]
                switch type {
                case .height: height(plan)
                case .bodyMass: bodyMass(plan)
                case .heartRate: try heartRate(plan)
                case .oxygenSaturation: oxygen(plan)
                case .bloodPressureSystolic: bloodPressure(plan, systolic: true, nested: false)
                case .bloodPressureDiastolic: bloodPressure(plan, systolic: false, nested: false)
                case .bodyTemperature: bodyTemperature(plan)
                case .stepCount: try steps(plan, distance: false)
                case .distanceWalkingRunning: try steps(plan, distance: true)
                case .basalEnergyBurned: try basalEnergy(plan)
                case .activeEnergyBurned: try activeEnergy(plan)
                case .flightsClimbed: flights(plan)
                case .appleExerciseTime: try exerciseTime(plan)
                case .restingHeartRate: dailyHeartRate(plan, walking: false)
                case .walkingHeartRateAverage: dailyHeartRate(plan, walking: true)
                case .appleStandTime: try standTime(plan)
                case .sleepAnalysis: try sleep(plan)
                case .appleStandHour: try standHour(plan)
                case .heartRateVariabilitySDNN: try hrv(plan)
                }
            }
        }
        for plan in schedule.days where plan.bloodPressure {
            try buf.flushIfFull()
            correlation(plan)
        }
        for plan in schedule.days {
            for w in plan.workouts {
                try buf.flushIfFull()
                workout(w, day: plan.index)
            }
        }
        for plan in schedule.days {
            try buf.flushIfFull()
            activitySummary(plan)
        }
        buf.lit("</HealthData>\n")
        try buf.flush()
    }

    /// Days in order, with some neighbours swapped: exports do not sort records within a type.
    package func dayOrder(_ type: SynthRecordType) -> [Int] {
        var order = Array(0..<schedule.days.count)
        var rng = SynthRandom(
            seed: options.seed, stream: SynthSchedule.Stream.dayOrder.rawValue,
            index: UInt64(type.rawValue))
        var i = 0
        while i + 1 < order.count {
            if rng.chance(0.15) { order.swapAt(i, i + 1); i += 2 } else { i += 1 }
        }
        return order
    }

    package func rng(_ stream: SynthSchedule.Stream, _ index: Int) -> SynthRandom {
        SynthRandom(seed: options.seed, stream: stream.rawValue, index: UInt64(index))
    }

    // MARK: - Record pieces

    /// ` <Record type=".." sourceName=".." sourceVersion=".." [device=".."]` (indent 1, or 2 nested).
    @inline(__always)
    func open(
        _ type: SynthRecordType, _ source: SynthSource, day: Int, device: Bool,
        _ rng: inout SynthRandom, nested: Bool = false
    ) {
        if !nested { recordCounts[type.rawValue] += 1 }
        buf.lit(nested ? "  <Record type=\"" : " <Record type=\"")
        buf.lit(type.identifier)
        buf.lit("\" sourceName=\"")
        buf.lit(source.name)
        buf.lit("\" sourceVersion=\"")
        let version = source.version(day: day)
        buf.lit(version)
        buf.byte(UInt8(ascii: "\""))
        if device { deviceAttribute(source.device, version: version, &rng) }
    }

    /// The escaped `<<HKDevice: 0x…>, name:…>` description; its address changes every record,
    /// as in real exports, which is why it is useless as a grouping key.
    @inline(__always)
    package func deviceAttribute(_ device: SynthSource.Device, version: StaticString, _ rng: inout SynthRandom) {
        switch device {
        case .none: return
        case .watch:
            buf.lit(" device=\"&lt;&lt;HKDevice: 0x28")
            buf.hex(rng.next(), 7)
            buf.lit("&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:")
        case .iPhone:
            buf.lit(" device=\"&lt;&lt;HKDevice: 0x28")
            buf.hex(rng.next(), 7)
            buf.lit("&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,2, software:")
        }
        buf.lit(version)
        buf.lit("&gt;\"")
    }

    @inline(__always)
    package func unit(_ u: StaticString) {
        buf.lit(" unit=\"")
        buf.lit(u)
        buf.byte(UInt8(ascii: "\""))
    }

    @inline(__always)
    package func dates(_ creation: Int, _ start: Int, _ end: Int) {
        buf.lit(" creationDate=\"")
        buf.healthDate(creation, offset: offset)
        buf.lit("\" startDate=\"")
        buf.healthDate(start, offset: offset)
        buf.lit("\" endDate=\"")
        buf.healthDate(end, offset: offset)
        buf.byte(UInt8(ascii: "\""))
    }

    /// ` value="…"/>` (or `>` when children follow).
    @inline(__always)
    package func value(_ v: Double, _ places: Int, children: Bool = false) {
        buf.lit(" value=\"")
        buf.fixed(v, places)
        buf.lit(children ? "\">\n" : "\"/>\n")
    }

    @inline(__always)
    package func value(_ v: StaticString, children: Bool = false) {
        buf.lit(" value=\"")
        buf.lit(v)
        buf.lit(children ? "\">\n" : "\"/>\n")
    }

    @inline(__always)
    package func metadata(_ key: StaticString, _ value: StaticString) {
        buf.lit("  <MetadataEntry key=\"")
        buf.lit(key)
        buf.lit("\" value=\"")
        buf.lit(value)
        buf.lit("\"/>\n")
    }

    /// A whole one-line quantity record.
    @inline(__always)
    package func quantity(
        _ type: SynthRecordType, _ source: SynthSource, day: Int, device: Bool, unit u: StaticString,
        creation: Int, start: Int, end: Int, _ v: Double, _ places: Int, _ rng: inout SynthRandom
    ) {
        open(type, source, day: day, device: device, &rng)
        unit(u)
        dates(creation, start, end)
        value(v, places)
        switch type {
        case .restingHeartRate:
            addMean(&exportDayRestingHR, start, SynthBuffer.asWritten(v, places))
            addLocalMean(&localDayRestingHR, start, SynthBuffer.asWritten(v, places), near: day)
        case .basalEnergyBurned:
            addProRata(&exportDayBasalKcal, start, end, SynthBuffer.asWritten(v, places))
            addLocalProRata(&localDayBasalKcal, start, end, SynthBuffer.asWritten(v, places), near: day)
        default: break
        }
    }

    /// Adds a value to the mean of the export-offset day its start falls on.
    package func addMean(_ table: inout [Int: (sum: Double, count: Int)], _ start: Int, _ value: Double) {
        let day = SynthCalendar.floorDiv(start + offset, 86_400)
        table[day, default: (0, 0)].sum += value
        table[day, default: (0, 0)].count += 1
    }

    /// Adds a value to the export-offset days its span covers, in proportion to time.
    package func addProRata(_ table: inout [Int: Double], _ start: Int, _ end: Int, _ value: Double) {
        guard end > start else { table[SynthCalendar.floorDiv(start + offset, 86_400), default: 0] += value; return }
        var t = start
        while t < end {
            let day = SynthCalendar.floorDiv(t + offset, 86_400)
            let dayEnd = Swift.min(end, (day + 1) * 86_400 - offset)
            table[day, default: 0] += value * Double(dayEnd - t) / Double(end - start)
            t = dayEnd
        }
    }

    /// The person's local day number at UTC instant `t`, and the instant that day ends: the
    /// `dayNumber` and `end` of the plan whose window `[start, end)` holds `t` (plans tile time,
    /// also across a change of zone). Before the first plan's window or from the last plan's
    /// end, the date in that plan's zone and its next local midnight (capped at the first
    /// plan's start). `near` is the index of a plan to try first (the plan being written).
    @inline(__always)
    package func localDay(_ t: Int, near k: Int) -> (day: Int, end: Int) {
        if k >= 0 && k < schedule.days.count && t >= schedule.days[k].start && t < schedule.days[k].end {
            return (schedule.days[k].dayNumber, schedule.days[k].end)
        }
        return localDay(searching: t)
    }

    /// `localDay(_:near:)` by binary search over the plans' starts.
    package func localDay(searching t: Int) -> (day: Int, end: Int) {
        let days = schedule.days
        func inZone(_ zone: SynthTimeZone) -> (day: Int, end: Int) {
            let day = SynthCalendar.floorDiv(t + zone.offset(utc: t), 86_400)
            return (day, Swift.max(t + 1, zone.utc(local: (day + 1) * 86_400)))
        }
        guard let first = days.first, let last = days.last else { return inZone(.paris) }
        if t < first.start {
            let (day, end) = inZone(first.zone)
            return (day, Swift.min(end, first.start))
        }
        if t >= last.end { return inZone(last.zone) }
        // The last plan starting at or before t; its window holds t as the windows tile time.
        var lo = 0, hi = days.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if days[mid].start <= t { lo = mid } else { hi = mid - 1 }
        }
        return (days[lo].dayNumber, days[lo].end)
    }

    /// Adds a value to the mean of the person's local day its start falls on.
    package func addLocalMean(_ table: inout [Int: (sum: Double, count: Int)], _ start: Int, _ value: Double, near k: Int) {
        let day = localDay(start, near: k).day
        table[day, default: (0, 0)].sum += value
        table[day, default: (0, 0)].count += 1
    }

    /// Adds a value to the person's local days its span covers, in proportion to time: the
    /// span is cut where one plan's window ends and the next begins.
    package func addLocalProRata(_ table: inout [Int: Double], _ start: Int, _ end: Int, _ value: Double, near k: Int) {
        guard end > start else { table[localDay(start, near: k).day, default: 0] += value; return }
        var t = start
        while t < end {
            let (day, until) = localDay(t, near: k)
            let dayEnd = Swift.min(end, until)
            table[day, default: 0] += value * Double(dayEnd - t) / Double(end - start)
            t = dayEnd
        }
    }
}
