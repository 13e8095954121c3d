import Foundation
import Testing

@testable import HealthTrailKit
@testable import HealthTrailRun
@testable import HealthTrailSynth

extension OutputContractTests {
    /// The generator's ECG files by their path relative to the export folder.
    static func ecgTruths(_ f: Fixture) -> [String: ECGTruth] {
        Dictionary(uniqueKeysWithValues: f.summary.ecgRecordings.map { ($0.file, $0) })
    }

    /// Each row of ecg.csv with the generator's truth for its file; an issue for a row whose
    /// file the generator did not write.
    static func ecgRows(_ f: Fixture, _ t: Table) -> [(row: [String: String], truth: ECGTruth)] {
        let truths = ecgTruths(f)
        return t.records.compactMap { row in
            guard let truth = truths[row["file"] ?? ""] else {
                Issue.record("ecg.csv: a row for `\(row["file"] ?? "")`, which the generator did not write")
                return nil
            }
            return (row, truth)
        }
    }

    /// A column of ecg.csv equal, row by row, to the generator's text for it.
    static func ecgText(_ column: String, _ value: @escaping @Sendable (ECGTruth) -> String) -> Check {
        { f, t in
            for (row, truth) in ecgRows(f, t) { #expect(row[column] == value(truth), "ecg.csv \(truth.file): \(column)") }
        }
    }

    /// ecg.csv: one row per ECG file the generator wrote, in time order, each with its header's
    /// values; the name and date of birth of the header in no column.
    enum ECGChecks {
        static let all: [String: Check] = [
            "recording_id": { f, t in
                #expect(t.rows.count == f.summary.ecgRecordings.count && !t.rows.isEmpty)
                let times = t.values("recorded_utc")
                #expect(times == times.sorted(), "ecg.csv is not sorted by time")
                for (row, truth) in ecgRows(f, t) {
                    #expect(row["recording_id"] == truth.recordedUTC.filter { $0 != "-" && $0 != ":" }, "\(truth.file)")
                }
                for row in t.rows {
                    let text = row.joined(separator: ",")
                    #expect(!text.contains(SynthSidecars.ecgName) && !text.contains(SynthSidecars.ecgDateOfBirth))
                }
            },
            "recorded_utc": ecgText("recorded_utc") { $0.recordedUTC },
            "utc_offset": ecgText("utc_offset") { offsetText($0.offsetMinutes) },
            "classification": ecgText("classification") { $0.classification },
            "symptoms": ecgText("symptoms") { $0.symptoms },
            "samples": ecgText("samples") { String($0.samples) },
            "sample_rate_hz": { f, t in
                for (row, truth) in ecgRows(f, t) { expectClose(row["sample_rate_hz"], truth.sampleRateHz, within: 0, "\(truth.file) rate") }
            },
            "duration_s": { f, t in
                for (row, truth) in ecgRows(f, t) {
                    expectClose(row["duration_s"], Double(truth.samples) / truth.sampleRateHz, within: 1e-6, "\(truth.file) duration")
                }
            },
            "lead": ecgText("lead") { $0.lead },
            "unit": ecgText("unit") { $0.unit },
            "device": ecgText("device") { $0.device },
            "software_version": ecgText("software_version") { $0.softwareVersion },
            "file": { f, t in #expect(Set(t.values("file")) == Set(ecgTruths(f).keys)) },
        ]
    }

    /// ecg_samples.csv (the fixture's run asks for it): every sample of every recording, in
    /// order, at index / rate seconds, with the values the generator wrote.
    enum ECGSampleChecks {
        /// The samples' rows by recording id, in file order.
        static func byRecording(_ t: Table) -> [String: [[String: String]]] {
            Dictionary(grouping: t.records) { $0["recording_id"] ?? "" }
        }

        /// The generator's truth per recording id, read through ecg.csv.
        static func truths(_ f: Fixture) -> [String: ECGTruth] {
            let truths = ecgTruths(f)
            var byID: [String: ECGTruth] = [:]
            for row in f.table(OutputSchema.ecg.name).records {
                if let id = row["recording_id"], let truth = truths[row["file"] ?? ""] { byID[id] = truth }
            }
            return byID
        }

        static let all: [String: Check] = [
            "recording_id": { f, t in
                let truths = truths(f)
                #expect(t.rows.count == f.summary.ecgRecordings.reduce(0) { $0 + $1.samples })
                #expect(Set(byRecording(t).keys) == Set(truths.keys))
                for (id, rows) in byRecording(t) { #expect(rows.count == truths[id]?.samples, "\(id)") }
            },
            "sample_index": { _, t in
                for (id, rows) in byRecording(t) {
                    #expect(rows.map { $0["sample_index"] ?? "" } == (0..<rows.count).map(String.init), "\(id): indices not 0, 1, 2, …")
                }
            },
            "time_offset_s": { f, t in
                let truths = truths(f)
                for (id, rows) in byRecording(t) {
                    guard let rate = truths[id]?.sampleRateHz else { continue }
                    for (index, row) in rows.enumerated() where index % 97 == 0 || index == rows.count - 1 {
                        expectClose(row["time_offset_s"], Double(index) / rate, within: 1e-9, "\(id) sample \(index)")
                    }
                }
            },
            "microvolts": { f, t in
                let truths = truths(f)
                for (id, rows) in byRecording(t) {
                    guard let truth = truths[id] else { continue }
                    let values = rows.compactMap { Double($0["microvolts"] ?? "") }
                    #expect(values.count == rows.count, "\(id): a value is not a number")
                    #expect(values.first == truth.firstMicrovolts && values.last == truth.lastMicrovolts, "\(id)")
                    let sum = values.reduce(0, +)
                    #expect(abs(sum - truth.microvoltSum) < 1e-6 * max(1, abs(truth.microvoltSum)), "\(id): sum \(sum)")
                }
            },
        ]
    }
}
