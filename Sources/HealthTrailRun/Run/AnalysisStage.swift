import Foundation
import HealthTrailAnalysis
import HealthTrailDecode

/// The third stage: `workouts.csv` with each workout's route figures, `heart_rate_zones.csv`,
/// sleep nights and samples, `daily.csv`, and the calendar maps drawn from the days.
enum AnalysisStage {
    struct Result {
        let sleepNights: Int
        let naps: Int
        /// Workout activity types no catalogue entry names, with their counts.
        let unknownActivities: [String: Int]
        /// Time spent drawing the calendars (part of the manifest's `svg_s`).
        let calendarSeconds: Double
        let timeZones: Manifest.TimeZones
    }

    static func run(_ run: RunContext, decoder: ExportDecoder, sink: RunRecordSink, routes: RouteStage.Result) throws -> Result {
        let zones = routes.zones
        let daily = sink.daily
        let (sleep, unknownActivities, timeZones) = try run.timed("analyse_s") {
            daily.finishSeries(sources: decoder.sourceNames)
            try daily.throwSpillFailure()
            let workouts = decoder.workouts.sorted(by: { ($0.start, $0.id) < ($1.start, $1.id) })
            let figures = workouts.map(WorkoutFigures.init)
            let (timeZones, ownZone) = try datePersonalDays(
                daily, sightings: sink.zoneSightings, workouts: workouts, figures: figures, routes: routes)
            let workoutWriter = try run.outputs.addWriter(OutputSchema.workouts.name, header: OutputSchema.workouts.header(zones: zones))
            HeartRateZoneRows.write(
                routes.zoneChoice,
                to: try run.outputs.addWriter(OutputSchema.heartRateZones.name, header: OutputSchema.heartRateZones.names))
            var unknownActivities: [String: Int] = [:]
            for (i, (w, var figures)) in zip(workouts, figures).enumerated() {
                // A workout without a usable zone of its own is in the person's zone at its start.
                if !ownZone[i] { figures.offsetMinutes = daily.localOffset(at: w.start.utcSeconds, stamped: w.start.offsetMinutes) }
                WorkoutRow.write(
                    w, figures: figures, routeFiles: routes.routes.filesByWorkout[w.id] ?? [],
                    route: routes.routes.statsByWorkout[w.id], zoneCount: zones.zones.count, to: workoutWriter)
                daily.workout(
                    localDay: CumulativeSeries.localDay(w.start.utcSeconds, Int16(truncatingIfNeeded: figures.offsetMinutes)),
                    minutes: w.durationSeconds / 60)
                if !ActivityCatalog.name(for: w.activityType).isKnown { unknownActivities[w.activityType, default: 0] += 1 }
            }
            let sleep = try SleepOutputs.write(
                sink.sleepSamples, sources: decoder.sourceNames,
                ranks: routes.sourceRanking.patternRanks, outputs: run.outputs, daily: daily)
            daily.write(to: try run.outputs.addWriter(OutputSchema.daily.name, header: OutputSchema.daily.names))
            return (sleep, unknownActivities, timeZones)
        }
        var calendarSeconds = 0.0
        if let maps = run.options.maps, maps.kinds.contains(.calendars) {
            let clock = Date()
            try MapOutputs.writeCalendars(daily, options: maps.options, staging: run.staging)
            calendarSeconds = Date().timeIntervalSince(clock)
        }
        return Result(
            sleepNights: sleep.nights, naps: sleep.naps, unknownActivities: unknownActivities,
            calendarSeconds: calendarSeconds, timeZones: timeZones)
    }

    /// Builds the person's time-zone timeline from the records' and workouts' `HKTimeZone` (a
    /// workout's only where its route agrees) and dates the daily samples with it. Also says,
    /// per workout, whether its own zone is usable: known, and not contradicted by its route.
    private static func datePersonalDays(
        _ daily: DailySummary, sightings: TimeZoneSightings, workouts: [Workout], figures: [WorkoutFigures],
        routes: RouteStage.Result
    ) throws -> (Manifest.TimeZones, ownZone: [Bool]) {
        var sightings = sightings
        var contradictions = 0
        var ownZone = [Bool](repeating: false, count: workouts.count)
        for (i, (w, f)) in zip(workouts, figures).enumerated() {
            guard let name = f.timeZone, let zone = TimeZone(identifier: name) else { continue }
            if let longitude = routes.routes.statsByWorkout[w.id]?.firstLongitude,
                TimeZoneSightings.routeContradicts(zone, at: w.start.utcSeconds, longitude: longitude)
            {
                contradictions += 1
                continue
            }
            ownZone[i] = true
            sightings.add(name, start: w.start.utcSeconds, end: w.end.utcSeconds)
        }
        let timeline = TimeZoneTimeline(sightings)
        try daily.dateSamples(with: timeline)
        let counts = Manifest.TimeZones(
            sightings: sightings.sightings.count, zones: sightings.names.count, stays: timeline.stays.count,
            unknownNames: sightings.unknownNames + sightings.overLimits,
            contradictedSightings: timeline.contradictingSightings, routeContradictions: contradictions,
            quarterHoursOnStampedOffset: daily.quartersOnStampedOffset)
        return (counts, ownZone)
    }
}
