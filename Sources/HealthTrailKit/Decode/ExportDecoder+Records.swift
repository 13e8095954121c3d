/// `<Record>`, its `MetadataEntry` and HRV beat children, and `<ActivitySummary>`.
extension ExportDecoder {
    @inline(__always)
    func startRecord() {
        recordOpen = false
        guard let typeSpan = attributes[.type] else { return fault("missing_type", "Record without a type") }
        let t = type(typeSpan)
        guard let startSpan = attributes[.startDate], let start = Timestamp.parse(startSpan) else {
            return fault("bad_date", "Record startDate is missing or not a date")
        }
        var end = start
        if let endSpan = attributes[.endDate], !(endSpan.count == startSpan.count
                                                 && memcmp(endSpan.start, startSpan.start, endSpan.count) == 0) {
            guard let parsed = Timestamp.parse(endSpan) else { return fault("bad_date", "Record endDate is not a date") }
            end = parsed
        }
        let value = attributes[.value]
        if t.isQuantity {
            guard let value else { return fault("missing_value", "quantity Record without a value") }
            guard NumberText.isNumber(value) else { return fault("non_numeric_value", "quantity Record value is not a number") }
        }
        let sourceSpan = attributes[.sourceName] ?? ByteSpan(start: emptyBytes, count: 0)
        recordSource = sourceIndex(sourceSpan)
        t.count += 1
        if start.utcSeconds < t.firstUTC { t.firstUTC = start.utcSeconds }
        if start.utcSeconds > t.lastUTC { t.lastUTC = start.utcSeconds }
        recordOpen = true
        recordType = t
        recordStart = start

        if t.isHeartRate {
            heartRateSamples += 1
            guard let w = outputs?.heartRate else { return }
            // The row stays open: motion context arrives in a MetadataEntry child.
            w.utc(start.utcSeconds); w.comma()
            w.offset(start.offsetMinutes); w.comma()
            w.raw(value!); w.comma()
            w.field(sourceSpan); w.comma()
            heartRateRowOpen = true
            motionContext = 0
            return
        }
        guard let w = writer(for: t) else { return }
        w.utc(start.utcSeconds); w.comma()
        w.utc(end.utcSeconds); w.comma()
        w.offset(start.offsetMinutes); w.comma()
        if let value { w.field(value) }
        w.comma()
        if let unit = attributes[.unit] { w.field(unit) }
        w.comma()
        w.field(sourceSpan)
        w.endRow()
    }

    @inline(__always)
    func endRecord() {
        if heartRateRowOpen, let w = outputs?.heartRate {
            switch motionContext {
            case UInt8(ascii: "1"): w.raw(sedentary.baseAddress!, sedentary.count)
            case UInt8(ascii: "2"): w.raw(active.baseAddress!, active.count)
            default: break
            }
            w.endRow()
        }
        heartRateRowOpen = false
        recordOpen = false
    }

    @inline(__always)
    func metadataEntry(parent: ExportElement) {
        switch parent {
        case .record:
            guard heartRateRowOpen, let key = attributes[.key], key.equals("HKMetadataKeyHeartRateMotionContext"),
                  let value = attributes[.value], value.count == 1 else { return }
            motionContext = value[0]
        case .workout:
            guard workout != nil, let key = attributes.string(.key) else { return }
            workout!.metadata.append((key, attributes.string(.value) ?? ""))
        case .workoutActivity:
            guard workoutActivity != nil, let key = attributes.string(.key) else { return }
            workoutActivity!.metadata.append((key, attributes.string(.value) ?? ""))
        default:
            break
        }
    }

    /// `<InstantaneousBeatsPerMinute bpm="62" time="00:20:37,80"/>` (or `7:20:37.80 PM`): a
    /// local time of day, placed on the day of its HRV record.
    func beat() {
        guard let bpm = attributes[.bpm], NumberText.isNumber(bpm) else {
            return fault("non_numeric_value", "InstantaneousBeatsPerMinute bpm is not a number")
        }
        guard let timeSpan = attributes[.time], let secondOfDay = TimeOfDay.seconds(timeSpan) else {
            return fault("bad_date", "InstantaneousBeatsPerMinute time is not a time of day")
        }
        hrvBeats += 1
        guard let w = outputs?.hrvBeats else { return }
        let recordLocal = recordStart.localSeconds
        let dayStart = recordLocal - ((recordLocal % 86_400) + 86_400) % 86_400
        // The beat lies within a minute or so of its record: pick the day that makes it closest.
        var local = dayStart + Int64(secondOfDay)
        if local - recordLocal > 43_200 { local -= 86_400 } else if recordLocal - local > 43_200 { local += 86_400 }
        w.utc(local - Int64(recordStart.offsetMinutes) * 60); w.comma()
        w.offset(recordStart.offsetMinutes); w.comma()
        w.raw(bpm); w.comma()
        w.field(sources[recordSource])
        w.endRow()
    }

    func activitySummary() {
        activitySummaries += 1
        guard let w = outputs?.activitySummaries else { return }
        guard let date = attributes[.dateComponents], date.count == 10 else {
            return fault("bad_date", "ActivitySummary dateComponents is not a date")
        }
        w.raw(date)
        let numbers: [ExportAttribute] = [.activeEnergyBurned, .activeEnergyBurnedGoal, .activeEnergyBurnedUnit,
                                          .appleMoveTime, .appleMoveTimeGoal, .appleExerciseTime,
                                          .appleExerciseTimeGoal, .appleStandHours, .appleStandHoursGoal]
        for key in numbers {
            w.comma()
            guard let v = attributes[key] else { continue }
            if key == .activeEnergyBurnedUnit || NumberText.isNumber(v) { w.field(v) }
        }
        w.endRow()
    }
}

private let emptyByte: [UInt8] = [0]
private let emptyBytes: UnsafePointer<UInt8> = emptyByte.withUnsafeBufferPointer { UnsafePointer($0.baseAddress!) }
private let sedentary: UnsafeBufferPointer<UInt8> = staticBytes("sedentary")
private let active: UnsafeBufferPointer<UInt8> = staticBytes("active")

func staticBytes(_ s: StaticString) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount)
}

/// Time-of-day text as HRV beats carry it: `00:20:37,80`, `7:20:37.80 PM`, `19:20:37`.
enum TimeOfDay {
    static func seconds(_ s: ByteSpan) -> Int? {
        var i = 0
        func number(maxDigits: Int) -> Int? {
            var v = 0, n = 0
            while i < s.count, n < maxDigits, s[i] &- 0x30 < 10 { v = v * 10 + Int(s[i] &- 0x30); i += 1; n += 1 }
            return n > 0 ? v : nil
        }
        guard var h = number(maxDigits: 2), i < s.count, s[i] == 0x3A else { return nil }
        i += 1
        guard let m = number(maxDigits: 2), i < s.count, s[i] == 0x3A else { return nil }
        i += 1
        guard let sec = number(maxDigits: 2) else { return nil }
        if i < s.count, s[i] == 0x2E || s[i] == 0x2C { i += 1; _ = number(maxDigits: 9) }
        while i < s.count, s[i] == 0x20 || s[i] == 0xE2 || s[i] == 0x80 || s[i] == 0xAF { i += 1 } // spaces incl. U+202F
        if i + 1 < s.count, s[i + 1] == 0x4D || s[i + 1] == 0x6D { // AM / PM
            let pm = s[i] == 0x50 || s[i] == 0x70
            guard h >= 1, h <= 12 else { return nil }
            h = h % 12 + (pm ? 12 : 0)
            i += 2
        }
        guard i == s.count, h < 24, m < 60, sec < 61 else { return nil }
        return h * 3600 + m * 60 + sec
    }
}

#if canImport(Glibc)
import Glibc
#endif
