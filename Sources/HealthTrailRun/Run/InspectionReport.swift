import Foundation

/// `healthtrail inspect --json`: what `inspect` prints, as one JSON object for scripts.
///
/// Like `manifest.json` it holds names, counts, sizes and dates only: no health value, and no
/// text read from the data beyond the record types' identifiers (which the manifest keys its
/// counts by too). Source names, which often carry a person's name ("Alex's Apple Watch"), are
/// counted, not listed; entry paths other than the main XML's are counted, not listed.
///
/// The keys are stable: `format_version` changes when one is renamed or removed (adding a key
/// does not change it).
package struct InspectionReport: Codable, Sendable, Equatable {
    package struct Input: Codable, Sendable, Equatable {
        /// The path as given on the command line (`-` for standard input).
        package var path: String
        /// `zip`, `folder` or `xml`, as in the manifest.
        package var kind: String
        package var mainEntry: String
        package var mainEntryBytes: UInt64
        package var exportVersion: String?
        package var exportDate: String?
        package var locale: String?
    }
    package struct Entries: Codable, Sendable, Equatable {
        package var total: Int
        package var routeFiles: Int
        package var ecgFiles: Int
    }
    package struct Counts: Codable, Sendable, Equatable {
        package var recordsByType: [String: Int]
        package var workouts: Int
        package var heartRate: Int
        /// Records skipped as malformed (a bad date, a non-numeric value).
        package var malformedRecords: Int
        /// Distinct sources (apps and devices) that wrote records.
        package var sources: Int
        /// Records that copy an earlier record (same type, source, unit, start, end and value),
        /// per type: `run` counts each once.
        package var copiesByType: [String: Int]
    }

    package static let currentFormatVersion = 1

    package var tool = "healthtrail"
    package var toolVersion = HealthTrailVersion.current
    package var formatVersion = InspectionReport.currentFormatVersion
    package var input: Input
    /// Earliest and latest record start (UTC), absent when the export has no records.
    package var dataFirstUTC: String?
    package var dataLastUTC: String?
    package var entries: Entries
    package var counts: Counts

    package init(_ inspection: ExportInspection, path: String) {
        input = Input(
            path: path, kind: inspection.kind, mainEntry: inspection.layout.mainXML.path,
            mainEntryBytes: inspection.layout.mainXML.uncompressedSize, exportVersion: inspection.exportVersion,
            exportDate: inspection.exportDate?.utcString, locale: inspection.locale)
        let range = inspection.dateRange
        dataFirstUTC = range?.0.utcString
        dataLastUTC = range?.1.utcString
        entries = Entries(
            total: inspection.entries.count, routeFiles: inspection.layout.routeFiles.count,
            ecgFiles: inspection.layout.ecgFiles.count)
        counts = Counts(
            recordsByType: Dictionary(inspection.recordTypes.map { ($0.identifier, $0.count) }, uniquingKeysWith: +),
            workouts: inspection.workouts, heartRate: inspection.heartRate, malformedRecords: inspection.faults,
            sources: inspection.sources.count, copiesByType: inspection.copiesByType)
    }

    /// Pretty-printed JSON with snake_case keys in sorted order, and a final newline.
    package func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }
}
