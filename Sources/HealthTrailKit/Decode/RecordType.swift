/// One `type` of `<Record>` seen in the export, with its count and output file.
public final class RecordType {
    /// `HKQuantityTypeIdentifierStepCount`.
    public let identifier: String
    let bytes: [UInt8]
    /// `step_count`: the name of its `records/<name>.csv`.
    public let fileName: String
    /// Quantity records must carry a numeric value; category records carry a name.
    public let isQuantity: Bool
    public let isHeartRate: Bool
    public let isHeartRateVariability: Bool
    /// Records decoded (written) of this type.
    public internal(set) var count = 0
    public internal(set) var firstUTC: Int64 = .max
    public internal(set) var lastUTC: Int64 = .min
    var writer: CSVWriter?

    init(identifier: String) {
        self.identifier = identifier
        bytes = Array(identifier.utf8)
        isQuantity = identifier.hasPrefix("HKQuantityTypeIdentifier")
        isHeartRate = identifier == "HKQuantityTypeIdentifierHeartRate"
        isHeartRateVariability = identifier == "HKQuantityTypeIdentifierHeartRateVariabilitySDNN"
        fileName = RecordType.fileName(for: identifier)
    }

    /// `HKQuantityTypeIdentifierHeartRateVariabilitySDNN` → `heart_rate_variability_sdnn`.
    static func fileName(for identifier: String) -> String {
        var name = Substring(identifier)
        for prefix in ["HKQuantityTypeIdentifier", "HKCategoryTypeIdentifier", "HKCorrelationTypeIdentifier", "HKDataType"]
        where name.hasPrefix(prefix) {
            name = name.dropFirst(prefix.count)
            break
        }
        var out = ""
        var previousLowerOrDigit = false
        for scalar in name.unicodeScalars {
            let isUpper = scalar.properties.isUppercase
            if isUpper {
                if previousLowerOrDigit { out.append("_") }
                out.append(Character(String(scalar).lowercased()))
                previousLowerOrDigit = false
            } else if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                out.append(Character(scalar))
                previousLowerOrDigit = true
            } else {
                out.append("_")
                previousLowerOrDigit = false
            }
        }
        return out.isEmpty ? "unknown" : out
    }
}
