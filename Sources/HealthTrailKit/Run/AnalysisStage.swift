import Foundation
import HealthTrailAnalysis
import HealthTrailDecode

/// The third stage: `workouts.csv` with each workout's route figures, sleep nights and
/// samples, `daily.csv`, and the calendar maps drawn from the days.
enum AnalysisStage {
    struct Result {
        let sleepNights: Int
        let naps: Int
        /// Workout activity types no catalogue entry names, with their counts.
        let unknownActivities: [String: Int]
        /// Time spent drawing the calendars (part of the manifest's `svg_s`).
        let calendarSeconds: Double
    }

    static func run(_ run: RunContext, decoder: ExportDecoder, sink: RunRecordSink, routes: RouteStage.Result) throws -> Result {
        let zones = routes.zones
        let daily = sink.daily
        let (sleep, unknownActivities) = try run.timed("analyse_s") {
            daily.closeSeries(except: nil, sources: decoder.sources)
            try daily.throwSpillFailure()
            let workoutWriter = try run.outputs.addWriter(OutputSchema.workouts.name, header: OutputSchema.workouts.header(zones: zones))
            var unknownActivities: [String: Int] = [:]
            for w in decoder.workouts.sorted(by: { ($0.start, $0.id) < ($1.start, $1.id) }) {
                let figures = WorkoutFigures(w)
                WorkoutRow.write(
                    w, figures: figures, routeFiles: routes.routes.filesByWorkout[w.id] ?? [],
                    route: routes.routes.statsByWorkout[w.id], zoneCount: zones.zones.count, to: workoutWriter)
                daily.workout(
                    localDay: CumulativeSeries.localDay(w.start.utcSeconds, Int16(figures.offsetMinutes)),
                    minutes: w.durationSeconds / 60)
                if !ActivityCatalog.name(for: w.activityType).isKnown { unknownActivities[w.activityType, default: 0] += 1 }
            }
            let sleep = try SleepOutputs.write(
                sink.sleepSamples, sources: decoder.sources,
                ranks: routes.sourceRanking.patternRanks, outputs: run.outputs, daily: daily)
            daily.write(to: try run.outputs.addWriter(OutputSchema.daily.name, header: OutputSchema.daily.names))
            return (sleep, unknownActivities)
        }
        var calendarSeconds = 0.0
        if let maps = run.options.maps, maps.kinds.contains(.calendars) {
            let clock = Date()
            try MapOutputs.writeCalendars(daily, options: maps.options, staging: run.staging)
            calendarSeconds = Date().timeIntervalSince(clock)
        }
        return Result(
            sleepNights: sleep.nights, naps: sleep.naps, unknownActivities: unknownActivities,
            calendarSeconds: calendarSeconds)
    }
}
