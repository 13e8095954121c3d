import Foundation
import HealthTrailCommit
import HealthTrailDecode
import HealthTrailWrite

/// The CSV files one run writes while export.xml and the route files stream through.
///
/// Header rows come from `OutputSchema`, which the table of docs/outputs.md is generated from.
package final class ExportOutputs {
    let staging: OutputStaging
    package private(set) var heartRate: CSVWriter
    package let routePoints: CSVWriter
    package private(set) var hrvBeats: CSVWriter
    package private(set) var activitySummaries: CSVWriter
    private var writers: [(name: String, writer: CSVWriter)] = []

    package init(staging: OutputStaging) throws {
        self.staging = staging
        // Files written while export.xml is parsed hand their writes to another thread (write-behind).
        heartRate = try CSVWriter(
            path: staging.path("heart_rate.csv"), header: OutputSchema.heartRate.names, bufferSize: 1 << 20,
            writeBehind: true)
        routePoints = try CSVWriter(
            path: staging.path("route_points.csv"), header: OutputSchema.routePoints.names, bufferSize: 1 << 20,
            writeBehind: true)
        hrvBeats = try CSVWriter(path: staging.path("hrv_beats.csv"), header: OutputSchema.hrvBeats.names, writeBehind: true)
        activitySummaries = try CSVWriter(
            path: staging.path("activity_summaries.csv"), header: OutputSchema.activitySummaries.names,
            writeBehind: true)
        writers = [
            ("heart_rate.csv", heartRate), ("route_points.csv", routePoints), ("hrv_beats.csv", hrvBeats),
            ("activity_summaries.csv", activitySummaries),
        ]
    }

    /// Empties the tables export.xml's records fill (`heart_rate.csv`, `hrv_beats.csv`,
    /// `activity_summaries.csv`, `records/`), for a second reading of export.xml: what the first
    /// wrote is removed, and the files are made anew on first use, under the same names.
    func restartExportXMLTables() throws {
        for (name, w) in writers where Self.isExportXMLTable(name) {
            try w.close(syncing: false)
            unlink(try staging.path(name))
        }
        writers.removeAll { Self.isExportXMLTable($0.name) }
        recordWriters = [:]
        takenNames = []
        quantityFiles = []
        heartRate = try CSVWriter(
            path: staging.path("heart_rate.csv"), header: OutputSchema.heartRate.names, bufferSize: 1 << 20, writeBehind: true)
        hrvBeats = try CSVWriter(path: staging.path("hrv_beats.csv"), header: OutputSchema.hrvBeats.names, writeBehind: true)
        activitySummaries = try CSVWriter(
            path: staging.path("activity_summaries.csv"), header: OutputSchema.activitySummaries.names, writeBehind: true)
        writers += [("heart_rate.csv", heartRate), ("hrv_beats.csv", hrvBeats), ("activity_summaries.csv", activitySummaries)]
    }

    /// Record-type file names already taken (`StepCount` of two identifier families, or `FooBar`
    /// and `Foo_Bar`, would otherwise share a file and overwrite each other).
    private var takenNames: Set<String> = []
    /// The `records/<name>.csv` files of quantity types (numbers), as opposed to categories (words).
    package private(set) var quantityFiles: Set<String> = []
    /// Each record type's writer (`RecordType`s live as long as their decoder, which outlives this).
    private var recordWriters: [ObjectIdentifier: CSVWriter] = [:]

    /// The `records/<name>.csv` writer of a record type, created on first use.
    func recordWriter(for type: RecordType) throws -> CSVWriter {
        if let w = recordWriters[ObjectIdentifier(type)] { return w }
        var base = type.fileName, n = 2
        while takenNames.contains(base) { base = "\(type.fileName)-\(n)"; n += 1 }
        takenNames.insert(base)
        let name = "records/\(base).csv"
        // Large buffers only where the data is large: dozens of types would otherwise cost RSS.
        let w = try CSVWriter(path: staging.path(name), header: OutputSchema.records.names, bufferSize: 64 * 1024, writeBehind: true)
        recordWriters[ObjectIdentifier(type)] = w
        writers.append((name, w))
        if type.isQuantity { quantityFiles.insert(name) }
        return w
    }

    /// A further CSV in the staging folder (e.g. `workouts.csv`), closed with the others.
    package func addWriter(_ name: String, header: [String]) throws -> CSVWriter {
        let w = try CSVWriter(path: staging.path(name), header: header)
        writers.append((name, w))
        return w
    }

    /// Whether `name` is one of the tables export.xml's records fill, which no later stage
    /// writes: `heart_rate.csv`, `hrv_beats.csv`, `activity_summaries.csv` and `records/`.
    static func isExportXMLTable(_ name: String) -> Bool {
        ["heart_rate.csv", "hrv_beats.csv", "activity_summaries.csv"].contains(name) || name.hasPrefix("records/")
    }

    /// The files synced and closed before `closeAll`.
    private var closedEarly: Set<String> = []

    /// Syncs and closes the tables export.xml's records fill, once export.xml has been read, so
    /// that their other formats can be written while the routes and the analysis run; returns
    /// their names and row counts. `closeAll` then leaves them be.
    package func closeExportXMLTables() throws -> [(name: String, rows: Int)] {
        let tables = writers.filter { Self.isExportXMLTable($0.name) && !closedEarly.contains($0.name) }
        try Self.syncAndClose(tables.map(\.writer))
        closedEarly.formUnion(tables.map(\.name))
        return tables.map { ($0.name, $0.writer.rows) }.sorted { $0.name < $1.name }
    }

    /// Syncs and closes every file; returns each output's name and row count.
    package func closeAll() throws -> [(name: String, rows: Int)] {
        try Self.syncAndClose(writers.filter { !closedEarly.contains($0.name) }.map(\.writer))
        return writers.map { ($0.name, $0.writer.rows) }.sorted { $0.name < $1.name }
    }

    /// Each file must be on disk before it is renamed into place. One fsync after another costs
    /// a journal commit each (≈3 ms on a VM disk, dozens of files); issued concurrently they
    /// share commits, so each file gets its own thread for the wait.
    private static func syncAndClose(_ writers: [CSVWriter]) throws {
        let group = DispatchGroup()
        for w in writers {
            w.flush()
            group.enter()
            let handOff = SyncHandOff(writer: w)
            Thread {
                handOff.writer.sync(); group.leave()
            }.start()
        }
        group.wait()
        for w in writers { try w.close() }
    }
}

/// A writer handed to the thread that syncs it.
///
/// `@unchecked Sendable`: `closeAll` gives each writer's thread that writer alone and touches
/// none of them until `group.wait()` has seen every thread leave, ordering their writes first.
private struct SyncHandOff: @unchecked Sendable {
    let writer: CSVWriter
}
