import ArgumentParser
import HealthTrailKit
import HealthTrailRun

/// `healthtrail inspect ARCHIVE`.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Summarise an export without writing anything.",
        discussion: """
            Lists the archive's entries, the export version and date, the span of the data, record \
            counts per type (with the exact copies of a record that `run` counts once) and the \
            sources that wrote them, and the malformed records `run` would skip in export.xml and \
            the ECG files (route files are read by `run` only). Reads the whole export.xml once.

            --json prints the same as one JSON object for scripts (stable keys, see format_version): \
            names, counts, sizes and dates only, like manifest.json; the sources are counted, not \
            named.

            Examples:
              healthtrail inspect ~/Downloads/export.zip
              healthtrail inspect ~/Downloads/export.zip --json | jq .counts.workouts
            """
    )

    @Argument(
        help: ArgumentHelp(
            "The export: export.zip, an apple_health_export/ folder, or export.xml; - reads it from standard input.", valueName: "archive"))
    var archive: String

    @Flag(name: .shortAndLong, help: "No progress line.")
    var quiet = false

    @Flag(help: "Print the summary as JSON (no source names, no health values).")
    var json = false

    @OptionGroup var versionOption: VersionOption

    func run() throws {
        // `-`: standard input, spooled (a zip is read from its end).
        let spool = StandardInputArchive.isRequested(archive) ? try StandardInputArchive.forInspection() : nil
        if let spool { StandardInputAlias.path = spool.path }
        let report = try withExtendedLifetime(spool) {
            try ExportInspection.inspect(path: spool?.path ?? archive, label: spool.map { _ in StandardInputArchive.label }, showProgress: !quiet)
        }
        if json {
            print(try InspectionReport(report, path: archive).json(), terminator: "")
            return
        }
        print("export:   \(spool == nil ? report.source : StandardInputArchive.label)")
        print("main xml: \(report.layout.mainXML.path) (\(report.layout.mainXML.uncompressedSize) bytes)")
        print(
            "version:  \(report.exportVersion ?? "unknown")   exported: \(report.exportDate?.utcString ?? "unknown")   locale: \(report.locale ?? "unknown")"
        )
        if let (first, last) = report.dateRange {
            print("data:     \(first.utcString) … \(last.utcString)")
        }
        print("entries:  \(report.entries.count) (\(report.layout.routeFiles.count) route files, \(report.layout.ecgFiles.count) ECG files)")
        print(
            "workouts: \(report.workouts)   heart-rate samples: \(report.heartRate)   malformed records: \(report.faults) (export.xml and ECG files)")
        print("\nrecords per type:")
        for t in report.recordTypes {
            let copies = report.copiesByType[t.identifier].map { "  (\($0) \($0 == 1 ? "copy" : "copies") of another record, counted once)" } ?? ""
            print("  \(String(t.count).leftPadded(9))  \(t.identifier)\(copies)")
        }
        print("\nsources:")
        for s in report.sources {
            print("  \(String(s.records).leftPadded(9))  \(s.name)")
        }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
