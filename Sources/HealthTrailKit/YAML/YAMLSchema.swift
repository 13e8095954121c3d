import HealthTrailRun

/// What a YAML value must look like: a tiny schema language, enough for pipeline and release
/// files, that `YAMLSchemaWalker` checks a parsed file against.
///
/// It covers the shape of a file (kinds, ranges, words, known keys); rules that relate several
/// keys ("dp needs privacy.releases") belong to the readers that build the models.
indirect enum YAMLSchema: Sendable {
    /// Any scalar but null and booleans; `nonEmpty` refuses `""`.
    case text(nonEmpty: Bool)
    case bool
    /// A whole number in `range`; `unit` ends the message ("must be 0…3600 seconds").
    case integer(ClosedRange<Int>, unit: String)
    /// A finite number within `bounds`.
    case number(Bounds)
    /// One of a fixed set of words.
    case word([String])
    /// A list of `element`s whose length lies in `count`.
    case list(of: YAMLSchema, count: ClosedRange<Int>)
    /// A mapping with these keys; every other key is a mistake.
    case mapping([Field])
    /// The first alternative of the value's shape (scalar, list or mapping) applies.
    case oneOf([YAMLSchema])

    /// A key of a mapping.
    struct Field: Sendable {
        var name: String
        var schema: YAMLSchema
        var required: Bool = false
        /// Said when a required key is missing, after "required key missing": why it is needed.
        var whyRequired: String? = nil
    }

    /// The range of a number: each end closed (`≤`) or open (`<`).
    struct Bounds: Sendable {
        var lower: Double = -.infinity
        var lowerOpen = false
        var upper: Double = .infinity
        var upperOpen = false
        /// What the number counts (`bpm`): ends the message.
        var unit = ""

        /// Any finite number.
        static let finite = Bounds()

        func contains(_ value: Double) -> Bool {
            guard value.isFinite else { return false }
            return (lowerOpen ? value > lower : value >= lower) && (upperOpen ? value < upper : value <= upper)
        }

        /// `0…3600 seconds`, `> 0 and ≤ 100`, `any finite number`.
        var text: String {
            let suffix = unit.isEmpty ? "" : " " + unit
            switch (lower.isFinite, upper.isFinite) {
            case (false, false): return "a finite number"
            case (true, false): return (lowerOpen ? "> " : "≥ ") + Self.format(lower) + suffix
            case (false, true): return (upperOpen ? "< " : "≤ ") + Self.format(upper) + suffix
            case (true, true):
                if !lowerOpen && !upperOpen { return Self.format(lower) + "…" + Self.format(upper) + suffix }
                return (lowerOpen ? "> " : "≥ ") + Self.format(lower) + " and " + (upperOpen ? "< " : "≤ ") + Self.format(upper) + suffix
            }
        }

        static func format(_ v: Double) -> String { RunOptionDeclaration.numberText(v) }
    }

    /// What a value of this schema is, in words: `a whole number 0…3600 seconds`, `one of day, workout`.
    var expectation: String {
        switch self {
        case .text(let nonEmpty): return nonEmpty ? "non-empty text" : "text"
        case .bool: return "true or false"
        case .integer(let range, let unit):
            let limits = Self.rangeText(range, unit: unit)
            return limits.isEmpty ? "a whole number" : "a whole number " + limits
        case .number(let bounds): return bounds.lower.isFinite || bounds.upper.isFinite ? "a number " + bounds.text : bounds.text
        case .word(let words): return words.count == 1 ? words[0] : "one of " + words.joined(separator: ", ")
        case .list(let element, _): return "a list of " + element.plural
        case .mapping(let fields): return "a mapping of " + fields.map(\.name).joined(separator: ", ")
        case .oneOf(let options): return options.map(\.expectation).joined(separator: ", or ")
        }
    }

    /// What several values of this schema are: `whole numbers`, `words out of csv, geojson`.
    var plural: String {
        switch self {
        case .text(let nonEmpty): return nonEmpty ? "non-empty texts" : "texts"
        case .bool: return "booleans"
        case .integer(let range, let unit):
            let limits = Self.rangeText(range, unit: unit)
            return limits.isEmpty ? "whole numbers" : "whole numbers " + limits
        case .number(let bounds): return "numbers " + bounds.text
        case .word(let words): return words.joined(separator: ", ")
        case .list(let element, _): return "lists of " + element.plural
        case .mapping: return "mappings"
        case .oneOf: return "values (" + expectation + ")"
        }
    }

    /// `0…3600 seconds`, `≥ 2`, `1` (a range of one value), empty for every integer.
    static func rangeText(_ range: ClosedRange<Int>, unit: String) -> String {
        let suffix = unit.isEmpty ? "" : " " + unit
        if range.lowerBound == Int.min && range.upperBound == Int.max { return "" }
        if range.lowerBound == range.upperBound { return "\(range.lowerBound)" + suffix }
        if range.upperBound == Int.max { return "≥ \(range.lowerBound)" + suffix }
        if range.lowerBound == Int.min { return "≤ \(range.upperBound)" + suffix }
        return "\(range.lowerBound)…\(range.upperBound)" + suffix
    }
}
