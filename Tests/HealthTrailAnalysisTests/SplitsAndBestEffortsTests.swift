import Testing

@testable import HealthTrailAnalysis

/// Splits and best efforts of workout tracks: known answers on generated tracks, and random
/// tracks compared with straightforward (dense, quadratic) references.
@Suite struct SplitsAndBestEffortsTests {
    /// UTC seconds the generated tracks start at.
    static let startTime: Int64 = 1_700_000_000

    /// One sample a second at `metresPerSecond` for `seconds`, always moving, climbing 0.01 m/s,
    /// at 150 bpm. 3.125 m/s (5:20 per km) makes every kilometre a whole number of seconds, so
    /// boundaries fall on samples and the expected figures are exact.
    static func steady(metresPerSecond: Double, seconds: Int, bpm: Double? = 150) -> [TrackSample] {
        (0...seconds).map { i in
            let t = Double(i)
            return TrackSample(
                time: startTime + Int64(i), distance: metresPerSecond * t, elapsed: t, moving: t, climb: 0.01 * t, bpm: bpm)
        }
    }

    /// The splits of `samples`, added one by one.
    static func splits(_ samples: [TrackSample], unit: Double) -> [Split] {
        var builder = SplitBuilder(unit: unit)
        for sample in samples { builder.add(sample) }
        return builder.finish()
    }

    /// True when `a` and `b` agree to `relative` of the larger magnitude (or of 1 near zero).
    static func close(_ a: Double, _ b: Double, relative: Double = 1e-9) -> Bool {
        abs(a - b) <= relative * max(1, abs(a), abs(b))
    }

    /// True when two optional values are both nil or agree like `close`.
    static func close(_ a: Double?, _ b: Double?, relative: Double = 1e-9) -> Bool {
        switch (a, b) {
        case let (a?, b?): return close(a, b, relative: relative)
        case (nil, nil): return true
        default: return false
        }
    }

    // MARK: Known answers

    @Test func tenKilometresAtConstantPaceMakeTenEqualSplits() throws {
        let track = Self.steady(metresPerSecond: 3.125, seconds: 3200)
        let splits = Self.splits(track, unit: SplitBuilder.kilometre)
        #expect(splits.count == 10)
        #expect(splits.map(\.index) == Array(1...10))
        for split in splits {
            #expect(!split.isPartial)
            #expect(Self.close(split.distance, 1000, relative: 1e-6))
            #expect(Self.close(split.elapsed, 320, relative: 1e-6))
            #expect(Self.close(split.moving, 320, relative: 1e-6))
            #expect(Self.close(split.paceSecondsPerKilometre, 320, relative: 1e-6))
            #expect(Self.close(split.paceSecondsPerMile, 320 * 1.609344, relative: 1e-6))
            #expect(Self.close(split.climb, 3.2, relative: 1e-6))
            #expect(Self.close(split.meanBPM, 150))
            #expect(Self.close(split.endTime, Double(Self.startTime) + 320 * Double(split.index)))
        }
        let fiveKilometres = try #require(BestEfforts.fastest(track, distance: 5000))
        #expect(Self.close(fiveKilometres.elapsed, 1600))
        #expect(Self.close(fiveKilometres.end - fiveKilometres.start, 1600))
        let kilometre = try #require(BestEfforts.fastest(track, distance: 1000))
        #expect(Self.close(kilometre.elapsed, splits[0].elapsed))
        #expect(BestEfforts.fastest(track, distance: 10_000 + 2 * TrackSample.distanceTolerance) == nil)
        #expect(Self.close(BestEfforts.fastest(track, distance: 10_000)?.elapsed, 3200))
        // The named targets the track is long enough for, in order.
        #expect(BestEfforts.fastest(track, targets: BestEfforts.running).map(\.name) == ["400 m", "1 km", "1 mile", "5 km", "10 km"])
        #expect(BestEfforts.fastest(track, targets: BestEfforts.cycling).map(\.name) == ["5 km", "10 km"])
    }

    /// One sample a second at 4:00 per kilometre (1000 / 240 m/s) for `seconds`, the distances
    /// scaled so that the last one is `total` metres: a sum of steps that rounds short of it.
    static func fourMinuteKilometres(seconds: Int, total: Double) -> [TrackSample] {
        (0...seconds).map { i in
            let t = Double(i)
            return TrackSample(
                time: startTime + Int64(i), distance: total * t / Double(seconds), elapsed: t, moving: t, climb: 0, bpm: nil)
        }
    }

    @Test func aTrackOfExactlyTenKilometresRoundedShortEndsOnItsTenthBoundary() throws {
        // 2400 s at 4:00 per kilometre, its last sample 50 nm short of 10,000 m (well inside the
        // 1 mm tolerance): ten full splits, the tenth ending at the last sample, a 10 km effort
        // of 2400 s and a 5 km one of 1200 s.
        let track = Self.fourMinuteKilometres(seconds: 2400, total: 10_000 - 5e-8)
        let splits = Self.splits(track, unit: SplitBuilder.kilometre)
        #expect(splits.count == 10)
        #expect(splits.allSatisfy { !$0.isPartial && $0.distance == 1000 })
        #expect(splits.last?.endTime == Double(Self.startTime + 2400))
        #expect(Self.close(splits.last?.elapsed, 240, relative: 1e-6))
        let efforts = BestEfforts.fastest(track, targets: BestEfforts.running)
        #expect(efforts.map(\.name) == ["400 m", "1 km", "1 mile", "5 km", "10 km"])
        let tenKilometres = try #require(efforts.first { $0.name == "10 km" }?.effort)
        #expect(Self.close(tenKilometres.elapsed, 2400, relative: 1e-6) && Self.close(tenKilometres.active, 2400, relative: 1e-6))
        #expect(Self.close(efforts.first { $0.name == "5 km" }?.effort.elapsed, 1200, relative: 1e-6))
        // Before it is finished, the builder knows the split its end would close: the map's.
        var builder = SplitBuilder(unit: SplitBuilder.kilometre)
        for sample in track { builder.add(sample) }
        #expect(builder.splits.count == 9)
        let closing = try #require(builder.splitEndingAtTrackEnd)
        #expect(closing.index == 10 && closing.endTime == Double(Self.startTime + 2400) && !closing.isPartial)
        #expect(builder.finish().last == closing)
        #expect(builder.splitEndingAtTrackEnd == nil)
        // 2 mm short is short: a partial tenth split and no 10 km effort.
        let short = Self.fourMinuteKilometres(seconds: 2400, total: 10_000 - 0.002)
        let shortSplits = Self.splits(short, unit: SplitBuilder.kilometre)
        #expect(shortSplits.count == 10 && shortSplits.last?.isPartial == true)
        #expect(BestEfforts.fastest(short, distance: 10_000) == nil)
        var shortBuilder = SplitBuilder(unit: SplitBuilder.kilometre)
        for sample in short { shortBuilder.add(sample) }
        #expect(shortBuilder.splitEndingAtTrackEnd == nil)
    }

    @Test(arguments: [-3e-8, 3e-8])
    func standingStillAtHalfwayIsLeftOutOfTheEffort(rounding: Double) throws {
        // 5 km at 4:00 per kilometre, its end `rounding` off 5000 m (a sum's rounding either
        // way); standing 300 s there (a sample a second, no pause: active time); 5 km more. The
        // fastest 5 km is either half, 1200 s, not the 1500 s of a stretch across the stand.
        var track = Self.fourMinuteKilometres(seconds: 1200, total: 5000 + rounding)
        let halfway = track[track.count - 1]
        for i in 1...300 {
            track.append(
                TrackSample(
                    time: halfway.time + Int64(i), distance: halfway.distance, elapsed: halfway.elapsed + Double(i),
                    moving: halfway.moving, climb: 0, bpm: nil))
        }
        for i in 1...1200 {
            let t = Double(i)
            track.append(
                TrackSample(
                    time: halfway.time + 300 + Int64(i), distance: halfway.distance + (5000 + rounding) * t / 1200,
                    elapsed: halfway.elapsed + 300 + t, moving: halfway.moving + t, climb: 0, bpm: nil))
        }
        let effort = try #require(BestEfforts.fastest(track, distance: 5000))
        #expect(Self.close(effort.elapsed, 1200, relative: 1e-6) && Self.close(effort.active, 1200, relative: 1e-6))
        // The stand counts in the fifth split, which ends the last moment at its boundary:
        // 240 s running and 300 s standing, whichever side of 5000 m the sum rounds to.
        let splits = Self.splits(track, unit: SplitBuilder.kilometre)
        #expect(splits.count == 10 && splits.allSatisfy { !$0.isPartial })
        #expect(Self.close(splits[4].elapsed, 540, relative: 1e-6) && splits[4].endTime == Double(halfway.time + 300))
        #expect(Self.close(splits[5].elapsed, 240, relative: 1e-6))
    }

    @Test func aPauseCountsInTheEffortByTheClockNotInItsActiveTime() throws {
        // 6 km at 4:00 per kilometre with a 300 s pause at 3 km (time passes, neither distance
        // nor active time): every 5 km stretch holds the pause, so the fastest is 1200 s active
        // and 1500 s by the clock; its pace is from the clock, 300 s per kilometre.
        var track = Self.fourMinuteKilometres(seconds: 1440, total: 6000)
        for k in 721..<track.count { track[k].time += 300 }
        var resumed = track[720]
        resumed.time += 300
        track.insert(resumed, at: 721)
        let effort = try #require(BestEfforts.fastest(track, distance: 5000))
        #expect(Self.close(effort.elapsed, 1500, relative: 1e-9) && Self.close(effort.active, 1200, relative: 1e-9))
        #expect(effort.end - effort.start == effort.elapsed)
    }

    @Test func tenAndAHalfKilometresEndWithAPartialSplit() throws {
        let track = Self.steady(metresPerSecond: 3.125, seconds: 3360)
        let splits = Self.splits(track, unit: SplitBuilder.kilometre)
        #expect(splits.count == 11)
        #expect(splits.dropLast().allSatisfy { !$0.isPartial && Self.close($0.distance, 1000) })
        let last = try #require(splits.last)
        #expect(last.isPartial && last.index == 11)
        #expect(Self.close(last.distance, 500))
        #expect(Self.close(last.elapsed, 160))
        #expect(Self.close(last.paceSecondsPerKilometre, 320))
        #expect(last.endTime == Double(Self.startTime + 3360))
    }

    @Test func mileSplitsOfTheSameRuns() throws {
        for seconds in [3200, 3360] {
            let track = Self.steady(metresPerSecond: 3.125, seconds: seconds)
            let splits = Self.splits(track, unit: SplitBuilder.mile)
            #expect(splits.count == 7)
            for split in splits.prefix(6) {
                #expect(!split.isPartial && Self.close(split.distance, 1609.344))
                #expect(Self.close(split.elapsed, 1609.344 / 3.125))
                // The pace stays per kilometre whatever the unit.
                #expect(Self.close(split.paceSecondsPerKilometre, 320))
                #expect(Self.close(split.endTime, Double(Self.startTime) + Double(split.index) * 1609.344 / 3.125))
            }
            let last = try #require(splits.last)
            #expect(last.isPartial)
            #expect(Self.close(last.distance, 3.125 * Double(seconds) - 6 * 1609.344))
        }
    }

    @Test func theFastestKilometreLiesInTheFastSection() throws {
        // 3 m/s for 1800 m, 5 m/s for 1200 m, 3 m/s for 1800 m; one sample a second.
        var track: [TrackSample] = []
        var distance = 0.0
        for i in 0...1440 {
            if i > 0 { distance += (600..<840).contains(i - 1) ? 5 : 3 }
            let t = Double(i)
            track.append(TrackSample(time: Self.startTime + Int64(i), distance: distance, elapsed: t, moving: t, climb: 0, bpm: nil))
        }
        #expect(distance == 4800)
        let kilometre = try #require(BestEfforts.fastest(track, distance: 1000))
        #expect(Self.close(kilometre.elapsed, 200))
        #expect(kilometre.start >= Double(Self.startTime + 600) && kilometre.end <= Double(Self.startTime + 840))
        #expect(Self.close(kilometre.end - kilometre.start, 200))
        // 1.5 km: all 1200 fast metres (240 s) and 300 slow ones (100 s).
        #expect(Self.close(BestEfforts.fastest(track, distance: 1500)?.elapsed, 340))
        // The splits show it too: the third kilometre is 1800–2800, inside the fast section.
        let splits = Self.splits(track, unit: 1000)
        #expect(Self.close(splits[2].elapsed, 200))
        #expect(Self.close(splits[1].elapsed, 800.0 / 3 + 200.0 / 5))   // 800 m slow, 200 m fast
    }

    @Test func stopsAtTheEndsOfAnEffortAreLeftOut() throws {
        // Standing 60 s at the start, 1000 m at 4 m/s, standing 60 s at the end.
        var track: [TrackSample] = []
        for i in 0...370 {
            let running = min(max(i - 60, 0), 250)
            track.append(
                TrackSample(
                    time: Self.startTime + Int64(i), distance: 4 * Double(running), elapsed: Double(i), moving: Double(running),
                    climb: 0, bpm: 140))
        }
        let effort = try #require(BestEfforts.fastest(track, distance: 1000))
        #expect(effort.elapsed == 250)
        #expect(effort.start == Double(Self.startTime + 60) && effort.end == Double(Self.startTime + 310))
        // The split, though, holds every second of the track.
        let splits = Self.splits(track, unit: 1000)
        #expect(splits.count == 1 && splits[0].elapsed == 370 && splits[0].moving == 250 && !splits[0].isPartial)
    }

    @Test func aStopOnABoundaryCountsInTheSplitThatEndsThere() {
        // 100 m in 10 s, a 30 s stop exactly at 100 m, then 100 m in 20 s.
        let track = [
            TrackSample(time: 0, distance: 0, elapsed: 0, moving: 0, climb: 0, bpm: 100),
            TrackSample(time: 10, distance: 100, elapsed: 10, moving: 10, climb: 1, bpm: 120),
            TrackSample(time: 40, distance: 100, elapsed: 40, moving: 10, climb: 1, bpm: 80),
            TrackSample(time: 60, distance: 200, elapsed: 60, moving: 30, climb: 3, bpm: nil),
        ]
        let splits = Self.splits(track, unit: 100)
        #expect(splits.count == 2)
        #expect(splits[0].elapsed == 40 && splits[0].moving == 10 && splits[0].endTime == 40)
        #expect(splits[1].elapsed == 20 && splits[1].moving == 20 && splits[1].climb == 2 && splits[1].endTime == 60)
        // Split 1: 10 s at (100+120)/2, 30 s at (120+80)/2. Split 2: one known end, 80.
        #expect(Self.close(splits[0].meanBPM, (10 * 110 + 30 * 100) / 40.0))
        #expect(splits[1].meanBPM == 80)
        #expect(splits.allSatisfy { !$0.isPartial })
    }

    @Test func aLongStepCompletesSeveralSplitsAtOnce() {
        var builder = SplitBuilder(unit: 100)
        #expect(builder.add(TrackSample(time: 0, distance: 0, elapsed: 0, moving: 0, climb: 0, bpm: nil)) == 0)
        #expect(builder.add(TrackSample(time: 50, distance: 350, elapsed: 50, moving: 50, climb: 7, bpm: nil)) == 3)
        #expect(zip(builder.splits.map(\.endTime), [100.0 / 7, 200.0 / 7, 300.0 / 7]).allSatisfy { Self.close($0, $1) })
        #expect(builder.splits.allSatisfy { Self.close($0.elapsed, 100.0 / 7) && Self.close($0.climb, 2) && $0.meanBPM == nil })
        let splits = builder.finish()
        #expect(splits.count == 4 && splits[3].isPartial && Self.close(splits[3].distance, 50))
        // Finished: more samples are ignored and the answer stays the same.
        #expect(builder.add(TrackSample(time: 60, distance: 500, elapsed: 60, moving: 60, climb: 7, bpm: nil)) == 0)
        #expect(builder.finish() == splits)
    }

    @Test func aTinyLastStretchIsFoldedIntoTheLastSplit() throws {
        var track = Self.steady(metresPerSecond: 3.125, seconds: 640)   // 2000 m
        track.append(TrackSample(time: Self.startTime + 700, distance: 2000.4, elapsed: 650, moving: 641, climb: 6.5, bpm: 150))
        let splits = Self.splits(track, unit: 1000)
        #expect(splits.count == 2)
        let last = try #require(splits.last)
        #expect(!last.isPartial && Self.close(last.distance, 1000.4))
        #expect(Self.close(last.elapsed, 330) && Self.close(last.moving, 321) && Self.close(last.climb, 3.3))
        #expect(last.endTime == Double(Self.startTime + 700))
        // A track shorter than the minimum has no split; with a metre or more it has a partial one.
        #expect(Self.splits(Array(Self.steady(metresPerSecond: 0.1, seconds: 9)), unit: 1000).isEmpty)
        let short = Self.splits(Self.steady(metresPerSecond: 0.1, seconds: 10), unit: 1000)
        #expect(short.count == 1 && short[0].isPartial && Self.close(short[0].distance, 1))
        // Under `minimumPaceDistance`, no pace.
        #expect(short[0].paceSecondsPerKilometre == nil && short[0].paceSecondsPerMile == nil)
    }

    @Test func degenerateInputs() {
        let one = [TrackSample(time: 0, distance: 0, elapsed: 0, moving: 0, climb: 0, bpm: nil)]
        #expect(Self.splits([], unit: 1000).isEmpty)
        #expect(Self.splits(one, unit: 1000).isEmpty)
        #expect(BestEfforts.fastest([], distance: 400) == nil)
        #expect(BestEfforts.fastest(one, distance: 400) == nil)
        let track = Self.steady(metresPerSecond: 3, seconds: 200)
        for distance in [0, -1, Double.nan, .infinity, 601] { #expect(BestEfforts.fastest(track, distance: distance) == nil) }
        // Standing still only: no distance, no split, no effort.
        let standing = (0...10).map { TrackSample(time: Int64($0), distance: 5, elapsed: Double($0), moving: 0, climb: 0, bpm: 90) }
        #expect(Self.splits(standing, unit: 1).isEmpty)
        #expect(BestEfforts.fastest(standing, distance: 1) == nil)
        // Moving without moving time: a split with no pace.
        let drifting = (0...10).map { TrackSample(time: Int64($0), distance: 20 * Double($0), elapsed: Double($0), moving: 0, climb: 0, bpm: nil) }
        #expect(Self.splits(drifting, unit: 100).allSatisfy { $0.paceSecondsPerKilometre == nil })
    }

    @Test func bestEffortWorkIsLinearInTheSamples() {
        // Counted loop iterations and pointer moves, not time: two passes over n samples, each
        // pointer moving at most n times.
        var random = SplitMix64(seed: 7)
        let track = Self.randomTrack(&random, count: 300_000)
        let total = track[track.count - 1].distance - track[0].distance
        for distance in [400, 5000, total / 2, total] {
            var steps = 0
            #expect(BestEfforts.fastest(track, distance: distance, steps: &steps) != nil)
            #expect(steps <= 4 * track.count, "\(distance): \(steps) steps")
        }
    }

    // MARK: Random tracks against references

    @Test func randomTracksMatchTheQuadraticReference() {
        var random = SplitMix64(seed: 2024)
        var compared = 0
        for trackNumber in 0..<400 {
            let track = Self.randomTrack(&random, count: Int(random.next(upTo: 300)) + 2)
            let first = track[0].distance
            let total = track[track.count - 1].distance - first
            var targets = [total, total * 1.000001 + 1, 400, 1000]
            for _ in 0..<4 { targets.append(total * random.unit()) }
            // Distances between two samples: both ends of the optimum may then fall on samples.
            for _ in 0..<3 {
                let i = Int(random.next(upTo: UInt64(track.count))), j = Int(random.next(upTo: UInt64(track.count)))
                targets.append(abs(track[j].distance - track[i].distance))
            }
            for distance in targets {
                var steps = 0
                let effort = BestEfforts.fastest(track, distance: distance, steps: &steps)
                #expect(steps <= 4 * track.count)
                let candidates = Self.referenceEfforts(track, distance: distance)
                guard let best = candidates.map(\.elapsed).min() else {
                    #expect(effort == nil, "track \(trackNumber), \(distance) m")
                    continue
                }
                guard let effort else {
                    Issue.record("track \(trackNumber), \(distance) m: nil, expected \(best) s")
                    continue
                }
                compared += 1
                #expect(Self.close(effort.elapsed, best), "track \(trackNumber), \(distance) m: \(effort.elapsed) vs \(best)")
                #expect(effort.distance == distance)
                // The stretch chosen is one of the reference's fastest (ties may be broken either way).
                let matching = candidates.contains {
                    Self.close($0.elapsed, best) && abs($0.start - effort.start) < 1e-3 && abs($0.end - effort.end) < 1e-3
                }
                #expect(matching, "track \(trackNumber), \(distance) m: \(effort)")
                // Nor is any stretch faster that starts elsewhere: random start distances, timed by
                // scans of the whole track, whatever the theory of where the optimum lies says.
                for _ in 0..<20 {
                    let start = first + (total - distance) * random.unit()
                    let time = Self.firstReach(track, min(start + distance, first + total)) - Self.lastLeave(track, start)
                    // Times are UTC seconds (about 1.7e9), so they agree to a few 1e-7 s.
                    #expect(time >= best - 1e-6, "track \(trackNumber), \(distance) m from \(start) m")
                }
            }
        }
        #expect(compared > 2000)
    }

    // MARK: The windowed search

    @Test func aFastStretchLateInALongRunIsFoundAfterItsStartWasDropped() throws {
        // 3.125 m/s (320 s a kilometre) for 100 km but for 2 km at 5 m/s (200 s a kilometre)
        // from 80 km on; one sample a second, so the samples before 80 km are long dropped when
        // the fast stretch comes. Worked by hand, each effort ending at the first sample that
        // makes it (pass 1 offers it first): 400 m in 80 s from 80,000 m (second 25,600) to
        // 80,400 m; 1 km in 200 s to 81,000 m; 5 km in 400 + 3000 / 3.125 = 1360 s from 77,000 m
        // (second 24,640) to 82,000 m (second 26,000); 10 km in 400 + 8000 / 3.125 = 2960 s from
        // 72,000 m (second 23,040).
        var track: [TrackSample] = []
        var distance = 0.0
        var second: Int64 = 0
        while distance <= 100_000 {
            track.append(
                TrackSample(
                    time: Self.startTime + second, distance: distance, elapsed: Double(second), moving: Double(second), climb: 0,
                    bpm: nil))
            distance += (80_000..<82_000).contains(distance) ? 5 : 3.125
            second += 1
        }
        let targets: [(name: String, metres: Double)] = [("400 m", 400), ("1 km", 1000), ("5 km", 5000), ("10 km", 10_000)]
        var search = BestEffortSearch(targets: targets)
        for sample in track { search.add(sample) }
        let found = search.finish()
        let t0 = Double(Self.startTime)
        #expect(found.map(\.name) == ["400 m", "1 km", "5 km", "10 km"])
        #expect(
            found.map(\.effort) == [
                BestEffort(distance: 400, active: 80, start: t0 + 25_600, end: t0 + 25_680),
                BestEffort(distance: 1000, active: 200, start: t0 + 25_600, end: t0 + 25_800),
                BestEffort(distance: 5000, active: 1360, start: t0 + 24_640, end: t0 + 26_000),
                BestEffort(distance: 10_000, active: 2960, start: t0 + 23_040, end: t0 + 26_000),
            ])
        // 10 km at 3.125 m a sample is 3200 steps: the window is those 3201 samples, and at most
        // one drop batch (4096) waits to be dropped.
        #expect(track.count == 31_761)
        #expect(search.mostSamplesHeld <= 3201 + 4096, "\(search.mostSamplesHeld)")
    }

    @Test func theWindowedSearchAgreesWithTheWholeTrackPasses() {
        var random = SplitMix64(seed: 4_037)
        var compared = 0
        for trackNumber in 0..<300 {
            let track = Self.randomTrack(&random, count: Int(random.next(upTo: 1_200)) + 2)
            let first = track[0].distance
            let total = track[track.count - 1].distance - first
            let targets: [(name: String, metres: Double)] = [
                ("400 m", 400), ("1 km", 1000), ("part", total * random.unit()), ("tenth", total * random.unit() / 10),
                ("whole", total), ("beyond", total * 1.000001 + 1),
            ]
            let batch = Int(random.next(upTo: 16)) + 1
            var search = BestEffortSearch(targets: targets, dropBatch: batch)
            for sample in track { search.add(sample) }
            let found = search.finish()
            // The same stretches as the passes over the whole track, to the bit.
            let expected = targets.compactMap { target in
                Self.wholeTrackEffort(track, distance: target.metres).map { (name: target.name, effort: $0) }
            }
            #expect(found.map(\.name) == expected.map(\.name), "track \(trackNumber)")
            for (windowed, whole) in zip(found, expected) {
                #expect(windowed.effort == whole.effort, "track \(trackNumber), \(windowed.name)")
            }
            // And the quadratic reference's fastest time, for two of the targets.
            for (name, effort) in found where name == "400 m" || name == "tenth" {
                let best = Self.referenceEfforts(track, distance: effort.distance).map(\.elapsed).min()
                #expect(Self.close(effort.elapsed, best), "track \(trackNumber), \(name)")
                compared += 1
            }
            // Held: the samples within the longest target of the newest one and a pointer's
            // sample below them, and at most as many again or a batch waiting to be dropped.
            let longest = targets.map(\.metres).max() ?? 0
            var within = 0
            var low = 0
            for i in track.indices {
                while track[low].distance < track[i].distance - longest { low += 1 }
                within = max(within, i - low + 1)
            }
            #expect(search.mostSamplesHeld <= 2 * (within + 2) + batch + 1, "track \(trackNumber)")
        }
        #expect(compared > 300)
    }

    @Test func randomTracksMatchTheReferenceSplits() {
        var random = SplitMix64(seed: 99)
        for trackNumber in 0..<400 {
            let track = Self.randomTrack(&random, count: Int(random.next(upTo: 400)) + 2)
            for unit in [50, 100, 250, 1000, 1609.344] {
                let splits = Self.splits(track, unit: unit)
                let expected = Self.referenceSplits(track, unit: unit)
                let label = "track \(trackNumber), unit \(unit)"
                #expect(splits.count == expected.count, "\(label)")
                for (split, reference) in zip(splits, expected) {
                    let agree =
                        split.index == reference.index && split.isPartial == reference.isPartial
                        && Self.close(split.distance, reference.distance) && Self.close(split.elapsed, reference.elapsed)
                        && Self.close(split.moving, reference.moving) && Self.close(split.climb, reference.climb)
                        && Self.close(split.meanBPM, reference.meanBPM) && Self.close(split.endTime, reference.endTime)
                        && Self.close(split.paceSecondsPerKilometre, reference.paceSecondsPerKilometre, relative: 1e-6)
                    #expect(agree, "\(label): \(split) vs \(reference)")
                }
                // Sums equal the track's totals whenever there is a split at all.
                let first = track[0], last = track[track.count - 1]
                if last.distance - first.distance >= SplitBuilder.minimumPartialDistance {
                    #expect(Self.close(splits.map(\.distance).reduce(0, +), last.distance - first.distance), "\(label)")
                    #expect(Self.close(splits.map(\.elapsed).reduce(0, +), last.elapsed - first.elapsed), "\(label)")
                    #expect(Self.close(splits.map(\.moving).reduce(0, +), last.moving - first.moving), "\(label)")
                    #expect(Self.close(splits.map(\.climb).reduce(0, +), last.climb - first.climb), "\(label)")
                    #expect(splits.last?.endTime == Double(last.time), "\(label)")
                } else {
                    #expect(splits.isEmpty, "\(label)")
                }
                #expect(splits.dropLast().allSatisfy { !$0.isPartial && $0.distance == unit }, "\(label)")
            }
        }
    }

    // MARK: Generator and references

    /// The test's own seeded generator (SplitMix64), so a failure reproduces.
    struct SplitMix64 {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        /// Uniform in 0..<bound (bound > 0); the modulo bias is irrelevant here.
        mutating func next(upTo bound: UInt64) -> UInt64 { next() % bound }
        /// Uniform in [0, 1).
        mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }
        /// Uniform in [low, high).
        mutating func uniform(_ low: Double, _ high: Double) -> Double { low + (high - low) * unit() }
    }

    /// A random track of `count` samples: speeds drifting between 0.2 and 8 m/s, irregular
    /// sampling, stops (time, no distance), pauses (time only), steps that add distance but no
    /// active time, unknown heart rates, and for half the tracks whole-metre distances (so that
    /// boundaries and effort ends fall exactly on samples and on stops) or a start away from 0.
    static func randomTrack(_ random: inout SplitMix64, count: Int) -> [TrackSample] {
        let wholeMetres = random.unit() < 0.5
        var time = startTime
        var distance = random.unit() < 0.2 ? (random.uniform(0, 300)).rounded() : 0
        var elapsed = 0.0, moving = 0.0, climb = 0.0
        var speed = random.uniform(1, 5)
        var samples = [TrackSample(time: time, distance: distance, elapsed: 0, moving: 0, climb: 0, bpm: 120)]
        while samples.count < count {
            let kind = random.unit()
            if kind < 0.1 {   // a stop
                let seconds = Double(random.next(upTo: 30) + 1)
                time += Int64(seconds)
                elapsed += seconds
            } else if kind < 0.13 {   // a pause: neither active time nor distance
                time += Int64(random.next(upTo: 600) + 60)
            } else if kind < 0.15 {   // distance without active time (a repeated timestamp)
                distance += wholeMetres ? Double(random.next(upTo: 5)) : random.uniform(0, 5)
            } else {
                let seconds = Double([1, 1, 1, 2, 3, 5, random.next(upTo: 20) + 1][Int(random.next(upTo: 7))])
                speed = min(8, max(0.2, speed + random.uniform(-0.7, 0.7)))
                let step = speed * seconds
                distance += wholeMetres ? step.rounded() : step
                time += Int64(seconds)
                elapsed += seconds
                if speed >= 0.5 { moving += seconds }
                if random.unit() < 0.3 { climb += random.uniform(0, 2) }
            }
            let bpm: Double? = random.unit() < 0.25 ? nil : random.uniform(90, 185)
            samples.append(TrackSample(time: time, distance: distance, elapsed: elapsed, moving: moving, climb: climb, bpm: bpm))
        }
        // Sometimes a last step of under a metre or a little more, around the partial-split minimum.
        if random.unit() < 0.3 {
            distance += random.uniform(0, 1.5)
            time += 1
            elapsed += 1
            samples.append(TrackSample(time: time, distance: distance, elapsed: elapsed, moving: moving, climb: climb, bpm: nil))
        }
        return samples
    }

    /// Every stretch of `distance` metres with one end on a sample, by brute force over all pairs
    /// of samples: for each sample that is the last at its distance as the start, the step that
    /// holds the end; for each sample that is the first at its distance as the end, the step that
    /// holds the start. The stretch's time runs from the last moment at its start distance to the
    /// first at its end distance, and is timed by the clock (`elapsed` = `end - start`). As in the
    /// implementation, a track within `TrackSample.distanceTolerance` of the distance covers it,
    /// and an end beyond the track is clamped to it.
    static func referenceEfforts(_ samples: [TrackSample], distance: Double) -> [(elapsed: Double, start: Double, end: Double)] {
        guard samples.count >= 2, distance > 0 else { return [] }
        let n = samples.count, first = samples[0].distance, last = samples[n - 1].distance
        let tolerance = TrackSample.distanceTolerance
        var found: [(elapsed: Double, start: Double, end: Double)] = []
        func inside(_ a: TrackSample, _ b: TrackSample, _ d: Double) -> (elapsed: Double, time: Double) {
            let f = (d - a.distance) / (b.distance - a.distance)
            return (a.elapsed + f * (b.elapsed - a.elapsed), Double(a.time) + f * Double(b.time - a.time))
        }
        for i in 0..<n where i == n - 1 || samples[i + 1].distance != samples[i].distance {
            guard last - samples[i].distance >= distance - tolerance else { continue }
            let target = min(samples[i].distance + distance, last)
            for j in 1..<n where samples[j - 1].distance < target && target <= samples[j].distance {
                let end: (elapsed: Double, time: Double) =
                    samples[j].distance == target ? (samples[j].elapsed, Double(samples[j].time)) : inside(samples[j - 1], samples[j], target)
                found.append((end.time - Double(samples[i].time), Double(samples[i].time), end.time))
            }
        }
        for j in 1..<n where samples[j - 1].distance != samples[j].distance {
            guard samples[j].distance - first >= distance - tolerance else { continue }
            let target = max(samples[j].distance - distance, first)
            for i in 0..<n where samples[i].distance <= target && (i == n - 1 || target < samples[i + 1].distance) {
                let start: (elapsed: Double, time: Double) =
                    samples[i].distance == target ? (samples[i].elapsed, Double(samples[i].time)) : inside(samples[i], samples[i + 1], target)
                found.append((Double(samples[j].time) - start.time, start.time, Double(samples[j].time)))
            }
        }
        return found
    }

    /// The best effort of `samples` over `distance` metres by the two passes over the whole track
    /// in memory, as `BestEfforts` found them before it streamed: the windowed search must give
    /// the same stretch, bit for bit.
    static func wholeTrackEffort(_ samples: [TrackSample], distance: Double) -> BestEffort? {
        let count = samples.count
        guard count >= 2, distance > 0, distance.isFinite else { return nil }
        let first = samples[0].distance
        let last = samples[count - 1].distance
        let tolerance = TrackSample.distanceTolerance
        guard last - first >= distance - tolerance else { return nil }

        var best: BestEffort?
        func consider(from start: (elapsed: Double, time: Double), to end: (elapsed: Double, time: Double)) {
            if best.map({ end.time - start.time < $0.elapsed }) ?? true {
                best = BestEffort(distance: distance, active: end.elapsed - start.elapsed, start: start.time, end: end.time)
            }
        }

        // Pass 1: each sample as the end. Of several samples at one distance (a stop), only the
        // first reaches it; the later ones would add the stop's time.
        var before = 0   // the last sample at or below the start distance
        for endIndex in 1..<count {
            let end = samples[endIndex]
            guard end.distance != samples[endIndex - 1].distance, end.distance - first >= distance - tolerance else { continue }
            // Clamped so that a rounding of `end.distance - distance` below the track's start
            // cannot lose the stretch that starts at the first sample.
            let startDistance = max(end.distance - distance, first)
            while before + 1 < count && samples[before + 1].distance <= startDistance {
                before += 1
            }
            // `before` is the last sample at or below the start: on it, the start is its moment
            // (the end of any stop there); else the start lies inside the step after it.
            let start =
                samples[before].distance >= startDistance || before + 1 == count
                ? (samples[before].elapsed, Double(samples[before].time))
                : pointInside(startDistance, between: samples[before], and: samples[before + 1])
            consider(from: start, to: (end.elapsed, Double(end.time)))
        }

        // Pass 2: each sample as the start. Of several samples at one distance, only the last
        // leaves it; the earlier ones would add the stop's time.
        var after = 0   // the first sample at or beyond the end distance
        for startIndex in 0..<(count - 1) {
            let start = samples[startIndex]
            guard start.distance != samples[startIndex + 1].distance, last - start.distance >= distance - tolerance else { continue }
            let endDistance = min(start.distance + distance, last)
            while after + 1 < count && samples[after].distance < endDistance {
                after += 1
            }
            // `after` is the first sample at or beyond the end: on it, the end is its moment (the
            // start of any stop there); else the end lies inside the step before it.
            let end =
                samples[after].distance <= endDistance || after == 0
                ? (samples[after].elapsed, Double(samples[after].time))
                : pointInside(endDistance, between: samples[after - 1], and: samples[after])
            consider(from: (start.elapsed, Double(start.time)), to: end)
        }
        return best
    }

    /// Active seconds and UTC time at `distance` inside the step from `a` to `b`, linearly by
    /// the fraction of the step's distance. The callers pick a step whose distance grows and
    /// contains `distance`.
    static func pointInside(_ distance: Double, between a: TrackSample, and b: TrackSample) -> (elapsed: Double, time: Double) {
        let fraction = (distance - a.distance) / (b.distance - a.distance)
        return (a.elapsed + fraction * (b.elapsed - a.elapsed), Double(a.time) + fraction * (Double(b.time) - Double(a.time)))
    }

    /// UTC seconds at the first moment the track reaches `distance` (within its range).
    static func firstReach(_ samples: [TrackSample], _ distance: Double) -> Double {
        guard let j = samples.firstIndex(where: { $0.distance >= distance }) else { return Double(samples[samples.count - 1].time) }
        if j == 0 || samples[j].distance == distance { return Double(samples[j].time) }
        let a = samples[j - 1], b = samples[j]
        return Double(a.time) + (distance - a.distance) / (b.distance - a.distance) * Double(b.time - a.time)
    }

    /// UTC seconds at the last moment the track is at `distance` (within its range).
    static func lastLeave(_ samples: [TrackSample], _ distance: Double) -> Double {
        guard let i = samples.lastIndex(where: { $0.distance <= distance }) else { return Double(samples[0].time) }
        if i == samples.count - 1 || samples[i].distance == distance { return Double(samples[i].time) }
        let a = samples[i], b = samples[i + 1]
        return Double(a.time) + (distance - a.distance) / (b.distance - a.distance) * Double(b.time - a.time)
    }

    /// The splits computed split by split from the whole track: each step's share of a split is
    /// the overlap of its distance interval with the split's (a stop belongs to the split whose
    /// range holds its distance, upper boundary included), and a split ends at the last moment the
    /// track is on its boundary. The last stretch follows `SplitBuilder`'s documented rule.
    static func referenceSplits(_ samples: [TrackSample], unit: Double) -> [Split] {
        guard let first = samples.first, let last = samples.last else { return [] }
        func boundary(_ k: Int) -> Double { first.distance + Double(k) * unit }
        // A boundary within the tolerance of a sample is on it: the split ends at that sample
        // (the last sample at or below the boundary and its tolerance).
        let tolerance = TrackSample.distanceTolerance
        func cut(_ k: Int) -> Double {
            guard k > 0, let on = samples.last(where: { $0.distance <= boundary(k) + tolerance }),
                on.distance >= boundary(k) - tolerance
            else { return boundary(k) }
            return on.distance
        }
        var full = 0
        while boundary(full + 1) <= last.distance + tolerance { full += 1 }
        let rest = last.distance - boundary(full)

        // Figures over the distance range (low, high] (the first range from its low end included).
        func figures(low: Double, high: Double, isFirst: Bool) -> (elapsed: Double, moving: Double, climb: Double, bpm: Double?) {
            var elapsed = 0.0, moving = 0.0, climb = 0.0, weighted = 0.0, weight = 0.0, plain = 0.0, count = 0
            for (a, b) in zip(samples, samples.dropFirst()) {
                let share: Double
                if b.distance > a.distance {
                    share = max(0, min(high, b.distance) - max(low, a.distance)) / (b.distance - a.distance)
                } else {
                    share = (a.distance > low || (isFirst && a.distance == low)) && a.distance <= high ? 1 : 0
                }
                guard share > 0 else { continue }
                elapsed += share * (b.elapsed - a.elapsed)
                moving += share * (b.moving - a.moving)
                climb += share * (b.climb - a.climb)
                let known = [a.bpm, b.bpm].compactMap { $0 }
                if !known.isEmpty {
                    let bpm = known.reduce(0, +) / Double(known.count)
                    weighted += bpm * share * (b.elapsed - a.elapsed)
                    weight += share * (b.elapsed - a.elapsed)
                    plain += bpm
                    count += 1
                }
            }
            let bpm = weight > 0 ? weighted / weight : count > 0 ? plain / Double(count) : nil
            return (elapsed, moving, climb, bpm)
        }
        // UTC time of the last moment at distance `d`.
        func leaving(_ d: Double) -> Double {
            for (a, b) in zip(samples, samples.dropFirst()) where a.distance <= d && d < b.distance {
                return Double(a.time) + (d - a.distance) / (b.distance - a.distance) * Double(b.time - a.time)
            }
            return Double(last.time)
        }

        var splits: [Split] = []
        for k in stride(from: 1, through: full, by: 1) {
            let f = figures(low: cut(k - 1), high: cut(k), isFirst: k == 1)
            splits.append(
                Split(
                    index: k, distance: unit, elapsed: f.elapsed, moving: f.moving, meanBPM: f.bpm, climb: f.climb, isPartial: false,
                    endTime: leaving(cut(k))))
        }
        // A track that ends within the tolerance of its last boundary ends on it.
        guard rest > tolerance else { return splits }
        if rest >= SplitBuilder.minimumPartialDistance || full == 0 {
            guard rest >= SplitBuilder.minimumPartialDistance else { return [] }
            let f = figures(low: cut(full), high: .infinity, isFirst: full == 0)
            splits.append(
                Split(
                    index: full + 1, distance: rest, elapsed: f.elapsed, moving: f.moving, meanBPM: f.bpm, climb: f.climb, isPartial: true,
                    endTime: Double(last.time)))
        } else {
            let f = figures(low: cut(full - 1), high: .infinity, isFirst: full == 1)
            splits[full - 1] = Split(
                index: full, distance: unit + rest, elapsed: f.elapsed, moving: f.moving, meanBPM: f.bpm, climb: f.climb, isPartial: false,
                endTime: Double(last.time))
        }
        return splits
    }
}
