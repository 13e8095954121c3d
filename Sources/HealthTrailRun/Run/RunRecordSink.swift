import HealthTrailAnalysis
import HealthTrailArchive
import HealthTrailBase
import HealthTrailDecode
import HealthTrailWrite
import HealthTrailXML

/// The sink of `healthtrail run`: each record's row goes to its CSV (`ExportOutputs`), its
/// figures to `DailySummary`, heart rate also to the join's spill file, sleep samples to their
/// collection for the night analysis.
package final class RunRecordSink: ExportRecordSink {
    let outputs: ExportOutputs
    /// The daily figures, fed as records come.
    let daily: DailySummary
    /// `daily` for the per-record path, without reference counting (`daily` keeps it).
    private let unretainedDaily: Unretained<DailySummary>
    /// Every heart-rate sample, for the route join; nil when nothing joins (tests, the fuzzer).
    var heartRateSpill: HeartRateSpill?
    /// Sleep samples, sorted by span as they come (in memory unless given a spill file).
    var sleepSamples = SleepOutputs.collection(spillPath: nil)
    /// Where records (sleep samples) named the person's time zone; workouts add theirs later.
    var zoneSightings = TimeZoneSightings()
    /// The type whose records `observe` saw last (only its identity is compared).
    private var lastObservedType: ObjectIdentifier?
    /// The writer of the last record's type: records come grouped by type, so the writers'
    /// table is consulted once per group. Unretained: `outputs` keeps every writer.
    private var lastWriterType: ObjectIdentifier?
    private var lastWriter: Unretained<CSVWriter>?
    /// Where the first reading of export.xml notes every record, to find its copies
    /// (`RecordCopyFinder`); nil when nothing looks for copies.
    var copyFinder: RecordCopyFinder?
    /// The copies found by a first reading, dropped on this one before anything sees them.
    var copies: RecordCopies?
    /// The next record's place in export.xml: its index among the records handed to this sink.
    private var nextPlace = 0
    /// True while the record last handed over is dropped (a copy, or a fault): its children (HRV beats, its
    /// time zone, heart rate's motion context) are dropped with it.
    private var droppingRecord = false

    /// - Parameter priority: which source counts where several wrote the same figures.
    package init(outputs: ExportOutputs, priority: SourcePriority) {
        self.outputs = outputs
        daily = DailySummary(priority: priority)
        unretainedDaily = Unretained(daily)
    }

    /// Whether `record` is a copy to drop; on a first reading, notes it for `copyFinder`.
    @inline(__always)
    private func isDroppedCopy(_ record: DecodedRecord, of type: RecordType) -> Bool {
        let place = nextPlace
        nextPlace += 1
        droppingRecord = false
        if let copies {
            droppingRecord = copies.contains(place)
            return droppingRecord
        }
        copyFinder?.add(record, of: type)
        return false
    }

    package override func recordTimeZone(_ name: ByteSpan, start: Timestamp, end: Timestamp) {
        guard !droppingRecord else { return }
        zoneSightings.add(name, start: start.utcSeconds, end: end.utcSeconds)
    }

    package override func record(_ record: DecodedRecord, of type: RecordType, decoder: ExportDecoder) throws {
        if isDroppedCopy(record, of: type) { return }
        if case .sleep = type.role, record.end.utcSeconds - record.start.utcSeconds > SleepSession.maxSampleSeconds {
            // A broken app's sample spanning years: skipped, with its time zone (no evidence).
            droppingRecord = true
            return decoder.fault("overlong_sample", "SleepAnalysis sample spans more than 24 hours")
        }
        observe(record, of: type, decoder: decoder)
        let writer: Unretained<CSVWriter>
        if let lastWriter, lastWriterType == ObjectIdentifier(type) {
            writer = lastWriter
        } else {
            writer = Unretained(try outputs.recordWriter(for: type))
            lastWriter = writer
            lastWriterType = ObjectIdentifier(type)
        }
        writer.with { w in
            w.utc(record.start.utcSeconds); w.comma()
            w.utc(record.end.utcSeconds); w.comma()
            w.offset(record.start.offsetMinutes); w.comma()
            if let conversion = record.conversion, let value = record.value {
                writeCanonical(value, record.number, conversion, to: w); w.comma()
                w.field(conversion.canonicalUnit); w.comma()
                w.field(record.source); w.comma()
                // The export's own value and unit, where normalisation changed either.
                if !conversion.isIdentity { w.raw(value); w.comma(); w.field(record.unit!) } else { w.comma() }
            } else {
                if let value = record.value { w.field(value) }
                w.comma()
                if let unit = record.unit { w.field(unit) }
                w.comma()
                w.field(record.source); w.comma()   // no original_value / original_unit: nothing changed
                w.comma()
            }
            w.endRow()
        }
    }

    package override func heartRate(_ record: DecodedRecord, of type: RecordType, decoder: ExportDecoder) {
        if isDroppedCopy(record, of: type) { return }
        observe(record, of: type, decoder: decoder)
        heartRateSpill?.add(
            time: record.start.utcSeconds, bpm: record.conversion.map { $0.convert(record.number) } ?? record.number,
            source: record.sourceIndex)
        let w = outputs.heartRate
        w.utc(record.start.utcSeconds); w.comma()
        w.offset(record.start.offsetMinutes); w.comma()
        writeCanonical(record.value!, record.number, record.conversion, to: w); w.comma()
        w.field(record.source); w.comma()
    }

    package override func heartRateEnded(motionContext: UInt8) {
        guard !droppingRecord else { return }
        let w = outputs.heartRate
        switch motionContext {
        case UInt8(ascii: "1"): w.raw(ByteSpan("sedentary"))
        case UInt8(ascii: "2"): w.raw(ByteSpan("active"))
        default: break
        }
        w.endRow()
    }

    package override func hrvBeat(utcSeconds: Int64, offsetMinutes: Int32, bpm: ByteSpan, sourceIndex: Int, decoder: ExportDecoder) {
        guard !droppingRecord else { return }
        let w = outputs.hrvBeats
        w.utc(utcSeconds); w.comma()
        w.offset(offsetMinutes); w.comma()
        w.raw(bpm); w.comma()
        decoder.sourceNames.withName(sourceIndex) { w.field($0) }
        w.endRow()
    }

    /// `text` as a number when it is `written` (a checked value); nil otherwise.
    private static func number(_ text: ByteSpan?, _ written: Bool) -> Double? {
        guard written, let text else { return nil }
        return NumberText.fastDouble(text)
    }

    package override func activitySummary(_ summary: DecodedActivitySummary, decoder: ExportDecoder) {
        // A calendar date of the years the decoder reads (`2024-02-30` is none): the row's
        // `date` column is a date in every format.
        guard let date = summary.date, date.count == 10, date[4] == 0x2D, date[7] == 0x2D, let y = Timestamp.digits(date, 0, 4),
            let m = Timestamp.digits(date, 5, 2), let d = Timestamp.digits(date, 8, 2), Timestamp.supportedYears.contains(y),
            (1...12).contains(m), d >= 1, d <= Timestamp.daysIn(month: m, year: y)
        else {
            return decoder.fault("bad_date", "ActivitySummary dateComponents is not a date")
        }
        // The rule for numbers: a field that holds no value (`1e400`, `NaN`) is empty, and a
        // counted fault; the day's other fields stay.
        // Bit i set: field i is written (present, and a number unless it is the unit).
        var written: UInt16 = 0
        for (i, key) in DecodedActivitySummary.fieldAttributes.enumerated() {
            guard let value = summary.field(i) else { continue }
            if key == .activeEnergyBurnedUnit || decoder.optionalValue(value, "ActivitySummary \(key)") != nil { written |= 1 << i }
        }
        daily.activitySummary(
            localDay: Timestamp.daysFromCivil(year: y, month: m, day: d),
            exerciseMinutes: Self.number(summary.appleExerciseTime, written & (1 << 5) != 0),
            standHours: Self.number(summary.appleStandHours, written & (1 << 7) != 0))
        let w = outputs.activitySummaries
        w.raw(date)
        for i in 0..<DecodedActivitySummary.fieldCount {
            w.comma()
            if written & (1 << i) != 0, let value = summary.field(i) { w.field(value) }
        }
        w.endRow()
    }

    /// The value in the canonical unit: the export's bytes when nothing changes, else converted.
    @inline(__always)
    private func writeCanonical(_ raw: ByteSpan, _ number: Double, _ conversion: UnitConversion?, to w: CSVWriter) {
        if let conversion, !conversion.preservesValue {
            w.decimal(conversion.convert(number), digits: 6)
        } else {
            w.raw(raw)
        }
    }

    /// Feeds daily figures and sleep nights; a new type tells the daily figures that the
    /// previous type's group of records ended (`DailySummary.endGroup`).
    @inline(__always)
    private func observe(_ record: DecodedRecord, of type: RecordType, decoder: ExportDecoder) {
        unretainedDaily.with { observe(record, of: type, decoder: decoder, into: $0) }
    }

    /// `observe` with the daily figures borrowed (no reference counting per record).
    @inline(__always)
    private func observe(_ record: DecodedRecord, of t: RecordType, decoder: ExportDecoder, into daily: DailySummary) {
        let (start, number, conversion) = (record.start, record.number, record.conversion)
        if ObjectIdentifier(t) != lastObservedType {
            lastObservedType = ObjectIdentifier(t)
            daily.endGroup(before: t.cumulativeKind)
        }
        switch t.role {
        case .heartRate:
            daily.heartRate(start, bpm: conversion.map { $0.convert(number) } ?? number)
        case .restingHeartRate:
            daily.restingHeartRate(start, bpm: conversion.map { $0.convert(number) } ?? number)
        case .heartRateVariability:
            daily.heartRateVariability(start, ms: conversion.map { $0.convert(number) } ?? number)
        case .cumulative(let kind):
            // Without a known unit the value cannot be summed with others: reported, not guessed.
            guard let conversion else { return }
            daily.cumulative(kind, start: start, end: record.end, value: conversion.convert(number), source: record.sourceIndex)
        case .sleep:
            guard let value = record.value, let stage = SleepStage(exportValue: value.string) else {
                return decoder.fault("unknown_category", "SleepAnalysis value is not a known sleep stage")
            }
            sleepSamples.append(CollectedSleepSample(start: start, end: record.end, stage: stage, source: record.sourceIndex))
        case .standHour:
            daily.standHour(start, stood: record.value?.equals("HKCategoryValueAppleStandHourStood") ?? false)
        case .other:
            break
        }
    }
}
