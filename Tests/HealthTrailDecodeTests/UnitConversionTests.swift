import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailXML

@Suite struct UnitConversionTests {
    /// Looks a unit up through the allocation-free byte path, as the decoder does.
    private func lookupBytes(_ unit: String) -> UnitConversion? {
        let bytes = Array(unit.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            // An empty array has no base address: give the span any valid pointer with count 0.
            var zero: UInt8 = 0
            return withUnsafePointer(to: &zero) { fallback in
                UnitConversion.forUnit(ByteSpan(start: buffer.baseAddress ?? fallback, count: buffer.count))
            }
        }
    }

    private func convert(_ value: Double, _ unit: String) throws -> (Double, String) {
        let c = try #require(UnitConversion.forUnit(unit), "\(unit)")
        return (c.convert(value), c.canonicalUnit)
    }

    private func expectClose(
        _ value: Double, _ unit: String, _ expected: Double, _ canonical: String,
        tolerance: Double = 1e-9, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (got, gotUnit) = try convert(value, unit)
        #expect(gotUnit == canonical, "\(unit)", sourceLocation: sourceLocation)
        #expect(
            abs(got - expected) <= tolerance * max(1, abs(expected)), "\(value) \(unit) → \(got), want \(expected)",
            sourceLocation: sourceLocation)
    }

    @Test func lengthsBecomeMetres() throws {
        try expectClose(1, "mi", 1609.344, "m")
        try expectClose(26.2, "mi", 42_164.8128, "m")
        try expectClose(5.123, "km", 5123, "m")
        try expectClose(1, "ft", 0.3048, "m")
        try expectClose(12, "in", 0.3048, "m")
        try expectClose(1, "yd", 0.9144, "m")
        try expectClose(180, "cm", 1.8, "m")
        try expectClose(2500, "mm", 2.5, "m")
        try expectClose(42, "m", 42, "m")
    }

    @Test func energiesBecomeKilocalories() throws {
        try expectClose(418.4, "kJ", 100, "kcal")
        try expectClose(250, "Cal", 250, "kcal")
        try expectClose(250, "kcal", 250, "kcal")
        try expectClose(250_000, "cal", 250, "kcal")
        try expectClose(4184, "J", 1, "kcal")
    }

    @Test func massesBecomeKilograms() throws {
        try expectClose(1, "lb", 0.45359237, "kg")
        try expectClose(165, "lb", 74.84274105, "kg")
        try expectClose(16, "oz", 0.45359237, "kg")
        try expectClose(1, "st", 14 * 0.45359237, "kg")
        try expectClose(750, "g", 0.75, "kg")
        try expectClose(72.5, "kg", 72.5, "kg")
    }

    @Test func durationsBecomeSeconds() throws {
        try expectClose(30, "min", 1800, "s")
        try expectClose(1.5, "hr", 5400, "s")
        try expectClose(2, "h", 7200, "s")
        try expectClose(1, "d", 86_400, "s")
        try expectClose(12, "s", 12, "s")
        // HRV keeps its milliseconds.
        try expectClose(48.7, "ms", 48.7, "ms")
        #expect(UnitConversion.forUnit("ms")?.kind == .shortDuration)
    }

    @Test func temperaturesBecomeCelsius() throws {
        try expectClose(32, "degF", 0, "degC", tolerance: 1e-12)
        try expectClose(212, "degF", 100, "degC", tolerance: 1e-12)
        try expectClose(98.6, "degF", 37, "degC", tolerance: 1e-12)
        try expectClose(-40, "degF", -40, "degC", tolerance: 1e-12)
        try expectClose(36.6, "degC", 36.6, "degC")
        try expectClose(310.15, "K", 37, "degC")
    }

    @Test func fractionsBecomePercent() throws {
        // OxygenSaturation value="0.97" unit="%" is 97 %; BodyFatPercentage 0.2 is 20 %.
        try expectClose(0.97, "%", 97, "%")
        try expectClose(0.2, "%", 20, "%")
        #expect(UnitConversion.forUnit("%")?.isIdentity == false)
    }

    @Test func heartRateIsRenamedNotRescaled() throws {
        let c = try #require(UnitConversion.forUnit("count/min"))
        #expect(c.kind == .heartRate && c.canonicalUnit == "bpm")
        #expect(c.convert(72) == 72)
        #expect(c.preservesValue && !c.isIdentity)
        let count = try #require(UnitConversion.forUnit("count"))
        #expect(count.kind == .count && count.isIdentity)
    }

    @Test func knownButUnnormalisedUnitsPassThrough() throws {
        for unit in [
            "mmHg", "dBASPL", "dBHL", "mL/min\u{00B7}kg", "kcal/hr\u{00B7}kg", "m/s", "km/hr", "mi/hr",
            "count/s", "mg/dL", "mmol<180.1558800000541>/L", "L", "mL", "fl_oz_us", "IU", "mcg", "mg",
            "appleEffortScore", "W", "mcS", "L/min",
        ] {
            let c = try #require(UnitConversion.forUnit(unit), "\(unit)")
            #expect(c.kind == .other, "\(unit)")
            #expect(c.canonicalUnit == unit)
            #expect(c.isIdentity, "\(unit)")
            #expect(c.convert(12.75) == 12.75)
        }
    }

    @Test func identityDetection() throws {
        for unit in ["count", "m", "kcal", "kg", "s", "ms", "degC", "mmHg"] {
            #expect(UnitConversion.forUnit(unit)?.isIdentity == true, "\(unit)")
        }
        for unit in ["count/min", "Cal", "km", "mi", "kJ", "lb", "min", "degF", "%", "g", "cm"] {
            #expect(UnitConversion.forUnit(unit)?.isIdentity == false, "\(unit)")
        }
        // Renamed without rescaling: the value's bytes can still be copied.
        #expect(UnitConversion.forUnit("Cal")?.preservesValue == true)
        #expect(UnitConversion.forUnit("kJ")?.preservesValue == false)
    }

    @Test func unknownUnitsAreNeverGuessed() {
        for unit in [
            "furlong", "", "KM", "Km", "KCAL", "kcal ", " km", "count/minute", "mL/min*kg",
            "mL/min&#183;kg", "degf", "Mi", "sec", "mmol/L", "%%",
        ] {
            #expect(UnitConversion.forUnit(unit) == nil, "\(unit)")
            #expect(lookupBytes(unit) == nil, "\(unit)")
        }
    }

    @Test func byteLookupAgreesWithStringLookup() throws {
        #expect(UnitConversion.known.count > 50)
        for entry in UnitConversion.known {
            #expect(UnitConversion.forUnit(entry.unit) == entry)
            #expect(lookupBytes(entry.unit) == entry, "\(entry.unit)")
        }
        // Same length, different bytes: each of a bucket's entries is told apart.
        #expect(lookupBytes("mi")?.factor == 1609.344)
        #expect(lookupBytes("mm")?.factor == 0.001)
        #expect(lookupBytes("ms")?.kind == .shortDuration)
    }

    @Test func byteLookupReadsOnlyTheSpan() throws {
        // Attribute values sit inside a larger buffer: the span's count, not a NUL, ends them.
        let line = Array("unit=\"kmXYZ\" value=\"3\"".utf8)
        let c = line.withUnsafeBufferPointer { UnitConversion.forUnit(ByteSpan(start: $0.baseAddress! + 6, count: 2)) }
        #expect(c?.unit == "km")
        let none = line.withUnsafeBufferPointer { UnitConversion.forUnit(ByteSpan(start: $0.baseAddress! + 6, count: 5)) }
        #expect(none == nil)
    }

    @Test func everyUnitInTheRealExportsIsKnown() throws {
        // Units found in the real fixtures (ericwolter Export Version 7, k0rventen Version 13).
        for unit in [
            "%", "cm", "count", "count/min", "g", "kcal", "kg", "km", "mg", "dBASPL", "hr", "kJ",
            "km/hr", "m", "mL/min\u{00B7}kg", "min", "ms",
        ] {
            #expect(UnitConversion.forUnit(unit) != nil, "\(unit)")
        }
    }
}
