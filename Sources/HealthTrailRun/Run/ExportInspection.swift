import Foundation
import HealthTrailAnalysis
import HealthTrailArchive
import HealthTrailBase
import HealthTrailDecode
import HealthTrailXML

/// `healthtrail inspect`: a summary of an export, read in one pass, nothing written.
package struct ExportInspection {
    package let source: String
    package let entries: [ArchiveEntry]
    package let layout: ExportLayout
    /// `zip`, `folder` or `xml`.
    package let kind: String
    package let exportVersion: String?
    package let exportDate: Timestamp?
    package let locale: String?
    package let recordTypes: [(identifier: String, count: Int, first: Int64, last: Int64)]
    package let sources: [(name: String, records: Int)]
    package let workouts: Int
    package let heartRate: Int
    /// Malformed records skipped, counted as `run` counts them in export.xml and the ECG files
    /// (`run` also counts a route file's malformed points, which `inspect` does not read).
    package let faults: Int
    /// Records that copy an earlier one (`RecordCopyFinder`), per record type identifier.
    package let copiesByType: [String: Int]

    /// Reads the export at `path`; `label` names a bare XML file's entry (see `openExportSource`).
    package static func inspect(path: String, label: String? = nil, showProgress: Bool = false) throws -> ExportInspection {
        let source = try openExportSource(path: path, label: label)
        let layout = try ExportLayout(source: source)
        let faults = FaultLog(file: source.displayName, strict: false)
        // The copies' sorted runs go to a scratch file of this process, removed when read back.
        let environment = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 }
        let spill = "\(environment ?? "/tmp")/.healthtrail-inspect-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).spill"
        let sink = CopyCountingSink(finder: RecordCopyFinder(spillPath: spill))
        let decoder = ExportDecoder(sink: sink, faults: faults, fileName: source.displayName, entryName: layout.mainXML.path)
        let progress = ProgressLine(totalBytes: layout.mainXML.uncompressedSize, enabled: showProgress && ProgressLine.stderrIsTerminal)
        defer { progress.finish() }
        let version = try ExportRun.stream(layout.mainXML, of: source, into: decoder, progress: progress)
        let copies = try sink.finder.finish()
        // A malformed ECG file is a fault of `run` too (ECGStage): read each to count it the same.
        for entry in layout.ecgFiles.sorted(by: { $0.path < $1.path }) {
            let ecg = ECGDecoder()
            do {
                try source.read(entry) { chunk in try ecg.feed(chunk) { _, _ in } }
                _ = try ecg.finish(entry: entry.path) { _, _ in }
            } catch let malformed as ECGMalformed {
                faults.record(entry: entry.path, line: malformed.line, kind: malformed.kind, malformed.message)
            }
        }
        return ExportInspection(
            source: source.displayName, entries: source.entries, layout: layout, kind: ExportRun.kind(of: source),
            exportVersion: version,
            exportDate: decoder.exportDate, locale: decoder.locale,
            recordTypes: decoder.recordTypes.map { ($0.identifier, $0.count, $0.firstUTC, $0.lastUTC) }
                .sorted { $0.count > $1.count },
            sources: decoder.sourceRecordCounts.enumerated().map { (decoder.sourceName($0), $1) }.sorted { $0.records > $1.records },
            workouts: decoder.workouts.count, heartRate: decoder.heartRateSamples, faults: faults.total,
            copiesByType: copies.countsByType)
    }

    /// Hands every record to `RecordCopyFinder`, and nothing else.
    private final class CopyCountingSink: ExportRecordSink {
        let finder: RecordCopyFinder

        init(finder: RecordCopyFinder) { self.finder = finder }

        override func record(_ record: DecodedRecord, of type: RecordType, decoder: ExportDecoder) throws {
            finder.add(record, of: type)
        }
        override func heartRate(_ record: DecodedRecord, of type: RecordType, decoder: ExportDecoder) {
            finder.add(record, of: type)
        }
    }

    /// Earliest and latest record start, when there are records.
    package var dateRange: (Timestamp, Timestamp)? {
        let withData = recordTypes.filter { $0.count > 0 }
        guard let first = withData.map(\.first).min(), let last = withData.map(\.last).max() else { return nil }
        return (Timestamp(utcSeconds: first), Timestamp(utcSeconds: last))
    }
}
