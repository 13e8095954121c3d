import HealthTrailAnalysis
import HealthTrailDecode
import HealthTrailWrite

/// A `workouts.csv` row.
enum WorkoutRow {
    /// Where a row's `avg_hr`, `max_hr` and `min_hr` come from (`hr_source`).
    enum HeartRateSource: String {
        /// The export's own figures for the workout (`WorkoutStatistics`, or legacy metadata).
        case workout
        /// The heart rate joined to the route's points, for workouts the export gives none.
        case route
    }

    /// The row's heart-rate figures: the export's when it has any of them (never mixed with the
    /// route's), else the route's joined samples when any point has one, else none.
    static func heartRate(_ f: WorkoutFigures, route: RouteStats?)
        -> (average: Double?, maximum: Double?, minimum: Double?, source: HeartRateSource?)
    {
        if f.averageHeartRate != nil || f.maximumHeartRate != nil || f.minimumHeartRate != nil {
            return (f.averageHeartRate, f.maximumHeartRate, f.minimumHeartRate, .workout)
        }
        if let route, let mean = route.meanBPM { return (mean, route.maximumBPM, route.minimumBPM, .route) }
        return (nil, nil, nil, nil)
    }

    static func write(
        _ w: Workout, figures f: WorkoutFigures, routeFiles: [String], route: RouteStats?, zoneCount: Int,
        to out: CSVWriter
    ) {
        let hr = heartRate(f, route: route)
        out.field(w.id); out.comma()
        out.field(w.activity); out.comma()
        out.utc(w.start.utcSeconds); out.comma()
        out.utc(w.end.utcSeconds); out.comma()
        out.offset(f.offsetMinutes); out.comma()
        out.decimal(w.durationSeconds, digits: 1); out.comma()
        out.field(w.source); out.comma()
        out.field(routeFiles.joined(separator: ";")); out.comma()
        if let d = f.distanceMeters { out.decimal(d, digits: 1) }
        out.comma()
        if let e = f.energyKcal { out.decimal(e, digits: 1) }
        out.comma()
        if let h = hr.average { out.decimal(h, digits: 1) }
        out.comma()
        if let h = hr.maximum { out.decimal(h, digits: 1) }
        out.comma()
        if let indoor = f.indoor { out.field(indoor ? "true" : "false") }
        out.comma()
        if let zone = f.timeZone { out.field(zone) }
        out.comma()
        out.int(Int64(f.parts))
        out.comma()
        if let h = hr.minimum { out.decimal(h, digits: 1) }
        out.comma()
        if let source = hr.source { out.field(source.rawValue) }
        for value in [f.elevationAscendedMeters, f.weatherTemperatureC, f.weatherHumidityPercent] {
            out.comma()
            if let value { out.decimal(value, digits: 1) }
        }
        // Figures from the route's points (empty for workouts without a route); seconds in
        // zone only when some point has a heart rate.
        let zoneSeconds = (0..<zoneCount).map { i in route?.knownTimeInZone.flatMap { i < $0.count ? $0[i] : nil } }
        for value in [route?.distance, route?.movingTime, route?.paceSecondsPerKilometre, route?.elevationGain, route?.trimmedDistance] {
            out.comma()
            if let value { out.decimal(value, digits: 1) }
        }
        out.comma()
        if let flags = route?.flags, !flags.isEmpty { out.field(flags.joined(separator: ";")) }
        for value in zoneSeconds {
            out.comma()
            if let value { out.decimal(value, digits: 1) }
        }
        out.endRow()
    }
}
