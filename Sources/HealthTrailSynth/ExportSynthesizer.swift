import HealthTrailArchive

/// Generates realistic Apple Health export archives from a seed, for tests and benchmarks.
///
/// The archive mimics what iOS writes, traps included: an internal DTD (optionally with the
/// iOS 16 unclosed ATTLIST), every date stamped with the export's UTC offset while the person
/// travels and daylight saving changes, records grouped by type but not sorted, steps and
/// distance from both iPhone and Watch over the same minutes, escaped `&amp;` source names and
/// curly apostrophes, `<<HKDevice…>>` strings, old- and new-style workouts, GPX routes named by
/// their last point's local time. Same options ⇒ byte-identical archive. About 1 MB of
/// export.xml per day; memory stays flat whatever the number of days.
package enum ExportSynthesizer {
    /// Writes the archive at `zipPath` and returns exact counts of what it holds.
    package static func write(to zipPath: String, options: SynthOptions) throws -> SynthSummary {
        let schedule = SynthSchedule(options: options)
        let zip = try ZipWriter(path: zipPath)
        let top = options.topFolder.isEmpty ? "" : options.topFolder + "/"
        let buf = SynthBuffer()
        var summary = SynthSummary()

        // The main file, streamed.
        let xml = SynthHealthXML(options: options, schedule: schedule, buffer: buf)
        try zip.addEntry(top + options.xmlName, level: options.compressionLevel) { emit in
            try withoutActuallyEscaping(emit) { sink in
                buf.sink = sink
                defer { buf.sink = nil }
                buf.resetTotal()
                try xml.write()
            }
        }
        summary.exportXMLBytes = buf.total
        for type in SynthRecordType.allCases where xml.recordCounts[type.rawValue] > 0 {
            summary.recordsByType[type.name] = xml.recordCounts[type.rawValue]
        }
        summary.heartRateRecords = xml.recordCounts[SynthRecordType.heartRate.rawValue]
        summary.workouts = xml.workouts
        summary.workoutsWithRoutes = xml.workoutsWithRoutes
        summary.correlations = xml.correlations
        summary.activitySummaries = xml.activitySummaries
        summary.hrvBeats = xml.hrvBeats
        for (day, steps) in xml.watchSteps { summary.watchStepsByLocalDay[SynthCalendar.isoDay(day)] = steps }
        for (day, n) in xml.exportDaySteps { summary.stepsByExportDay[SynthCalendar.isoDay(day)] = n }
        for (day, cm) in xml.exportDayDistanceCm {
            summary.distanceMetersByExportDay[SynthCalendar.isoDay(day)] = Double(cm) / 100
        }
        for (day, milli) in xml.exportDayActiveMilli {
            summary.activeKcalByExportDay[SynthCalendar.isoDay(day)] = Double(milli) / 1_000
        }
        for (day, n) in xml.exportDayFlights { summary.flightsByExportDay[SynthCalendar.isoDay(day)] = n }
        for (day, n) in xml.asleepMinutesByNight { summary.asleepMinutesByNight[SynthCalendar.isoDay(day)] = n }
        for (day, n) in xml.inBedMinutesByNight { summary.inBedMinutesByNight[SynthCalendar.isoDay(day)] = n }
        for (day, n) in xml.napMinutesByDay { summary.napMinutesByDay[SynthCalendar.isoDay(day)] = n }
        func mean(_ m: (sum: Double, count: Int)) -> Double { m.sum / Double(m.count) }
        for (day, m) in xml.exportDayHeartRate { summary.heartRateMeanByExportDay[SynthCalendar.isoDay(day)] = mean(m) }
        for (day, m) in xml.exportDayRestingHR { summary.restingHRByExportDay[SynthCalendar.isoDay(day)] = mean(m) }
        for (day, m) in xml.exportDayHRV { summary.hrvSDNNByExportDay[SynthCalendar.isoDay(day)] = mean(m) }
        for (day, kcal) in xml.exportDayBasalKcal { summary.basalKcalByExportDay[SynthCalendar.isoDay(day)] = kcal }
        for (day, n) in xml.localDaySteps { summary.stepsByLocalDay[SynthCalendar.isoDay(day)] = n }
        for (day, cm) in xml.localDayDistanceCm { summary.distanceMetersByLocalDay[SynthCalendar.isoDay(day)] = Double(cm) / 100 }
        for (day, milli) in xml.localDayActiveMilli { summary.activeKcalByLocalDay[SynthCalendar.isoDay(day)] = Double(milli) / 1_000 }
        for (day, n) in xml.localDayFlights { summary.flightsByLocalDay[SynthCalendar.isoDay(day)] = n }
        for (day, m) in xml.localDayHeartRate { summary.heartRateMeanByLocalDay[SynthCalendar.isoDay(day)] = mean(m) }
        for (day, m) in xml.localDayRestingHR { summary.restingHRByLocalDay[SynthCalendar.isoDay(day)] = mean(m) }
        for (day, m) in xml.localDayHRV { summary.hrvSDNNByLocalDay[SynthCalendar.isoDay(day)] = mean(m) }
        for (day, kcal) in xml.localDayBasalKcal { summary.basalKcalByLocalDay[SynthCalendar.isoDay(day)] = kcal }
        for (i, plan) in schedule.days.enumerated() {
            let day = SynthCalendar.isoDay(plan.dayNumber)
            summary.timeZoneByLocalDay[day] = plan.zone.identifier.description
            let before = i > 0 ? schedule.days[i - 1].zone : plan.zone
            let after = i + 1 < schedule.days.count ? schedule.days[i + 1].zone : plan.zone
            if before != plan.zone || after != plan.zone { summary.travelDays.append(day) }
        }
        summary.travelDays.sort()
        for (day, a) in xml.activitySummaryTruths {
            summary.exerciseMinutesBySummaryDay[SynthCalendar.isoDay(day)] = Double(a.exerciseMinutes)
            summary.standHoursBySummaryDay[SynthCalendar.isoDay(day)] = Double(a.standHours)
            summary.activeKcalBySummaryDay[SynthCalendar.isoDay(day)] = a.activeKcal
        }
        for (night, m) in xml.stageMinutesByNight {
            summary.coreMinutesByNight[SynthCalendar.isoDay(night)] = m.core
            summary.deepMinutesByNight[SynthCalendar.isoDay(night)] = m.deep
            summary.remMinutesByNight[SynthCalendar.isoDay(night)] = m.rem
        }
        for (start, truth) in xml.workoutTruths { summary.workoutTruths[SynthCalendar.isoUTC(start)] = truth }
        for plan in schedule.days {
            for w in plan.workouts {
                let local = w.start + w.zone.offset(utc: w.start)
                buf.clear()
                buf.isoUTC(w.start)
                summary.workoutLocalDates[String(decoding: buf.buffered, as: UTF8.self)] =
                    SynthCalendar.isoDay(SynthCalendar.floorDiv(local, 86_400))
                let day = SynthCalendar.isoDay(SynthCalendar.floorDiv(local, 86_400))
                summary.workoutsByLocalDay[day, default: 0] += 1
                summary.workoutMinutesByLocalDay[day, default: 0] += SynthBuffer.asWritten(Double(w.seconds) / 60, 6)
            }
        }
        buf.clear()

        try zip.addEntry(
            top + "export_cda.xml",
            bytes: SynthSidecars.clinicalDocument(schedule: schedule, offsetMinutes: options.exportOffsetMinutes),
            level: options.compressionLevel)

        // Routes, in time order; the orphan (if any) goes where its time falls.
        var routes = schedule.days.flatMap { $0.workouts.filter { $0.hasRoute && !$0.routeMissing } }
        if let orphan = schedule.orphan {
            routes.append(orphan)
            routes.sort { $0.routeFirst < $1.routeFirst }
        }
        for route in routes {
            let name = top + "workout-routes/" + String(decoding: route.routeFileName, as: UTF8.self)
            try zip.addEntry(name, level: options.compressionLevel) { emit in
                try withoutActuallyEscaping(emit) { sink in
                    buf.sink = sink
                    defer { buf.sink = nil }
                    buf.resetTotal()
                    summary.routePoints += try SynthRouteGPX(
                        workout: route, seed: options.seed,
                        exportInstant: schedule.exportInstant
                    ).write(into: buf)
                    try buf.flush()
                }
            }
            summary.routeFiles += 1
        }

        for (index, plan) in SynthSidecars.ecgDays(schedule).enumerated() {
            let c = SynthCalendar.civil(plan.dayNumber)
            let m = c.month < 10 ? "0\(c.month)" : "\(c.month)", d = c.day < 10 ? "0\(c.day)" : "\(c.day)"
            let file = "electrocardiograms/ecg_\(c.year)-\(m)-\(d).csv"
            let (bytes, truth) = SynthSidecars.ecg(plan, seed: options.seed, file: file, felt: index > 0)
            try zip.addEntry(top + file, bytes: bytes, level: options.compressionLevel)
            summary.ecgRecordings.append(truth)
        }
        try zip.finish()
        return summary
    }
}
