import HealthTrailArchive
import HealthTrailBase
import HealthTrailXML

/// One `type` of `<Record>` seen in the export, with its count and output file.
public final class RecordType {
    /// `HKQuantityTypeIdentifierStepCount`.
    package let identifier: String
    package let bytes: [UInt8]
    /// The same bytes in memory of its own, compared once per record (`isNamed`) without the
    /// retain and release an array's would cost.
    private let identifierStorage: OwnedBytes
    /// `step_count`: the name of its `records/<name>.csv`.
    package let fileName: String
    /// Quantity records must carry a numeric value; category records carry a name.
    package let isQuantity: Bool
    package let isHeartRate: Bool
    package let isHeartRateVariability: Bool
    /// Records decoded (written) of this type.
    package var count: Int { recordCount }
    package var firstUTC: Int64 { earliestUTC }
    package var lastUTC: Int64 { latestUTC }
    // Stored as internal properties, updated once per record: a public stored property of a
    // class is checked for exclusive access at run time on every update (other modules might
    // access it), an internal one the compiler can check once, at compile time.
    var recordCount = 0
    var earliestUTC: Int64 = .max
    var latestUTC: Int64 = .min
    /// What the type feeds besides its CSV (daily figures, sleep nights).
    package let role: RecordRole
    /// The unit last seen for this type and how to convert it: a type keeps one unit almost
    /// always, so the table lookup runs once per change, not once per record.
    var lastUnit: [UInt8] = []
    var lastConversion: UnitConversion?

    /// - Parameter fileName: `RecordType.fileName(for: identifier)`, checked by the caller.
    package init(identifier: String, fileName: String) {
        self.identifier = identifier
        bytes = Array(identifier.utf8)
        identifierStorage = OwnedBytes(copying: bytes)
        isQuantity = identifier.hasPrefix("HKQuantityTypeIdentifier")
        isHeartRate = identifier == "HKQuantityTypeIdentifierHeartRate"
        isHeartRateVariability = identifier == "HKQuantityTypeIdentifierHeartRateVariabilitySDNN"
        self.fileName = fileName
        role = RecordRole(identifier: identifier)
        keepsItsUnits = identifier.hasPrefix("HKQuantityTypeIdentifierDietary")
    }

    /// True when `span` is this type's identifier.
    @inline(__always) package func isNamed(_ span: ByteSpan) -> Bool { identifierStorage.equals(span) }

    package var cumulativeKind: CumulativeKind? {
        if case .cumulative(let kind) = role { return kind }
        return nil
    }

    /// Nutrition stays in the units its apps log (45 g of protein, not 0.045 kg).
    package let keepsItsUnits: Bool

    /// The conversion of `unit` to the canonical unit of its kind; nil for an unknown unit.
    @inline(__always)
    package func conversion(for unit: ByteSpan) -> UnitConversion? {
        if unit.equals(lastUnit) { return lastConversion }
        lastUnit = unit.bytes
        lastConversion = UnitConversion.forUnit(unit).map { known in
            keepsItsUnits ? UnitConversion(known.unit, known.kind, known.unit) : known
        }
        return lastConversion
    }

    /// `HKQuantityTypeIdentifierHeartRateVariabilitySDNN` → `heart_rate_variability_sdnn`; nil
    /// for a name with no ASCII letter or digit after its prefix, which cannot name a file (the
    /// record is a `bad_type` fault).
    ///
    /// Only ASCII letters, digits and `_` are kept (anything else becomes `_`), and a name
    /// longer than `DataFileName.maxBytes` is shortened with a hash of the identifier: the name
    /// comes from the data and must never fail the run as a file name.
    package static func fileName(for identifier: String) -> String? {
        var name = Substring(identifier)
        for prefix in ["HKQuantityTypeIdentifier", "HKCategoryTypeIdentifier", "HKCorrelationTypeIdentifier", "HKDataType"]
        where name.hasPrefix(prefix) {
            name = name.dropFirst(prefix.count)
            break
        }
        var out = ""
        var previousLowerOrDigit = false, usable = false
        for scalar in name.unicodeScalars {
            switch scalar.value {
            case 0x41...0x5A:   // A-Z
                if previousLowerOrDigit { out.append("_") }
                out.unicodeScalars.append(Unicode.Scalar(scalar.value + 0x20)!)
                previousLowerOrDigit = false
                usable = true
            case 0x61...0x7A, 0x30...0x39:   // a-z, 0-9
                out.unicodeScalars.append(scalar)
                previousLowerOrDigit = true
                usable = true
            default:
                out.append("_")
                previousLowerOrDigit = false
            }
        }
        return usable ? DataFileName.bounded(out, original: identifier) : nil
    }
}
