import HealthTrailBase

/// `<Workout>` and its children: events, statistics, parts, routes and old inline locations.
extension ExportDecoder {
    package func startWorkout() {
        workout = nil
        guard let type = attributes.string(.workoutActivityType) else {
            return fault("missing_type", "Workout without workoutActivityType")
        }
        guard let start = attributes.timestamp(.startDate),
            let end = attributes.timestamp(.endDate)
        else {
            return fault("bad_date", "Workout startDate or endDate is not a date")
        }
        let activity = ActivityCatalog.name(for: type).name
        var id = Workout.baseID(start: start, activity: activity)
        if workoutIDs.contains(id) {
            // Continue from the last suffix given to this id: ids are never removed, so every
            // smaller one is still taken, and a file repeating one workout 100,000 times costs
            // linear time, not quadratic.
            var n = nextWorkoutSuffix[id] ?? 2
            while workoutIDs.contains("\(id)-\(n)") { n += 1 }
            nextWorkoutSuffix[id] = n + 1
            id = "\(id)-\(n)"
        }
        workoutIDs.insert(id)
        workout = Workout(
            id: id, activity: activity, activityType: type, start: start, end: end,
            duration: quantity(.duration, .durationUnit, in: "Workout"),
            totalDistance: quantity(.totalDistance, .totalDistanceUnit, in: "Workout"),
            totalEnergyBurned: quantity(.totalEnergyBurned, .totalEnergyBurnedUnit, in: "Workout"),
            source: attributes.string(.sourceName) ?? "", line: line)
    }

    package func workoutChild(_ element: ExportElement, parent: ExportElement) {
        guard workout != nil else { return }
        switch element {
        case .workoutEvent:
            guard let date = attributes.timestamp(.date) else {
                return fault("bad_date", "WorkoutEvent date is not a date")
            }
            workout!.events.append(
                WorkoutEvent(
                    type: attributes.string(.type) ?? "", date: date,
                    duration: quantity(.duration, .durationUnit, in: "WorkoutEvent")))
        case .workoutStatistics:
            func figure(_ key: ExportAttribute) -> Double? { quantity(key, .unit, in: "WorkoutStatistics")?.value }
            workout!.statistics.append(
                WorkoutStatistic(
                    type: attributes.string(.type) ?? "",
                    start: attributes.timestamp(.startDate),
                    end: attributes.timestamp(.endDate),
                    average: figure(.average), minimum: figure(.minimum),
                    maximum: figure(.maximum), sum: figure(.sum), unit: attributes.string(.unit)))
        case .workoutActivity:
            guard let start = attributes.timestamp(.startDate) else {
                return fault("bad_date", "WorkoutActivity startDate is not a date")
            }
            workoutActivity = WorkoutActivity(
                uuid: attributes.string(.uuid) ?? "", start: start,
                end: attributes.timestamp(.endDate),
                duration: quantity(.duration, .durationUnit, in: "WorkoutActivity"))
        case .fileReference:
            guard parent == .workoutRoute, let path = attributes.string(.path) else { return }
            workout!.routeFiles.append(path)
        case .location:
            inlineLocation()
        default:
            break
        }
    }

    /// A quantity of a workout element by the rule for numbers (`NumberText.isInRange`), in its
    /// canonical unit where the unit is known: nil, and a counted fault, for one that holds no
    /// value (`1e309`, `1e308` mi); nil and no fault when the attribute is absent or empty.
    package func quantity(_ valueKey: ExportAttribute, _ unitKey: ExportAttribute, in element: StaticString) -> Quantity? {
        let attributes = self.attributes   // a local: the spans read from it borrow it
        guard let text = attributes[valueKey], text.count > 0 else { return nil }
        let unit = attributes.string(unitKey) ?? ""
        var reading = NumberText.reading(text)
        if case .value(let v) = reading, let conversion = UnitConversion.forUnit(unit), !NumberText.isInRange(conversion.convert(v)) {
            reading = .outOfRange
        }
        guard case .value(let v) = reading else {
            let problem = reading == .notANumber ? "is not a number" : "is out of range"
            fault(reading.faultKind!, "\(element) \(valueKey) \(problem)")
            return nil
        }
        return Quantity(value: v, unit: unit)
    }

    /// Old exports put route points inline: `<Location date= latitude= longitude= altitude= …/>`.
    /// They are kept with their workout and processed with the route files (heart-rate join).
    package func inlineLocation() {
        let attributes = self.attributes   // a local: the spans read from it borrow it
        guard let date = attributes.timestamp(.date) else {
            return fault("bad_date", "Location date is not a date")
        }
        guard let lat = attributes.number(.latitude),
            let lon = attributes.number(.longitude)
        else {
            return fault("non_numeric_value", "Location latitude or longitude is not a number")
        }
        guard abs(lat) <= 90, abs(lon) <= 180 else {
            return fault("out_of_range", "Location latitude or longitude is outside ±90/±180 degrees")
        }
        workout!.inlineRoutePoints += 1
        inlineRoutePoints += 1
        // The rule for numbers, as for a route file's points: a field that holds no value is
        // empty, and a counted fault.
        func number(_ key: ExportAttribute) -> Double? { optionalValue(attributes[key], "Location \(key)") }
        let horizontalAccuracy = number(.horizontalAccuracy)
        inlinePoints.append(
            InlineLocation(
                point: RoutePoint(
                    time: date.utcSeconds, latitude: lat, longitude: lon, elevation: number(.altitude),
                    speed: number(.speed), horizontalAccuracy: horizontalAccuracy),
                horizontalAccuracy: horizontalAccuracy, course: number(.course),
                verticalAccuracy: number(.verticalAccuracy)))
    }
}

extension Workout {
    /// `20240102T153122Z-running`: sortable, readable, stable across exports of the same data.
    package static func baseID(start: Timestamp, activity: String) -> String {
        start.utcString.filter { $0 != "-" && $0 != ":" } + "-" + activity
    }
}
