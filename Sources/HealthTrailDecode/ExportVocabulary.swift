import HealthTrailArchive
import HealthTrailBase
import HealthTrailXML

/// The elements of export.xml that HealthTrail decodes; everything else is `.other`.
package enum ExportElement: UInt8 {
    case healthData, exportDate, me, record, correlation, metadataEntry, hrvList, beat
    case workout, workoutEvent, workoutStatistics, workoutActivity, workoutRoute, fileReference, location
    case activitySummary, other

    package init(name: SAXName) {
        switch name.string {
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

extension ExportElement {
    /// Whether the decoder reads the element's attributes.
    package var readsAttributes: Bool {
        switch self {
        case .correlation, .hrvList, .workoutRoute, .other: return false
        default: return true
        }
    }
}

extension SAXEventCapture.Vocabulary {
    /// export.xml's elements and attributes, as `ExportElement` and `ExportAttribute` codes.
    package static let export = SAXEventCapture.Vocabulary(
        element: { ExportElement(name: $0).rawValue },
        attribute: { name in
            let key = ExportAttribute(name: name)
            return key == .other ? nil : key.rawValue
        },
        readsAttributes: { ExportElement(rawValue: $0)?.readsAttributes ?? false })
}

/// The attributes HealthTrail reads; a bit each in `AttributeSlots.present`.
package enum ExportAttribute: UInt8, CaseIterable {
    case type, unit, value, sourceName, startDate, endDate, key, bpm, time
    case workoutActivityType, duration, durationUnit, totalDistance, totalDistanceUnit
    case totalEnergyBurned, totalEnergyBurnedUnit, date, average, minimum, maximum, sum, uuid, path
    case latitude, longitude, altitude, horizontalAccuracy, verticalAccuracy, course, speed
    case dateComponents, activeEnergyBurned, activeEnergyBurnedGoal, activeEnergyBurnedUnit
    case appleMoveTime, appleMoveTimeGoal, appleExerciseTime, appleExerciseTimeGoal
    case appleStandHours, appleStandHoursGoal, locale
    case dateOfBirth = 60, biologicalSex, bloodType
    case other = 63

    package init(name: SAXName) {
        let text = name.string
        switch text {
        case "HKCharacteristicTypeIdentifierDateOfBirth": self = .dateOfBirth
        case "HKCharacteristicTypeIdentifierBiologicalSex": self = .biologicalSex
        case "HKCharacteristicTypeIdentifierBloodType": self = .bloodType
        default: self = ExportAttribute.allCases.first { "\($0)" == text && $0 != .other } ?? .other
        }
    }
}

/// The attribute values of the element being decoded, as spans into libxml2's buffers or, on
/// the decoding thread, into the `SAXEventCapture` block being replayed.
package final class AttributeSlots {
    private(set) var present: UInt64 = 0
    /// The value of each key present, at its raw value.
    private let slots = ByteSpanSlots(count: 64)
    package let names = InternedNames<ExportAttribute> { ExportAttribute(name: $0) }

    /// Loads the attributes of a start tag libxml2 reports.
    @inline(__always)
    package func load(_ attributes: SAXAttributes) {
        present = 0
        attributes.forEach { name, value in
            let key = names.lookup(name)
            if key == .other { return }
            slots.set(Int(key.rawValue), value)
            present |= 1 << UInt64(key.rawValue)
        }
    }

    /// Forgets every value (before `set`s of a captured element).
    @inline(__always) package func clear() { present = 0 }

    /// One value of a captured element (`SAXEventCapture`).
    @inline(__always)
    package func set(_ key: ExportAttribute, _ value: ByteSpan) {
        guard key != .other else { return }
        slots.set(Int(key.rawValue), value)
        present |= 1 << UInt64(key.rawValue)
    }

    /// The value of `key`, nil when absent; it borrows this table, so it is read in place.
    @inline(__always)
    package subscript(_ key: ExportAttribute) -> ByteSpan? {
        @_lifetime(borrow self) get {
            present & (1 << UInt64(key.rawValue)) != 0 ? slots.span(Int(key.rawValue), heldBy: self) : nil
        }
    }

    package func string(_ key: ExportAttribute) -> String? { self[key]?.string }

    /// The value of `key` as a timestamp; nil when absent or not one.
    @inline(__always) package func timestamp(_ key: ExportAttribute) -> Timestamp? {
        guard let text = self[key] else { return nil }
        return Timestamp.parse(text)
    }

    /// The value of `key` as a number (`NumberText.fastDouble`); nil when absent or not one.
    @inline(__always) package func number(_ key: ExportAttribute) -> Double? {
        guard let text = self[key] else { return nil }
        return NumberText.fastDouble(text)
    }
}
