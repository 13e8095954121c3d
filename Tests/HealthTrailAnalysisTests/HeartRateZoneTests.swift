import HealthTrailBase
import Testing

@testable import HealthTrailAnalysis
@testable import HealthTrailDecode

@Suite struct HeartRateZoneTests {
    /// The fallback zones: bounds 100, 120, 140, 160, 180 bpm.
    let zones = HeartRateZones.fromMaximum(HeartRateZones.fixedMaximum)

    @Test func fallbackBoundsAreInclusiveBelowExclusiveAbove() {
        #expect(zones.zones.map(\.name) == ["zone1", "zone2", "zone3", "zone4", "zone5"])
        #expect(zones.zones.map(\.lower) == [100, 120, 140, 160, 180])
        let cases: [(Double, Int)] = [
            (0, 0), (60, 0), (99.9, 0), (100, 0), (119.9, 0), (120, 1), (139.9, 1), (140, 2), (159.9, 2),
            (160, 3), (179.9, 3), (180, 4), (230, 4), (-5, 0),
        ]
        for (bpm, zone) in cases { #expect(zones.zoneIndex(for: bpm) == zone, "\(bpm)") }
        #expect(zones.zoneIndex(for: .nan) == 0)
    }

    @Test func zonesAreContiguousAndOpenAtTheTop() {
        for z in [zones, .fromMaximum(190), .fromMaximum(187)] {
            #expect(z.zones.count == 5)
            #expect(z.zones.last?.upper == nil)
            for (a, b) in zip(z.zones, z.zones.dropFirst()) { #expect(a.upper == b.lower && a.lower < b.lower) }
            #expect(z.zones.allSatisfy { $0.colour.count == 7 && $0.colour.hasPrefix("#") })
            #expect(Set(z.zones.map(\.colour)).count == z.zones.count)
            #expect(!z.zones.map(\.colour).contains(RouteGeometry.noHeartRateColour))
        }
    }

    @Test func depthAndOpacityRampWithinAZone() {
        #expect(zones.depth(for: 120) == 0)
        #expect(zones.opacity(for: 120) == 0.4)
        #expect(zones.depth(for: 130) == 0.5)
        #expect(abs(zones.opacity(for: 130) - 0.7) < 1e-12)
        #expect(abs(zones.opacity(for: 139.999) - 1.0) < 1e-4)
        #expect(zones.opacity(for: 140) == 0.4)   // next zone starts light again
        // Below zone1's bound: depth 0.
        #expect(zones.depth(for: 60) == 0)
        // Open top zone: a 20 bpm span, saturating.
        #expect(zones.opacity(for: 180) == 0.4)
        #expect(zones.depth(for: 190) == 0.5)
        #expect(zones.opacity(for: 200) == 1.0)
        #expect(zones.opacity(for: 250) == 1.0)
        // Monotonic inside each zone.
        for (lo, hi) in [(0.0, 120.0), (120, 140), (140, 160), (160, 180), (180, 220)] {
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

    @Test func boundsAreWholeBeatsPerMinute() {
        // 187 × 0.5, 0.6, 0.7, 0.8, 0.9 = 93.5, 112.2, 130.9, 149.6, 168.3, rounded.
        #expect(HeartRateZones.fromMaximum(187).zones.map(\.lower) == [94, 112, 131, 150, 168])
    }

    @Test func legendLabelsGiveEachZonesRange() {
        let z = HeartRateZones.fromMaximum(187)
        #expect(
            z.zones.indices.map(z.legendLabel)
                == ["Z1 <112 bpm", "Z2 112–130 bpm", "Z3 131–149 bpm", "Z4 150–167 bpm", "Z5 ≥168 bpm"])
    }

    @Test func workoutMaximumIsTheSecondHighestCredibleOne() {
        // 231 is above the ceiling, 110 below the floor; of 176, 188, 203 the second highest is 188.
        #expect(WorkoutMaximumHeartRate.estimate([176, 231, 110, 203, 188]) == 188)
        // One spike of 205 among several 185s: 185.
        #expect(WorkoutMaximumHeartRate.estimate([185, 205, 185, 160]) == 185)
        #expect(WorkoutMaximumHeartRate.estimate([172]) == 172)
        #expect(WorkoutMaximumHeartRate.estimate([119, 221, 250]) == nil)
        #expect(WorkoutMaximumHeartRate.estimate([]) == nil)
        #expect(WorkoutMaximumHeartRate.estimate([120, 220]) == 120)
    }

    @Test func workoutMaximaTakeTheStatisticElseTheJoinedSamples() {
        func workout(_ start: Int64, _ end: Int64, statisticMaximum: Double?) -> Workout {
            var w = Workout(
                id: "w\(start)", activity: "running", activityType: "HKWorkoutActivityTypeRunning",
                start: Timestamp(utcSeconds: start), end: Timestamp(utcSeconds: end), source: "Watch", line: 1)
            if let statisticMaximum {
                w.statistics = [WorkoutStatistic(type: "HKQuantityTypeIdentifierHeartRate", maximum: statisticMaximum)]
            }
            return w
        }
        let join = HeartRateJoin(
            samples: [(900, 199), (1000, 150), (1500, 171), (2000, 160), (2001, 198), (5000, 140)], tolerance: 15)
        let maxima = WorkoutMaximumHeartRate.workoutMaxima(
            [
                workout(1000, 2000, statisticMaximum: nil),   // 150, 171, 160 inside: 171 (199 and 198 are outside)
                workout(4000, 6000, statisticMaximum: 182),   // its statistic, not the 140 joined
                workout(7000, 8000, statisticMaximum: nil),   // no heart rate at all
            ], join: join)
        #expect(maxima == [171, 182])
    }

    @Test func optionsChooseTheMaximumAndTheFallbacksFollowInOrder() {
        let exportDate = Timestamp(utcSeconds: 1_717_200_000)   // 2024-06-01 UTC
        let dob = "1990-05-06"   // 34 on that date: 186
        func resolved(_ c: ZoneChoice, _ dob: String?, _ workouts: Double?) -> (Double, ZoneChoice.Basis) {
            let r = c.resolve(dateOfBirth: dob, on: exportDate, workoutMaximum: workouts)
            #expect(r.zones == .fromMaximum(r.maximum))
            return (r.maximum, r.basis)
        }
        #expect(resolved(.fromWorkouts, dob, 191) == (191, .workoutMaximum))
        #expect(resolved(.fromWorkouts, dob, nil) == (186, .dateOfBirth))
        #expect(resolved(.fromWorkouts, nil, nil) == (200, .fixed))
        #expect(resolved(.maximum(175), dob, 191) == (175, .option))
        #expect(resolved(.fromDateOfBirth, dob, 191) == (186, .dateOfBirth))
        #expect(resolved(.fromDateOfBirth, nil, 191) == (191, .workoutMaximum))
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
        #expect(on.zones.last?.lower == (0.9 * 186).rounded())
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
