/// The type of a column in every format a table is written in: what the CSV's text means, and
/// so what SQLite and Parquet store.
package enum ColumnType: String, Sendable, Equatable, CaseIterable {
    /// UTF-8 text: SQLite TEXT, Parquet STRING.
    case text
    /// A whole number: SQLite INTEGER, Parquet INT64.
    case integer
    /// A decimal number: SQLite REAL, Parquet DOUBLE.
    case real
    /// `true` or `false`: SQLite INTEGER 1 or 0, Parquet BOOLEAN.
    case boolean
    /// A calendar date, `2024-01-02`: SQLite TEXT as written, Parquet DATE.
    case date
    /// A UTC instant, `2024-01-02T15:31:22Z`: in SQLite a Unix-seconds INTEGER column beside
    /// the text (`time_utc` → `time_unix`), which SQLite generates from it as TEXT when read;
    /// Parquet TIMESTAMP(UTC, micros).
    case timestamp
}

/// One column of a table: its name (the CSV header's) and type.
package struct TableColumn: Sendable, Equatable {
    /// The name in the CSV header, the SQLite table and the Parquet schema.
    package var name: String
    /// What its values are.
    package var type: ColumnType

    /// A column named `name` of type `type`.
    package init(_ name: String, _ type: ColumnType) {
        self.name = name
        self.type = type
    }

    /// The Unix-seconds companion SQLite adds beside a timestamp: `start_utc` → `start_unix`.
    package var unixSecondsName: String {
        (name.hasSuffix("_utc") ? String(name.dropLast(4)) : name) + "_unix"
    }
}

/// A table as the typed writers see it: a name and typed columns, in the CSV file's order.
package struct TableSchema: Sendable, Equatable {
    /// The table's name in SQLite and its Parquet file's (`heart_rate`, `records_step_count`).
    package var name: String
    /// The columns, in the order of the CSV header.
    package var columns: [TableColumn]

    /// A table named `name` with these columns.
    package init(name: String, columns: [TableColumn]) {
        self.name = name
        self.columns = columns
    }
}
