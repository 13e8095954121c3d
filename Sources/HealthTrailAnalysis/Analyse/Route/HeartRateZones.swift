/// One band of heart rate, drawn in one colour.
package struct HeartRateZone: Sendable, Equatable {
    /// Machine-friendly name (`moderate`, `zone3`), used in outputs.
    package var name: String
    /// Inclusive lower bound, bpm.
    package var lower: Double
    /// Exclusive upper bound, bpm; nil for the open top zone.
    package var upper: Double?
    /// `#rrggbb`.
    package var colour: String

    package init(name: String, lower: Double, upper: Double?, colour: String) {
        self.name = name
        self.lower = lower
        self.upper = upper
        self.colour = colour
    }
}

/// An ordered, gap-free partition of heart rate into zones, for colouring routes and
/// accumulating time in zone.
///
/// Invariants the constructors keep: zones ascend, each zone's `upper` is the next one's
/// `lower` and the last is open. The first zone also takes every bpm below its lower bound
/// (`fromMaximum`'s zone1 starts at 50 %), so any bpm (even
/// below 0, or NaN) maps to some zone and a stream never has to handle "no zone" for a present
/// heart rate.
///
/// Colours come from ColorBrewer's diverging RdYlBu / RdYlGn palettes (blue → green → yellow →
/// orange → red). They were designed to stay distinguishable for the common colour-vision
/// deficiencies; the blue and the orange/red ends also differ strongly in lightness, and the
/// opacity ramp (`opacity(for:)`) adds a second cue inside each zone.
package struct HeartRateZones: Sendable, Equatable {
    /// Lowest zone first.
    package var zones: [HeartRateZone]

    package init(zones: [HeartRateZone]) {
        self.zones = zones
    }

    /// Span given to the open top zone by `depth(for:)`: it has no upper bound, and 20 bpm is
    /// about the width of the bounded zones (10 % of a maximum), so the ramp saturates at a rate that is clearly "deep in the top zone".
    package static let openTopSpan: Double = 20

    /// The maximum the zones assume when the export tells nothing about the person: no credible
    /// workout maximum, no date of birth. 200 bpm puts the zone bounds at 100, 120, 140, 160 and
    /// 180 bpm, which keeps every bound of the absolute bands earlier versions used (100, 140,
    /// 180), so a map drawn from it still reads "below 100 is easy, above 180 is all-out".
    package static let fixedMaximum: Double = 200

    /// The five zones of a maximum heart rate, in the common percent-of-maximum split of
    /// 50–60–70–80–90–100 % (the five zones of Sally Edwards' "Heart Zone Training", used by
    /// many training guides; no resting rate is needed, unlike heart-rate-reserve zones):
    /// zone1 50–60 %, zone2 60–70 %, zone3 70–80 %, zone4 80–90 %, zone5 ≥ 90 % of `maxBPM`,
    /// each bound rounded to a whole bpm so the legend's ranges are exactly the zones' (zone3 of
    /// 187 bpm is 131–149 bpm). Colours: blue `#2c7bb6`, green `#1a9641`, yellow `#ffd92f`,
    /// orange `#fdae61`, red `#d7191c`.
    ///
    /// Below 50 % is part of zone1, not a zone of its own: workouts.csv has one column per zone
    /// (`zone_1_s` … `zone_5_s`), and time spent warming up or walking back belongs to the easiest zone
    /// rather than nowhere. zone1 keeps its lower bound at 50 % so that its depth and opacity
    /// still ramp across 50–60 %; anything below sits at depth 0 (opacity 0.4).
    ///
    /// `maxBPM` should be a plausible maximum (> 0); it is not validated.
    package static func fromMaximum(_ maxBPM: Double) -> HeartRateZones {
        let b = [0.5, 0.6, 0.7, 0.8, 0.9].map { ($0 * maxBPM).rounded() }
        return HeartRateZones(zones: [
            HeartRateZone(name: "zone1", lower: b[0], upper: b[1], colour: "#2c7bb6"),
            HeartRateZone(name: "zone2", lower: b[1], upper: b[2], colour: "#1a9641"),
            HeartRateZone(name: "zone3", lower: b[2], upper: b[3], colour: "#ffd92f"),
            HeartRateZone(name: "zone4", lower: b[3], upper: b[4], colour: "#fdae61"),
            HeartRateZone(name: "zone5", lower: b[4], upper: nil, colour: "#d7191c"),
        ])
    }

    /// The legend's words for zone `index`: `Z1 <112 bpm`, `Z3 131–149 bpm`, `Z5 ≥168 bpm`.
    /// zone1 is written "below zone2" because it also takes every rate under its own lower bound.
    package func legendLabel(_ index: Int) -> String {
        let zone = zones[index]
        func bpm(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e6 ? String(Int(value)) : String(value)
        }
        let label = "Z\(index + 1) "
        guard let upper = zone.upper else { return label + "≥\(bpm(zone.lower)) bpm" }
        if index == 0 { return label + "<\(bpm(upper)) bpm" }
        return label + "\(bpm(zone.lower))–\(bpm(upper - 1)) bpm"
    }

    /// `fromMaximum(220 − age)`, the age in whole years on `date` of someone born on `dob`
    /// (`yyyy-MM-dd`, the export's `Me` element `HKCharacteristicTypeIdentifierDateOfBirth`).
    ///
    /// Nil when `dob` is not a valid calendar date in that form, or the age would be negative
    /// or above 120 (a date of birth after `date`, or a typo): a nonsense maximum would colour
    /// every route wrongly, so the caller should fall back to another maximum.
    /// A 29 February birthday is reached on 1 March in common years.
    package static func fromDateOfBirth(_ dob: String, on date: (year: Int, month: Int, day: Int)) -> HeartRateZones? {
        maximum(dateOfBirth: dob, on: date).map(fromMaximum)
    }

    /// 220 − age, the maximum `fromDateOfBirth` splits; nil when it gives nil.
    package static func maximum(dateOfBirth dob: String, on date: (year: Int, month: Int, day: Int)) -> Double? {
        guard let birth = parseDate(dob) else { return nil }
        var age = date.year - birth.year
        if (date.month, date.day) < (birth.month, birth.day) { age -= 1 }
        guard (0...120).contains(age) else { return nil }
        return Double(220 - age)
    }

    /// Strict `yyyy-MM-dd` (digits only, real calendar date).
    private static func parseDate(_ text: String) -> (year: Int, month: Int, day: Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
            (1...12).contains(m)
        else { return nil }
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
        guard (1...days).contains(d) else { return nil }
        return (y, m, d)
    }

    /// Index into `zones` of the zone holding `bpm`: the last zone whose lower bound is ≤ bpm.
    /// Values below the first bound (or NaN) go to zone 0, so every heart rate has a zone.
    /// A linear scan: there are five zones.
    package func zoneIndex(for bpm: Double) -> Int {
        var index = 0
        for (i, zone) in zones.enumerated() where bpm >= zone.lower { index = i }
        return index
    }

    /// How deep `bpm` lies in its zone: 0 at the lower bound, rising linearly to 1 at the upper.
    /// The open top zone has no upper bound and uses a span of `openTopSpan` (20 bpm) above its
    /// lower bound, saturating at 1 beyond. Clamped to 0…1, so bpm below the first zone's
    /// lower bound (zone1 of `fromMaximum` below 50 %) has depth 0.
    package func depth(for bpm: Double) -> Double {
        guard !zones.isEmpty else { return 0 }
        let zone = zones[zoneIndex(for: bpm)]
        let span = zone.upper.map { $0 - zone.lower } ?? Self.openTopSpan
        guard span > 0, bpm.isFinite else { return 0 }
        return min(1, max(0, (bpm - zone.lower) / span))
    }

    /// Opacity for drawing: 0.4 at the bottom of the zone to 1.0 at its top, linear in `depth`.
    /// 0.4 keeps the lightest segment visible on a map while leaving a clear ramp.
    package func opacity(for bpm: Double) -> Double {
        0.4 + 0.6 * depth(for: bpm)
    }
}
