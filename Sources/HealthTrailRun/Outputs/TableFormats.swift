import HealthTrailArchive
import HealthTrailBase

/// The formats a run writes its tables in, any combination of three.
package struct TableFormats: OptionSet, Sendable, Hashable {
    /// One bit per format.
    package let rawValue: Int
    /// The formats whose bits `rawValue` sets.
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// One CSV file per table (`daily.csv`, `records/step_count.csv`): the default.
    package static let csv = TableFormats(rawValue: 1)
    /// One SQLite database, `healthtrail.db`, a table per CSV file plus `meta` and views.
    package static let sqlite = TableFormats(rawValue: 2)
    /// One Parquet file per table under `parquet/` (`parquet/records/step_count.parquet`).
    package static let parquet = TableFormats(rawValue: 4)

    /// The names the command line and pipeline files use, in this order.
    package static let all: [(name: String, format: TableFormats)] = [("csv", .csv), ("sqlite", .sqlite), ("parquet", .parquet)]

    /// `csv,parquet` → `[.csv, .parquet]`; nil when a word is none of the names or none is given.
    package init?(names: [String]) {
        var formats: TableFormats = []
        for name in names {
            guard let format = Self.all.first(where: { $0.name == name })?.format else { return nil }
            formats.insert(format)
        }
        guard !formats.isEmpty else { return nil }
        self = formats
    }

    /// The formats' names, in the order of `all`.
    package var names: [String] { Self.all.filter { contains($0.format) }.map(\.name) }

    /// A table whose rows read back differ from those written: a bug, reported by file.
    static func rowCountMismatch(_ csv: String, _ read: Int, _ written: Int) -> InputError {
        InputError(file: csv, "\(read) rows read back, \(written) written")
    }
}
