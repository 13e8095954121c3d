import CLibXML2
import HealthTrailXML

/// The elements of export.xml that HealthTrail decodes; everything else is `.other`.
enum ExportElement: UInt8 {
    case healthData, exportDate, me, record, correlation, metadataEntry, hrvList, beat
    case workout, workoutEvent, workoutStatistics, workoutActivity, workoutRoute, fileReference, location
    case activitySummary, other

    init(name: UnsafePointer<UInt8>) {
        switch String(cString: name) {
        case "HealthData": self = .healthData
        case "ExportDate": self = .exportDate
        case "Me": self = .me
        case "Record": self = .record
        case "Correlation": self = .correlation
        case "MetadataEntry": self = .metadataEntry
        case "HeartRateVariabilityMetadataList": self = .hrvList
        case "InstantaneousBeatsPerMinute": self = .beat
        case "Workout": self = .workout
        case "WorkoutEvent": self = .workoutEvent
        case "WorkoutStatistics": self = .workoutStatistics
        case "WorkoutActivity": self = .workoutActivity
        case "WorkoutRoute": self = .workoutRoute
        case "FileReference": self = .fileReference
        case "Location": self = .location
        case "ActivitySummary": self = .activitySummary
        default: self = .other
        }
    }
}

/// The attributes HealthTrail reads; a bit each in `AttributeSlots.present`.
enum ExportAttribute: UInt8, CaseIterable {
    case type, unit, value, sourceName, startDate, endDate, key, bpm, time
    case workoutActivityType, duration, durationUnit, totalDistance, totalDistanceUnit
    case totalEnergyBurned, totalEnergyBurnedUnit, date, average, minimum, maximum, sum, uuid, path
    case latitude, longitude, altitude, horizontalAccuracy, verticalAccuracy, course, speed
    case dateComponents, activeEnergyBurned, activeEnergyBurnedGoal, activeEnergyBurnedUnit
    case appleMoveTime, appleMoveTimeGoal, appleExerciseTime, appleExerciseTimeGoal
    case appleStandHours, appleStandHoursGoal, locale
    case dateOfBirth = 60, biologicalSex, bloodType
    case other = 63

    init(name: UnsafePointer<UInt8>) {
        let text = String(cString: name)
        switch text {
        case "HKCharacteristicTypeIdentifierDateOfBirth": self = .dateOfBirth
        case "HKCharacteristicTypeIdentifierBiologicalSex": self = .biologicalSex
        case "HKCharacteristicTypeIdentifierBloodType": self = .bloodType
        default: self = ExportAttribute.allCases.first { "\($0)" == text && $0 != .other } ?? .other
        }
    }
}

/// Maps libxml2's interned name pointers to enum values.
///
/// libxml2 interns element and attribute names in the parser's dictionary, so the same name
/// arrives as the same pointer every time: after the first sighting a name is recognised by a
/// pointer comparison instead of a string comparison. The pointers are kept in a small hash
/// table (open addressing, at most half full), so that a name is found in one or two probes
/// whatever the vocabulary's size: a linear scan of every name seen was the hottest loop of the
/// parsing thread. Storage is fixed and unmanaged so the hot path does no reference counting; a
/// vocabulary larger than `capacity` still works, its extra names are just classified by string
/// each time.
final class InternedNames<Value> {
    /// Names kept at most; the table has twice as many slots, so an empty one always ends a probe.
    private let capacity = 64
    private static var slotCount: Int { 128 }
    private var count = 0
    /// The name in each slot (nil: empty) and, where one is, its value.
    private let pointers: UnsafeMutablePointer<UnsafePointer<UInt8>?>
    private let values: UnsafeMutablePointer<Value>
    private let classify: (UnsafePointer<UInt8>) -> Value

    init(_ classify: @escaping (UnsafePointer<UInt8>) -> Value) {
        self.classify = classify
        pointers = .allocate(capacity: Self.slotCount)
        pointers.initialize(repeating: nil, count: Self.slotCount)
        values = .allocate(capacity: Self.slotCount)
    }

    deinit {
        for i in 0..<Self.slotCount where pointers[i] != nil { (values + i).deinitialize(count: 1) }
        values.deallocate()
        pointers.deallocate()
    }

    /// The first slot to probe for `name`: the top 7 bits of its address times 2^64 / φ
    /// (Fibonacci hashing spreads aligned addresses evenly).
    @inline(__always)
    private static func home(_ name: UnsafePointer<UInt8>) -> Int {
        Int(truncatingIfNeeded: (UInt64(UInt(bitPattern: name)) &* 0x9E37_79B9_7F4A_7C15) >> 57)
    }

    @inline(__always)
    func lookup(_ name: UnsafePointer<UInt8>) -> Value {
        var i = Self.home(name)
        // Unchecked: i stays in 0..<slotCount (masked), and at most `capacity`, half the slots,
        // are ever filled, so the probe meets an empty slot and ends.
        while let known = pointers[i] {
            if known == name { return values[i] }
            i = (i &+ 1) & (Self.slotCount &- 1)
        }
        let value = classify(name)
        if count < capacity {
            pointers[i] = name
            (values + i).initialize(to: value)
            count += 1
        }
        return value
    }
}

/// The attribute values of the element being decoded, as spans into libxml2's buffers or, on
/// the decoding thread, into the `CapturedElements` block being replayed.
final class AttributeSlots {
    private(set) var present: UInt64 = 0
    private let slots = UnsafeMutablePointer<ByteSpan>.allocate(capacity: 64)
    let names = InternedNames<ExportAttribute> { ExportAttribute(name: $0) }

    init() { slots.initialize(repeating: ByteSpan(start: UnsafePointer(bitPattern: 1)!, count: 0), count: 64) }
    deinit { slots.deallocate() }

    /// Loads SAX2's attribute array: 5 pointers per attribute (name, prefix, URI, value, end).
    @inline(__always)
    func load(_ count: Int32, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        present = 0
        guard let attributes else { return }
        for i in 0..<Int(count) {
            let base = attributes + i * 5
            guard let name = base[0], let start = base[3], let end = base[4] else { continue }
            let key = names.lookup(name)
            if key == .other { continue }
            slots[Int(key.rawValue)] = ByteSpan(start: start, count: end - start)
            present |= 1 << UInt64(key.rawValue)
        }
    }

    /// Forgets every value (before `set`s of a captured element).
    @inline(__always) func clear() { present = 0 }

    /// One value of a captured element (`CapturedElements`).
    @inline(__always)
    func set(_ key: ExportAttribute, _ value: ByteSpan) {
        guard key != .other else { return }
        slots[Int(key.rawValue)] = value
        present |= 1 << UInt64(key.rawValue)
    }

    @inline(__always)
    subscript(_ key: ExportAttribute) -> ByteSpan? {
        present & (1 << UInt64(key.rawValue)) != 0 ? slots[Int(key.rawValue)] : nil
    }

    func string(_ key: ExportAttribute) -> String? { self[key]?.string }
    func double(_ key: ExportAttribute) -> Double? { self[key].flatMap(NumberText.double) }
    func quantity(_ value: ExportAttribute, _ unit: ExportAttribute) -> Quantity? {
        guard let v = double(value) else { return nil }
        return Quantity(value: v, unit: string(unit) ?? "")
    }
}
