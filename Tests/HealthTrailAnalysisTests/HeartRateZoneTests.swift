import Testing

@testable import HealthTrailAnalysis

@Suite struct HeartRateZoneTests {
    let zones = HeartRateZones.default

    @Test func defaultBoundsAreInclusiveBelowExclusiveAbove() {
        #expect(zones.zones.map(\.name) == ["resting", "moderate", "vigorous", "maximum"])
        let cases: [(Double, Int)] = [
            (0, 0), (60, 0), (99.9, 0), (100, 1), (139.9, 1), (140, 2), (179.9, 2),
            (180, 3), (230, 3), (-5, 0),
        ]
        for (bpm, zone) in cases { #expect(zones.zoneIndex(for: bpm) == zone, "\(bpm)") }
        #expect(zones.zoneIndex(for: .nan) == 0)
        #expect(zones.zones.map(\.colour) == ["#2c7bb6", "#1a9641", "#fdae61", "#d7191c"])
    }

    @Test func zonesAreContiguousAndOpenAtTheTop() {
        for z in [HeartRateZones.default, .fromMaximum(190)] {
            #expect(z.zones.last?.upper == nil)
            for (a, b) in zip(z.zones, z.zones.dropFirst()) { #expect(a.upper == b.lower && a.lower < b.lower) }
            #expect(z.zones.allSatisfy { $0.colour.count == 7 && $0.colour.hasPrefix("#") })
            #expect(Set(z.zones.map(\.colour)).count == z.zones.count)
            #expect(!z.zones.map(\.colour).contains(RouteGeometry.noHeartRateColour))
        }
        #expect(HeartRateZones.default.zones.first?.lower == 0)
    }

    @Test func depthAndOpacityRampWithinAZone() {
        #expect(zones.depth(for: 100) == 0)
        #expect(zones.opacity(for: 100) == 0.4)
        #expect(zones.depth(for: 120) == 0.5)
        #expect(abs(zones.opacity(for: 120) - 0.7) < 1e-12)
        #expect(abs(zones.opacity(for: 139.999) - 1.0) < 1e-4)
        #expect(zones.opacity(for: 140) == 0.4)   // next zone starts light again
        // Open top zone: a 20 bpm span, saturating.
        #expect(zones.opacity(for: 180) == 0.4)
        #expect(zones.depth(for: 190) == 0.5)
        #expect(zones.opacity(for: 200) == 1.0)
        #expect(zones.opacity(for: 250) == 1.0)
        // Monotonic inside each zone.
        for (lo, hi) in [(0.0, 100.0), (100, 140), (140, 180), (180, 220)] {
            var previous = -1.0
            var bpm = lo
            while bpm < hi {
                let o = zones.opacity(for: bpm)
                #expect(o >= previous && o >= 0.4 && o <= 1.0, "\(bpm)")
                previous = o
                bpm += 0.5
            }
        }
    }

    @Test func fiveZonesFromAMaximum() {
        let z = HeartRateZones.fromMaximum(190)
        #expect(z.zones.map(\.name) == ["zone1", "zone2", "zone3", "zone4", "zone5"])
        #expect(z.zones.map(\.lower) == [95, 114, 133, 152, 171])
        #expect(z.zones.map(\.upper) == [114, 133, 152, 171, nil])
        #expect(z.zones.map(\.colour) == ["#2c7bb6", "#1a9641", "#ffd92f", "#fdae61", "#d7191c"])
        let cases: [(Double, Int)] = [
            (60, 0), (94.9, 0), (95, 0), (113.9, 0), (114, 1), (133, 2), (151.9, 2),
            (152, 3), (170.9, 3), (171, 4), (205, 4),
        ]
        for (bpm, zone) in cases { #expect(z.zoneIndex(for: bpm) == zone, "\(bpm)") }
        // Below 50 % belongs to zone1 at its lightest; zone1 still ramps across 50–60 %.
        #expect(z.depth(for: 60) == 0 && z.opacity(for: 60) == 0.4)
        #expect(z.depth(for: 95) == 0)
        #expect(z.depth(for: 104.5) == 0.5)
        #expect(z.depth(for: 123.5) == 0.5)
    }

    @Test func maximumFromDateOfBirth() throws {
        // The day before the 34th birthday: still 33.
        let before = try #require(HeartRateZones.fromDateOfBirth("1990-05-06", on: (2024, 5, 5)))
        #expect(before == .fromMaximum(187))
        let on = try #require(HeartRateZones.fromDateOfBirth("1990-05-06", on: (2024, 5, 6)))
        #expect(on == .fromMaximum(186))
        #expect(on.zones.last?.lower == 0.9 * 186)
        // 29 February birthdays are reached on 1 March in common years.
        #expect(HeartRateZones.fromDateOfBirth("2000-02-29", on: (2023, 2, 28)) == .fromMaximum(198))
        #expect(HeartRateZones.fromDateOfBirth("2000-02-29", on: (2023, 3, 1)) == .fromMaximum(197))
    }

    @Test(arguments: [
        "", "1990", "1990-5-6", "1990-13-01", "1990-02-30", "1990-05-06T00:00", "90-05-06",
        "1990/05/06", "abcd-ef-gh", "2025-01-01", "1800-01-01", "1990-+5-06",
    ])
    func unusableDatesOfBirthGiveNil(_ dob: String) {
        // 2025-01-01 is after the date: a negative age; 1800 gives an age over 120.
        #expect(HeartRateZones.fromDateOfBirth(dob, on: (2024, 6, 1)) == nil)
    }
}
