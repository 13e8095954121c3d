import Foundation
import Testing

@testable import HealthTrailArchive
@testable import HealthTrailBase
@testable import HealthTrailDecode
@testable import HealthTrailXML

/// `ExportDecoder` hands every record to its `ExportRecordSink` and writes nothing itself: a
/// sink of the test's own sees each record, heart-rate sample, HRV beat and activity summary of
/// a small export, in file order, with the values as written. (That the decoder writes nothing
/// itself the compiler keeps: HealthTrailDecode does not depend on HealthTrailKit.)
@Suite struct ExportRecordSinkTests {
    /// Writes down what it is handed.
    final class Transcript: ExportRecordSink {
        var lines: [String] = []

        override func record(_ record: DecodedRecord, of type: RecordType, decoder: ExportDecoder) throws {
            lines.append(
                "record \(type.identifier) \(record.start.utcString)…\(record.end.utcString) \(record.value?.string ?? "-") "
                    + "\(record.unit?.string ?? "-") → \(record.conversion?.canonicalUnit ?? "-") \(decoder.sourceName(record.sourceIndex))")
        }

        override func heartRate(_ record: DecodedRecord, of type: RecordType, decoder: ExportDecoder) {
            lines.append("heart rate \(record.start.utcString) \(record.number) \(record.source.string)")
        }

        override func heartRateEnded(motionContext: UInt8) {
            lines.append("heart rate ended \(motionContext == 0 ? "-" : String(UnicodeScalar(motionContext)))")
        }

        override func hrvBeat(utcSeconds: Int64, offsetMinutes: Int32, bpm: ByteSpan, sourceIndex: Int, decoder: ExportDecoder) {
            lines.append("beat \(Timestamp(utcSeconds: utcSeconds).utcString) \(bpm.string) \(decoder.sourceName(sourceIndex))")
        }

        override func activitySummary(_ summary: DecodedActivitySummary, decoder: ExportDecoder) {
            lines.append(
                "summary \(summary.date?.string ?? "-") \(summary.appleExerciseTime?.string ?? "-") \(summary.appleStandHours?.string ?? "-")")
        }
    }

    static let export = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_GB">
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2024-03-01 08:00:00 +0100" endDate="2024-03-01 08:10:00 +0100" value="420"/>
         <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" sourceName="Watch" unit="mi" startDate="2024-03-01 08:00:00 +0100" endDate="2024-03-01 08:10:00 +0100" value="0.5"/>
         <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" unit="count/min" startDate="2024-03-01 09:00:00 +0100" endDate="2024-03-01 09:00:00 +0100" value="71">
          <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="1"/>
         </Record>
         <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="Watch" unit="ms" startDate="2024-03-01 23:10:00 +0100" endDate="2024-03-01 23:11:00 +0100" value="48">
          <HeartRateVariabilityMetadataList>
           <InstantaneousBeatsPerMinute bpm="62" time="23:10:05,50"/>
          </HeartRateVariabilityMetadataList>
         </Record>
         <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Watch" startDate="2024-03-01 23:30:00 +0100" endDate="2024-03-02 01:00:00 +0100" value="HKCategoryValueSleepAnalysisAsleepCore"/>
         <ActivitySummary dateComponents="2024-03-01" activeEnergyBurned="310" activeEnergyBurnedGoal="400" activeEnergyBurnedUnit="kcal" appleExerciseTime="25" appleStandHours="9"/>
        </HealthData>
        """

    static let expected = [
        "record HKQuantityTypeIdentifierStepCount 2024-03-01T07:00:00Z…2024-03-01T07:10:00Z 420 count → count Phone",
        "record HKQuantityTypeIdentifierDistanceWalkingRunning 2024-03-01T07:00:00Z…2024-03-01T07:10:00Z 0.5 mi → m Watch",
        "heart rate 2024-03-01T08:00:00Z 71.0 Watch",
        "heart rate ended 1",
        "record HKQuantityTypeIdentifierHeartRateVariabilitySDNN 2024-03-01T22:10:00Z…2024-03-01T22:11:00Z 48 ms → ms Watch",
        "beat 2024-03-01T22:10:05Z 62 Watch",
        "record HKCategoryTypeIdentifierSleepAnalysis 2024-03-01T22:30:00Z…2024-03-02T00:00:00Z HKCategoryValueSleepAnalysisAsleepCore - → - Watch",
        "summary 2024-03-01 25 9",
    ]

    @Test(arguments: [false, true])
    func aSinkSeesEveryRecordInFileOrder(onOwnThread: Bool) throws {
        let sink = Transcript()
        let decoder = ExportDecoder(sink: sink, faults: FaultLog(file: "export.xml", strict: true), fileName: "export.xml", entryName: "export.xml")
        if onOwnThread { decoder.decodeOnOwnThread() }
        try decoder.feed(Array(Self.export.utf8))
        try decoder.finish()
        #expect(sink.lines == Self.expected)
        #expect(decoder.heartRateSamples == 1 && decoder.hrvBeats == 1 && decoder.activitySummaries == 1)
    }
}
