import HealthTrailArchive
import HealthTrailBase
import HealthTrailXML

/// `<Record>`, its `MetadataEntry` and HRV beat children, and `<ActivitySummary>`.
extension ExportDecoder {
    @inline(__always)
    package func startRecord() {
        let attributes = self.attributes   // a local: the spans read from it borrow it
        recordOpen = false
        guard let typeSpan = attributes[.type] else { return fault("missing_type", "Record without a type") }
        guard let type = type(typeSpan) else {
            // The messages never quote the type: it is text from the data.
            if typeSpan.count > Self.maxTypeLength {
                return fault("bad_type", "Record type is longer than \(Self.maxTypeLength) bytes")
            }
            if RecordType.fileName(for: typeSpan.string) == nil {
                return fault("bad_type", "Record type has no letter or digit to name its file")
            }
            return fault("too_many_types", "Record of a type past the first \(Self.maxRecordTypes) distinct types")
        }
        type.with { startRecord(of: $0) }
    }

    /// The rest of `startRecord`, with the record's type borrowed: a retain and a release of it
    /// per record were a tenth of the decoding thread's time.
    @inline(__always)
    private func startRecord(of t: RecordType) {
        let attributes = self.attributes   // a local: the spans read from it borrow it
        guard let startSpan = attributes[.startDate], let start = Timestamp.parse(startSpan) else {
            return fault("bad_date", "Record startDate is missing or not a date")
        }
        var end = start
        if let endSpan = attributes[.endDate],
            !endSpan.equals(startSpan)
        {
            guard let parsed = Timestamp.parse(endSpan) else { return fault("bad_date", "Record endDate is not a date") }
            end = parsed
        }
        let value = attributes[.value]
        var number = 0.0
        var conversion: UnitConversion?
        if t.isQuantity {
            guard let value else { return fault("missing_value", "quantity Record without a value") }
            guard let v = NumberText.fastDouble(value) else {
                return fault("non_numeric_value", "quantity Record value is not a number")
            }
            let unit = attributes[.unit]
            if let unit { conversion = t.conversion(for: unit) }
            // The rule for numbers (`NumberText.isInRange`), in the unit the row is written in:
            // `1e999` reads as infinity, `1e308` mi overflows in metres. A quantity without its
            // value is no record, so the whole record goes, from every output alike.
            guard NumberText.isInRange(conversion?.convert(v) ?? v) else {
                return fault("out_of_range", "quantity Record value is out of range")
            }
            number = v
            if let unit, conversion == nil { unknownUnit(unit) }
        }
        let sourceSpan: ByteSpan
        if let name = attributes[.sourceName] { sourceSpan = name } else { sourceSpan = .empty }
        guard let source = sourceIndex(sourceSpan) else {
            return fault("too_many_sources", "Record's source is past the 4 GiB of source names kept")
        }
        recordSource = source
        t.recordCount += 1
        if start.utcSeconds < t.earliestUTC { t.earliestUTC = start.utcSeconds }
        if start.utcSeconds > t.latestUTC { t.latestUTC = start.utcSeconds }
        recordOpen = true
        recordStart = start
        recordEnd = end
        if t.isHeartRate { heartRateCount += 1 }
        guard let sink = unretainedSink else { return }
        let record = DecodedRecord(
            start: start, end: end, value: value, number: number, conversion: conversion, unit: attributes[.unit],
            source: sourceSpan, sourceIndex: recordSource)
        if t.isHeartRate {
            // The record stays open: motion context arrives in a MetadataEntry child.
            heartRateRowOpen = true
            motionContext = 0
            sink.with { $0.heartRate(record, of: t, decoder: self) }
            return
        }
        do {
            try sink.with { try $0.record(record, of: t, decoder: self) }
        } catch {
            fatal = error as? InputError ?? InputError(file: parser.fileName, "\(error)")
            stopParsing()
        }
    }

    package func unknownUnit(_ unit: ByteSpan) {
        unknownUnits[unit.string, default: 0] += 1
    }

    @inline(__always)
    package func endRecord() {
        if heartRateRowOpen { unretainedSink?.with { $0.heartRateEnded(motionContext: motionContext) } }
        heartRateRowOpen = false
        recordOpen = false
    }

    @inline(__always)
    package func metadataEntry(parent: ExportElement) {
        let attributes = self.attributes   // a local: the spans read from it borrow it
        switch parent {
        case .record:
            guard recordOpen, let key = attributes[.key] else { return }
            if heartRateRowOpen, key.equals("HKMetadataKeyHeartRateMotionContext") {
                if let value = attributes[.value], value.count == 1 { motionContext = value[0] }
            } else if key.equals("HKTimeZone"), let name = attributes[.value] {
                // Sleep samples carry the zone the person was in: the guide to their local day.
                unretainedSink?.with { $0.recordTimeZone(name, start: recordStart, end: recordEnd) }
            }
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
    package func beat() {
        let attributes = self.attributes   // a local: the spans read from it borrow it
        guard let bpm = attributes[.bpm], NumberText.isNumber(bpm) else {
            return fault("non_numeric_value", "InstantaneousBeatsPerMinute bpm is not a number")
        }
        // The bpm's text is copied as written: a beat without a value is no beat.
        guard NumberText.reading(bpm) != .outOfRange else {
            return fault("out_of_range", "InstantaneousBeatsPerMinute bpm is out of range")
        }
        guard let timeSpan = attributes[.time], let secondOfDay = TimeOfDay.seconds(timeSpan) else {
            return fault("bad_date", "InstantaneousBeatsPerMinute time is not a time of day")
        }
        hrvBeatCount += 1
        guard let sink = unretainedSink else { return }
        let recordLocal = recordStart.localSeconds
        let dayStart = recordLocal - ((recordLocal % 86_400) + 86_400) % 86_400
        // The beat lies within a minute or so of its record: pick the day that makes it closest.
        var local = dayStart + Int64(secondOfDay)
        if local - recordLocal > 43_200 { local -= 86_400 } else if recordLocal - local > 43_200 { local += 86_400 }
        sink.with {
            $0.hrvBeat(
                utcSeconds: local - Int64(recordStart.offsetMinutes) * 60, offsetMinutes: recordStart.offsetMinutes, bpm: bpm,
                sourceIndex: recordSource, decoder: self)
        }
    }

    package func activitySummary() {
        let attributes = self.attributes   // a local: the spans read from it borrow it
        activitySummaries += 1
        guard let sink = unretainedSink else { return }
        let summary = DecodedActivitySummary(attributes)
        sink.with { $0.activitySummary(summary, decoder: self) }
    }
}

/// Time-of-day text as HRV beats carry it: `00:20:37,80`, `7:20:37.80 PM`, `19:20:37`.
package enum TimeOfDay {
    package static func seconds(_ s: ByteSpan) -> Int? {
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
        while i < s.count, s[i] == 0x20 || s[i] == 0xE2 || s[i] == 0x80 || s[i] == 0xAF { i += 1 }   // spaces incl. U+202F
        if i + 1 < s.count, s[i + 1] == 0x4D || s[i + 1] == 0x6D {   // AM / PM
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
