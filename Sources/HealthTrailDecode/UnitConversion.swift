import HealthTrailArchive
import HealthTrailBase
import HealthTrailXML

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a unit measures, which decides the canonical unit HealthTrail writes for it.
package enum UnitKind: String, Sendable, CaseIterable {
    /// `count/min` → `bpm`. Also what respiratory rate and cycling cadence use: the unit is the same.
    case heartRate
    case count
    /// Canonical `m`.
    case length
    /// Canonical `kcal`.
    case energy
    /// Canonical `kg`.
    case mass
    /// Canonical `s`.
    case duration
    /// Milliseconds kept as `ms`: heart-rate variability (SDNN) is read in ms by everyone.
    case shortDuration
    /// Canonical `degC`.
    case temperature
    /// `%`, rescaled from HealthKit's fraction to a percentage.
    case fraction
    /// A unit HealthKit writes that HealthTrail recognises but does not rescale (mmHg, dBASPL, VO2 max …).
    case other
}

/// How to turn a value in an export unit into HealthTrail's canonical unit for its kind.
///
/// Every output row then carries one unit per kind, whatever locale or device wrote the export:
/// a German iPhone writes `km` and `kJ`, an American one `mi` and `Cal`.
package struct UnitConversion: Sendable, Equatable {
    /// The unit as written in the export (`mi`, `count/min`, …).
    package let unit: String
    package let kind: UnitKind
    /// `bpm`, `count`, `m`, `kcal`, `kg`, `s`, `ms`, `degC`, `%`, or `unit` itself for `.other`.
    package let canonicalUnit: String
    /// canonical = value × factor + offset.
    package let factor: Double
    package let offset: Double

    @inline(__always) package init(
        _ unit: String, _ kind: UnitKind, _ canonicalUnit: String,
        factor: Double = 1, offset: Double = 0
    ) {
        self.unit = unit
        self.kind = kind
        self.canonicalUnit = canonicalUnit
        self.factor = factor
        self.offset = offset
    }

    /// True when nothing changes, value nor unit text: callers copy the original bytes instead of
    /// parsing and re-printing the number (which could alter its digits).
    @inlinable package var isIdentity: Bool { preservesValue && unit == canonicalUnit }

    /// True when the number is unchanged though the unit may be renamed (`count/min` → `bpm`,
    /// `Cal` → `kcal`): the value's bytes can still be copied as written.
    @inlinable package var preservesValue: Bool { factor == 1 && offset == 0 }

    /// The value in `canonicalUnit`.
    ///
    /// Floating point: `0.29 × 100` is `28.999999999999996`, so writers should print converted
    /// values with bounded precision rather than the shortest round-trip representation.
    @inlinable @inline(__always) package func convert(_ value: Double) -> Double {
        value * factor + offset
    }

    /// Looks up a unit as written in the export (exact, case-sensitive text as Apple writes it).
    /// nil = unknown unit: never guessed, so `KM` or `Km` is not `km`.
    package static func forUnit(_ unit: String) -> UnitConversion? {
        UnitTable.shared.byName[unit]
    }

    /// Same lookup on raw bytes without allocating (hot path: once per record).
    ///
    /// Candidates are bucketed by byte length, so at most a handful of comparisons run, each
    /// after a first-byte check.
    package static func forUnit(_ unit: ByteSpan) -> UnitConversion? {
        let table = UnitTable.shared
        let n = unit.count
        guard n > 0, n < table.bucketStart.count - 1 else { return nil }
        let first = unit[0]
        for i in table.bucketStart[n]..<table.bucketStart[n + 1] {
            if table.entry(i, hasUnit: unit, first: first) { return table.conversions[i] }
        }
        return nil
    }

    /// Every unit HealthTrail recognises, in table order.
    package static var known: [UnitConversion] { UnitTable.entries }
}

/// The unit strings of Apple Health exports, as HealthKit's `HKUnit.unitString` prints them.
///
/// The XML parser substitutes entities, so `mL/min&#183;kg` in the file arrives here as the
/// UTF-8 middle dot U+00B7 (`C2 B7`), and glucose's `mmol&lt;180.1558800000541&gt;/L` as `<…>`.
///
/// `@unchecked Sendable`: every stored property is a `let` set in `init`, and `blob` is never
/// written after `init`, so any thread may read them for as long as the table lives (`shared`
/// lives for the whole process).
private final class UnitTable: @unchecked Sendable {
    package static let entries: [UnitConversion] = {
        var e: [UnitConversion] = []
        func add(_ unit: String, _ kind: UnitKind, _ canonical: String, _ factor: Double = 1, _ offset: Double = 0) {
            e.append(UnitConversion(unit, kind, canonical, factor: factor, offset: offset))
        }
        // Rates per minute: heart rate, respiratory rate, cadence. Same number, clearer name.
        add("count/min", .heartRate, "bpm")
        add("count", .count, "count")

        // Length → metres; imperial factors are exact by definition (international yard, 1959).
        add("m", .length, "m")
        add("km", .length, "m", 1000)
        add("cm", .length, "m", 0.01)
        add("mm", .length, "m", 0.001)
        add("mi", .length, "m", 1609.344)
        add("yd", .length, "m", 0.9144)
        add("ft", .length, "m", 0.3048)
        add("in", .length, "m", 0.0254)

        // Energy → kilocalories. `Cal` (large calorie, older exports and US diet records) is a kcal;
        // `cal` is the small calorie; thermochemical calorie: 1 cal = 4.184 J.
        add("kcal", .energy, "kcal")
        add("Cal", .energy, "kcal")
        add("cal", .energy, "kcal", 0.001)
        add("kJ", .energy, "kcal", 1 / 4.184)
        add("J", .energy, "kcal", 1 / 4184)

        // Mass → kilograms; avoirdupois pound exact by definition, ounce = lb/16, stone = 14 lb.
        add("kg", .mass, "kg")
        add("g", .mass, "kg", 0.001)
        add("lb", .mass, "kg", 0.45359237)
        add("oz", .mass, "kg", 0.028349523125)
        add("st", .mass, "kg", 6.35029318)

        // Durations → seconds.
        add("s", .duration, "s")
        add("min", .duration, "s", 60)
        add("hr", .duration, "s", 3600)
        add("h", .duration, "s", 3600)
        add("d", .duration, "s", 86400)
        // Heart-rate variability stays in milliseconds: seconds would make every value 0.0xx.
        add("ms", .shortDuration, "ms")

        // Temperature → Celsius: (v − 32) × 5/9 = v × 5/9 − 160/9; kelvin: v − 273.15.
        add("degC", .temperature, "degC")
        add("degF", .temperature, "degC", 5.0 / 9.0, -160.0 / 9.0)
        add("K", .temperature, "degC", 1, -273.15)

        // HealthKit stores percentages as fractions and exports them so: OxygenSaturation
        // value="0.97" unit="%" means 97 %, BodyFatPercentage 0.2 means 20 %. Canonical % is 0–100.
        add("%", .fraction, "%", 100)

        // Known, written through unchanged. Listed so that a unit HealthTrail has never seen is
        // reported as unknown instead of silently passing.
        for unit in [
            "mmHg",   // blood pressure
            "cmAq", "atm", "kPa",   // other pressures HKUnit offers
            "dBASPL",   // environmental / headphone audio exposure
            "dBHL",   // audiogram hearing level
            "mL/min\u{00B7}kg",   // VO2 max, middle dot as Apple writes it
            "kcal/hr\u{00B7}kg",   // physical effort (METs)
            "m/s", "km/hr", "mi/hr",   // walking / running speed
            "count/s",
            "mg/dL",   // blood glucose, mass concentration
            "mmol<180.1558800000541>/L",   // blood glucose, molar with glucose's molar mass
            "mmol<180.15588000005408>/L",   // same, printed with 17 significant digits
            "L", "mL", "fl_oz_us", "fl_oz_imp", "cup_us", "cup_imp",   // water, lung volumes
            "L/min",   // peak expiratory flow
            "IU",   // insulin delivery
            "mg", "mcg",   // nutrients: kept small, kg would be all zeros
            "W",   // running / cycling power
            "S", "mcS",   // electrodermal activity (siemens)
            "lx",   // illuminance
            "deg",   // angle
            "appleEffortScore",   // workout effort 1–10
        ] {
            add(unit, .other, unit)
        }
        return e
    }()

    package static let shared = UnitTable(entries)

    package let byName: [String: UnitConversion]
    /// Unit bytes of every entry, back to back, sorted by length, and the offset each starts at.
    private let blob: OwnedBytes
    private let unitOffsets: [Int]
    package let conversions: [UnitConversion]
    /// Entries of byte length n are `bucketStart[n] ..< bucketStart[n + 1]`.
    package let bucketStart: [Int]

    /// True when entry `i`, of `unit.count` bytes (its bucket's length), is `unit`, whose first
    /// byte is `first`: that byte is compared before the rest.
    @inline(__always) package func entry(_ i: Int, hasUnit unit: ByteSpan, first: UInt8) -> Bool {
        let blob = self.blob
        let candidate = blob.span.dropFirst(unitOffsets[i]).prefix(unit.count)
        return candidate[0] == first && candidate.equals(unit)
    }

    package init(_ entries: [UnitConversion]) {
        var byName: [String: UnitConversion] = [:]
        for entry in entries {
            // The insertion stays outside the check: a condition is not evaluated in every build.
            let previous = byName.updateValue(entry, forKey: entry.unit)
            precondition(previous == nil, "duplicate unit \(entry.unit)")
        }
        self.byName = byName
        let sorted = entries.enumerated().sorted {
            ($0.element.unit.utf8.count, $0.offset) < ($1.element.unit.utf8.count, $1.offset)
        }.map(\.element)
        let maxLength = sorted.last?.unit.utf8.count ?? 0
        var blob: [UInt8] = []
        var offsets: [Int] = []
        var starts = [Int](repeating: 0, count: maxLength + 2)
        for entry in sorted {
            offsets.append(blob.count)
            blob.append(contentsOf: entry.unit.utf8)
        }
        // bucketStart[n] = number of entries shorter than n.
        for n in 0...(maxLength + 1) {
            starts[n] = sorted.prefix { $0.unit.utf8.count < n }.count
        }
        let storage = OwnedBytes(copying: blob)
        self.blob = storage
        self.unitOffsets = offsets
        self.conversions = sorted
        self.bucketStart = starts
    }
}
