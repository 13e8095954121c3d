/// Workouts (after all records) and the daily activity rings (last).
extension SynthHealthXML {
    package func workout(_ w: SynthWorkoutPlan, day: Int) {
        var r = SynthRandom(seed: options.seed, stream: SynthSchedule.Stream.workout.rawValue, index: w.stream)
        workouts += 1
        let mileFactor = w.miles ? 1 / 1.609_344 : 1
        let energyUnit = w.energyUnit == 0 ? "kcal" : w.energyUnit == 1 ? "Cal" : "kJ"
        var truth = WorkoutTruth(
            activityType: String(describing: w.activity.workoutType), endUTC: SynthCalendar.isoUTC(w.end),
            durationSeconds: SynthBuffer.asWritten(Double(w.seconds) / 60, 6) * 60, timeZone: String(describing: w.zone.identifier),
            utcOffsetMinutes: w.zone.offset(utc: w.start) / 60, indoor: nil, parts: w.multiPart ? 2 : 1, legacyTotals: w.oldStyle,
            distanceMeters: w.activity.distanceType == nil ? nil : w.distanceKm * 1000, distanceAsWritten: nil,
            distanceUnit: w.miles ? "mi" : "km", energyKcal: w.energyKcal, energyAsWritten: 0, energyUnit: energyUnit,
            routeFile: w.hasRoute ? "workout-routes/" + String(decoding: w.routeFileName, as: UTF8.self) : nil,
            routeMissing: w.routeMissing, routePoints: w.hasRoute && !w.routeMissing ? w.routePointCount : 0,
            glitchPoints: w.hasRoute && !w.routeMissing && w.glitchAt != nil ? 1 : 0,
            drivePoints: w.hasRoute && !w.routeMissing ? w.driveSeconds : 0,
            pause: w.paused ? [w.pauseStart, w.pauseEnd] : nil)
        defer { workoutTruths.append((w.start, truth)) }
        buf.lit(" <Workout workoutActivityType=\"")
        buf.lit(w.activity.workoutType)
        buf.lit("\" duration=\"")
        buf.fixed(Double(w.seconds) / 60, 6)
        buf.lit("\" durationUnit=\"min\"")
        if w.oldStyle {
            // Totals on the element, in the units the person had chosen then.
            buf.lit(" totalDistance=\"")
            buf.fixed(w.activity.distanceType == nil ? 0 : w.distanceKm * mileFactor, 4)
            truth.distanceAsWritten = SynthBuffer.asWritten(w.activity.distanceType == nil ? 0 : w.distanceKm * mileFactor, 4)
            buf.lit(w.miles ? "\" totalDistanceUnit=\"mi\" totalEnergyBurned=\"" : "\" totalDistanceUnit=\"km\" totalEnergyBurned=\"")
            buf.fixed(w.energyUnit == 2 ? w.energyKcal * 4.184 : w.energyKcal, 3)
            truth.energyAsWritten = SynthBuffer.asWritten(w.energyUnit == 2 ? w.energyKcal * 4.184 : w.energyKcal, 3)
            buf.lit(
                w.energyUnit == 0
                    ? "\" totalEnergyBurnedUnit=\"kcal\"" : w.energyUnit == 1 ? "\" totalEnergyBurnedUnit=\"Cal\"" : "\" totalEnergyBurnedUnit=\"kJ\""
            )
        }
        buf.lit(" sourceName=\"")
        buf.lit(SynthSource.watch.name)
        buf.lit("\" sourceVersion=\"")
        let version = SynthSource.watch.version(day: day)
        buf.lit(version)
        buf.byte(UInt8(ascii: "\""))
        deviceAttribute(.watch, version: version, &r)
        dates(w.end + r.int(5, 120), w.start, w.end)
        buf.lit(">\n")

        // Metadata: HKTimeZone is the reliable guide to local time (dates carry the export offset).
        switch w.activity {
        case .swimming:
            metadata("HKSwimmingLocationType", "1")
            metadata("HKLapLength", "25 m")
        case .hiit: metadata("HKIndoorWorkout", "1"); truth.indoor = true
        default: metadata("HKIndoorWorkout", "0"); truth.indoor = false
        }
        metadata("HKTimeZone", w.zone.identifier)
        if w.activity.outdoor {
            buf.lit("  <MetadataEntry key=\"HKWeatherTemperature\" value=\"")
            let fahrenheit = r.int(38, 86)
            buf.int(fahrenheit)
            buf.lit(" degF\"/>\n  <MetadataEntry key=\"HKWeatherHumidity\" value=\"")
            let humidity = r.int(35, 95)
            buf.int(humidity * 100)
            buf.lit(" %\"/>\n  <MetadataEntry key=\"HKElevationAscended\" value=\"")
            let centimetres = r.int(300, w.activity == .hiking ? 60_000 : 9_000)
            buf.int(centimetres)
            (truth.temperatureF, truth.temperatureC) = (fahrenheit, Double(fahrenheit - 32) * 5 / 9)
            truth.humidityPercent = Double(humidity)
            truth.elevationAscendedMeters = Double(centimetres) / 100
            buf.lit(" cm\"/>\n")
        }
        buf.lit("  <MetadataEntry key=\"HKAverageMETs\" value=\"")
        buf.fixed(w.activity.kcalPerMinute * 60 / 65 * r.double(0.9, 1.1), 4)
        buf.lit(" kcal/hr·kg\"/>\n")

        if w.paused {
            event("HKWorkoutEventTypePause", w.pauseStart, 0)
            event("HKWorkoutEventTypeResume", w.pauseEnd, 0)
        }
        if !w.oldStyle && w.activity == .running {
            // A segment per whole kilometre, as the Watch marks splits.
            let perKm = 1_000 / (w.distanceKm * 1_000 / Double(w.movingSeconds))
            var k = 0
            while Double(k + 1) * perKm < Double(w.movingSeconds) {
                event("HKWorkoutEventTypeSegment", w.start + Int(Double(k) * perKm), perKm / 60)
                k += 1
            }
        }
        if w.multiPart {
            let middle = w.start + w.seconds / 2
            activityPart(w.start, middle, &r)
            activityPart(middle, w.end, &r)
        }
        if !w.oldStyle {
            statistics("HKQuantityTypeIdentifierActiveEnergyBurned", w) {
                self.buf.lit(" sum=\"")
                self.buf.fixed(w.energyKcal, 3)
                truth.energyAsWritten = SynthBuffer.asWritten(w.energyKcal, 3)
                truth.energyUnit = w.energyUnit == 1 ? "Cal" : "kcal"   // statistics never write kJ
                self.buf.lit(w.energyUnit == 1 ? "\" unit=\"Cal\"/>\n" : "\" unit=\"kcal\"/>\n")
            }
            if let distance = w.activity.distanceType {
                statistics(distance, w) {
                    self.buf.lit(" sum=\"")
                    self.buf.fixed(w.distanceKm * mileFactor, 5)
                    truth.distanceAsWritten = SynthBuffer.asWritten(w.distanceKm * mileFactor, 5)
                    self.buf.lit(w.miles ? "\" unit=\"mi\"/>\n" : "\" unit=\"km\"/>\n")
                }
            }
            let hr = workoutHR[Int(w.stream)]
            if hr.count > 0 {
                statistics("HKQuantityTypeIdentifierHeartRate", w) {
                    self.buf.lit(" average=\"")
                    self.buf.fixed(hr.sum / Double(hr.count), 4)
                    self.buf.lit("\" minimum=\"")
                    self.buf.fixed(hr.min, 0)
                    self.buf.lit("\" maximum=\"")
                    self.buf.fixed(hr.max, 0)
                    truth.averageBPM = SynthBuffer.asWritten(hr.sum / Double(hr.count), 4)
                    truth.minimumBPM = SynthBuffer.asWritten(hr.min, 0)
                    truth.maximumBPM = SynthBuffer.asWritten(hr.max, 0)
                    self.buf.lit("\" unit=\"count/min\"/>\n")
                }
            }
        }
        if w.hasRoute {
            workoutsWithRoutes += 1
            buf.lit("  <WorkoutRoute sourceName=\"")
            buf.lit(SynthSource.watch.name)
            buf.lit("\" sourceVersion=\"")
            buf.lit(version)
            buf.byte(UInt8(ascii: "\""))
            dates(w.end + r.int(30, 300), w.routeFirst, w.routeLast)
            buf.lit(">\n   <MetadataEntry key=\"HKMetadataKeySyncVersion\" value=\"2\"/>\n   <FileReference path=\"/workout-routes/")
            buf.bytes(w.routeFileName)
            buf.lit("\"/>\n  </WorkoutRoute>\n")
        }
        buf.lit(" </Workout>\n")
    }

    package func event(_ type: StaticString, _ date: Int, _ minutes: Double) {
        buf.lit("  <WorkoutEvent type=\"")
        buf.lit(type)
        buf.lit("\" date=\"")
        buf.healthDate(date, offset: offset)
        buf.lit("\" duration=\"")
        buf.fixed(minutes, 6)
        buf.lit("\" durationUnit=\"min\"/>\n")
    }

    package func activityPart(_ start: Int, _ end: Int, _ r: inout SynthRandom) {
        buf.lit("  <WorkoutActivity uuid=\"")
        buf.hex(r.next(), 8, upper: true)
        buf.byte(UInt8(ascii: "-"))
        buf.hex(r.next(), 4, upper: true)
        buf.lit("-4")
        buf.hex(r.next(), 3, upper: true)
        buf.byte(UInt8(ascii: "-"))
        buf.hex(8 | (r.next() & 3), 1, upper: true)
        buf.hex(r.next(), 3, upper: true)
        buf.byte(UInt8(ascii: "-"))
        buf.hex(r.next(), 12, upper: true)
        buf.lit("\" startDate=\"")
        buf.healthDate(start, offset: offset)
        buf.lit("\" endDate=\"")
        buf.healthDate(end, offset: offset)
        buf.lit("\" duration=\"")
        buf.fixed(Double(end - start) / 60, 6)
        buf.lit("\" durationUnit=\"min\">\n   <MetadataEntry key=\"HKIndoorWorkout\" value=\"0\"/>\n  </WorkoutActivity>\n")
    }

    /// `  <WorkoutStatistics type=".." startDate=".." endDate=".."` then `tail` writes the rest.
    package func statistics(_ type: StaticString, _ w: SynthWorkoutPlan, _ tail: () -> Void) {
        buf.lit("  <WorkoutStatistics type=\"")
        buf.lit(type)
        buf.lit("\" startDate=\"")
        buf.healthDate(w.start, offset: offset)
        buf.lit("\" endDate=\"")
        buf.healthDate(w.end, offset: offset)
        buf.byte(UInt8(ascii: "\""))
        tail()
    }

    package func activitySummary(_ plan: SynthDayPlan) {
        activitySummaries += 1
        buf.lit(" <ActivitySummary dateComponents=\"")
        buf.day(plan.dayNumber)
        buf.lit("\" activeEnergyBurned=\"")
        buf.fixed(dayActiveKcal[plan.index], 3)
        buf.lit("\" activeEnergyBurnedGoal=\"500\" activeEnergyBurnedUnit=\"Cal\" appleMoveTime=\"0\" appleMoveTimeGoal=\"0\" appleExerciseTime=\"")
        buf.int(dayExerciseMinutes[plan.index])
        activitySummaryTruths[plan.dayNumber] = (
            SynthBuffer.asWritten(dayActiveKcal[plan.index], 3),
            dayExerciseMinutes[plan.index], dayStoodHours[plan.index]
        )
        buf.lit("\" appleExerciseTimeGoal=\"30\" appleStandHours=\"")
        buf.int(dayStoodHours[plan.index])
        buf.lit("\" appleStandHoursGoal=\"12\"/>\n")
    }
}
