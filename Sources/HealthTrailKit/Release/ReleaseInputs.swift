import Foundation
import HealthTrailArchive
import HealthTrailBase
import HealthTrailDecode

/// The contributions a release reads from a run's outputs (`daily.csv`, `workouts.csv`).
enum ReleaseInputs {
    /// One person's contributions; their units are named after `person` (see `Contribution.unit`).
    static func contributions(for release: ReleaseSpec.Release, runDirectory: String, person: String) throws -> [Contribution] {
        let parts = release.metric.split(separator: ".", maxSplits: 1).map(String.init)
        let (table, column) = (parts[0], parts.count > 1 ? parts[1] : "")
        let path = runDirectory + "/" + table + ".csv"
        let csv = try CSVTable(path: path)
        let counted = PublicPartitions.countedDays(of: release)
        /// The partition of a local date, nil for a day the release does not count.
        func partitionKey(_ date: String, activity: String?) -> String? {
            guard let day = PublicPartitions.day(date), let counted, counted.first <= day && day <= counted.last else { return nil }
            let key = PublicPartitions.key(ofDay: day, for: release.partition)
            return release.partition.byActivity ? (activity.map { $0 + "|" + key }) : key
        }
        var result: [Contribution] = []
        switch table {
        case "daily":
            guard release.privacyUnit != .workout else {
                throw InputError(file: path, "release \(release.id): daily figures have no workout privacy unit")
            }
            guard let valueColumn = csv.column(column), let dateColumn = csv.column("date") else {
                throw InputError(file: path, "release \(release.id): daily.csv has no column \(column)")
            }
            for row in csv.rows {
                guard let value = Double(row[valueColumn]), let key = partitionKey(row[dateColumn], activity: nil) else { continue }
                let unit = release.privacyUnit == .person ? person : person + "|" + row[dateColumn]
                result.append(Contribution(unit: unit, partition: key, value: value))
            }
        case "workouts":
            guard let id = csv.column("workout_id"), let start = csv.column("start_utc"), let offset = csv.column("utc_offset"),
                let activity = csv.column("activity")
            else { throw InputError(file: path, "not a workouts.csv") }
            let valueColumn = column == "count" ? nil : csv.column(column)
            if column != "count" && valueColumn == nil {
                throw InputError(file: path, "release \(release.id): workouts.csv has no column \(column)")
            }
            for row in csv.rows {
                guard let date = localDate(startUTC: row[start], offset: row[offset]) else { continue }
                guard let key = partitionKey(date, activity: row[activity]) else { continue }
                let value = valueColumn.map { Double(row[$0]) ?? .nan } ?? 1
                let unit = release.privacyUnit == .person ? person : person + "|" + (release.privacyUnit == .day ? date : row[id])
                result.append(Contribution(unit: unit, partition: key, value: value))
            }
        default:
            throw InputError(file: path, "release \(release.id): unknown metric \(release.metric)")
        }
        return result
    }

    /// The local date a workout started on, from `workouts.csv`'s `start_utc` and `utc_offset`.
    static func localDate(startUTC: String, offset: String) -> String? {
        guard let t = Timestamp.parse(startUTC), let minutes = offsetMinutes(offset) else { return nil }
        return Timestamp(utcSeconds: t.utcSeconds, offsetMinutes: minutes).localDateString
    }

    /// The workouts of `workouts.csv` that started on a day the release counts.
    static func countedWorkouts(for release: ReleaseSpec.Release, runDirectory: String) throws -> Set<String> {
        guard let counted = PublicPartitions.countedDays(of: release) else { return [] }
        let path = runDirectory + "/workouts.csv"
        let csv = try CSVTable(path: path)
        guard let id = csv.column("workout_id"), let start = csv.column("start_utc"), let offset = csv.column("utc_offset") else {
            throw InputError(file: path, "not a workouts.csv")
        }
        var workouts = Set<String>()
        for row in csv.rows {
            guard let date = localDate(startUTC: row[start], offset: row[offset]), let day = PublicPartitions.day(date),
                counted.first <= day && day <= counted.last
            else { continue }
            workouts.insert(row[id])
        }
        return workouts
    }

    /// `+01:00` → 60.
    static func offsetMinutes(_ text: String) -> Int32? {
        guard text.count == 6, let h = Int32(text.dropFirst().prefix(2)), let m = Int32(text.suffix(2)) else { return nil }
        return (text.hasPrefix("-") ? -1 : 1) * (h * 60 + m)
    }
}

/// A small RFC 4180 CSV file in memory (the run's summary files are a few thousand rows).
struct CSVTable {
    let header: [String]
    let rows: [[String]]

    init(path: String) throws {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw InputError(file: path, "cannot read (run `healthtrail run` into this folder first, with csv among its formats)")
        }
        self.init(text: text)
    }

    /// The table of CSV `text`: its first row the header, rows of another width left out.
    init(text: String) {
        var rows: [[String]] = [], row: [String] = [], field = "", quoted = false
        var justClosed = false   // a quote right after a closing quote is an escaped quote
        for c in text {
            if quoted {
                if c == "\"" { quoted = false; justClosed = true } else { field.append(c) }
                continue
            }
            if c == "\"" {
                if justClosed { field.append("\"") }
                quoted = true
            } else if c == "," {
                row.append(field); field = ""
            } else if c == "\n" {
                row.append(field); rows.append(row); row = []; field = ""
            } else {
                field.append(c)
            }
            justClosed = false
        }
        if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
        header = rows.first ?? []
        let width = header.count
        self.rows = rows.dropFirst().filter { $0.count == width }
    }

    func column(_ name: String) -> Int? { header.firstIndex(of: name) }
}
