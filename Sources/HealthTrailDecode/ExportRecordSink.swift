import HealthTrailArchive
import HealthTrailBase
import HealthTrailXML

/// What becomes of the records `ExportDecoder` decodes: rows of CSV, daily figures, spill files.
///
/// The decoder parses and checks each record and hands it here; it writes nothing itself.
/// `RunRecordSink` is the sink of `healthtrail run`; `inspect` decodes with none, counting only.
///
/// A class rather than a protocol: the decoder reaches its sink through `Unretained`, so a record
/// costs one method call and no reference counting. Each method does nothing unless overridden.
/// Calls come on the decoding thread, in file order; the spans they pass are nonescapable, so
/// the compiler refuses to keep one past the call.
///
/// `open`, so `public`, with the types its methods take (`DecodedRecord`,
/// `DecodedActivitySummary`, `RecordType`, `ExportDecoder`, `ByteSpan`, `Timestamp`): `RunRecordSink`
/// subclasses it from another module, and Swift has no package-wide `open`. Every other
/// declaration of HealthTrail is `package` (ArchitectureGraphTests keeps that list closed).
open class ExportRecordSink {
    package init() {}

    /// A `<Record>` that is not heart rate. Throws to stop the decoding (a file that cannot be
    /// created); `decoder` is where faults go and source names are.
    open func record(_ record: DecodedRecord, of type: RecordType, decoder: ExportDecoder) throws {}

    /// A heart-rate `<Record>`. What is written of it stays open until `heartRateEnded`: its
    /// motion context comes in a child element.
    open func heartRate(_ record: DecodedRecord, of type: RecordType, decoder: ExportDecoder) {}

    /// The end of the heart-rate record last handed to `heartRate`, with its motion context as
    /// the export wrote it (`1` sedentary, `2` active; 0 when it has none).
    open func heartRateEnded(motionContext: UInt8) {}

    /// The `HKTimeZone` metadata (`Europe/Paris`, as written) of the record last handed to
    /// `record`, with that record's start and end: where the person's time zone was seen.
    open func recordTimeZone(_ name: ByteSpan, start: Timestamp, end: Timestamp) {}

    /// An HRV record's `<InstantaneousBeatsPerMinute>`: its time in UTC and the record's offset,
    /// `bpm` as written, the record's source.
    open func hrvBeat(utcSeconds: Int64, offsetMinutes: Int32, bpm: ByteSpan, sourceIndex: Int, decoder: ExportDecoder) {}

    /// An `<ActivitySummary>`, its attributes as the export wrote them.
    open func activitySummary(_ summary: DecodedActivitySummary, decoder: ExportDecoder) {}
}

/// One `<Record>` as decoded. Nonescapable: its spans point into the parser's buffers, and the
/// compiler refuses to keep it, or them, past the sink's call.
public struct DecodedRecord: ~Escapable {
    /// `startDate` and `endDate` (`endDate` equals `startDate` when the export leaves it out).
    package let start: Timestamp
    package let end: Timestamp
    /// The `value` attribute as written; nil when the record has none.
    package let value: ByteSpan?
    /// The value as a number: quantity records only, 0 for categories.
    package let number: Double
    /// How the record's unit converts to its kind's canonical unit; nil for categories and
    /// for units no conversion knows.
    package let conversion: UnitConversion?
    /// The `unit` attribute as written; nil when the record has none.
    package let unit: ByteSpan?
    /// The `sourceName` as written (empty when missing) and its index in `ExportDecoder.sourceNames`.
    package let source: ByteSpan
    package let sourceIndex: Int

    @_lifetime(copy value, copy unit, copy source)
    package init(
        start: Timestamp, end: Timestamp, value: ByteSpan?, number: Double, conversion: UnitConversion?, unit: ByteSpan?,
        source: ByteSpan, sourceIndex: Int
    ) {
        self.start = start
        self.end = end
        self.value = value
        self.number = number
        self.conversion = conversion
        self.unit = unit
        self.source = source
        self.sourceIndex = sourceIndex
    }
}

/// One `<ActivitySummary>` as decoded. Nonescapable: its spans point into the parser's buffers,
/// and the compiler refuses to keep it, or them, past the sink's call.
public struct DecodedActivitySummary: ~Escapable {
    /// The attributes after the date, in the order of `activity_summaries.csv` (`field(_:)`).
    package static let fieldAttributes: [ExportAttribute] = [
        .activeEnergyBurned, .activeEnergyBurnedGoal, .activeEnergyBurnedUnit,
        .appleMoveTime, .appleMoveTimeGoal, .appleExerciseTime,
        .appleExerciseTimeGoal, .appleStandHours, .appleStandHoursGoal,
    ]
    /// The number of fields after the date.
    package static var fieldCount: Int { fieldAttributes.count }

    /// `dateComponents` as written (`2024-01-02`); nil when missing.
    package let date: ByteSpan?
    /// `activeEnergyBurned`, its goal and unit, as written; nil where missing.
    package let activeEnergyBurned: ByteSpan?
    package let activeEnergyBurnedGoal: ByteSpan?
    package let activeEnergyBurnedUnit: ByteSpan?
    /// `appleMoveTime` and its goal, as written; nil where missing.
    package let appleMoveTime: ByteSpan?
    package let appleMoveTimeGoal: ByteSpan?
    /// `appleExerciseTime` and its goal, as written; nil where missing.
    package let appleExerciseTime: ByteSpan?
    package let appleExerciseTimeGoal: ByteSpan?
    /// `appleStandHours` and its goal, as written; nil where missing.
    package let appleStandHours: ByteSpan?
    package let appleStandHoursGoal: ByteSpan?

    /// The summary of the `<ActivitySummary>` whose attributes `attributes` holds.
    @_lifetime(borrow attributes)
    package init(_ attributes: borrowing AttributeSlots) {
        date = attributes[.dateComponents]
        activeEnergyBurned = attributes[.activeEnergyBurned]
        activeEnergyBurnedGoal = attributes[.activeEnergyBurnedGoal]
        activeEnergyBurnedUnit = attributes[.activeEnergyBurnedUnit]
        appleMoveTime = attributes[.appleMoveTime]
        appleMoveTimeGoal = attributes[.appleMoveTimeGoal]
        appleExerciseTime = attributes[.appleExerciseTime]
        appleExerciseTimeGoal = attributes[.appleExerciseTimeGoal]
        appleStandHours = attributes[.appleStandHours]
        appleStandHoursGoal = attributes[.appleStandHoursGoal]
    }

    /// Field `i` (0 ≤ i < `fieldCount`) of `fieldAttributes`, as written; nil where missing.
    @_lifetime(copy self)
    package func field(_ i: Int) -> ByteSpan? {
        switch i {
        case 0: activeEnergyBurned
        case 1: activeEnergyBurnedGoal
        case 2: activeEnergyBurnedUnit
        case 3: appleMoveTime
        case 4: appleMoveTimeGoal
        case 5: appleExerciseTime
        case 6: appleExerciseTimeGoal
        case 7: appleStandHours
        case 8: appleStandHoursGoal
        default: preconditionFailure("ActivitySummary field index out of range")
        }
    }
}
