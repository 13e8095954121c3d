import HealthTrailArchive
import HealthTrailBase

/// Reads back a CSV file HealthTrail wrote and hands its rows, typed by a `TableSchema`, to a
/// `TableRowSink`: how the SQLite database and the Parquet files get the CSV files' rows and
/// values, one schema deciding every type.
///
/// Reading the staged CSV (rather than a second copy of every writer's formatting) makes the
/// three formats agree by construction: a value is formatted once, then parsed by type. A field
/// that does not parse as its column's type is a bug in the schema, reported with the file,
/// line and column, never the value.
package enum CSVTableReader {
    /// Streams every row of the CSV at `path` into `sink`; returns the number of rows. The
    /// header must name the schema's columns in order.
    /// - Parameter name: what messages call the file (its name in the output folder; the
    ///   staging path is gone by the time anyone reads the message).
    @discardableResult
    package static func copy<Sink: TableRowSink>(_ path: String, named name: String? = nil, as schema: TableSchema, into sink: Sink) throws -> Int {
        let shown = name ?? path
        let types = schema.columns.map(\.type)
        var rows = 0, header = false
        // SAFETY: `record` and its fields are used only inside the closure that received it, and
        // the sink keeps no field past the row's `endRow()`, called in that closure too.
        try unsafe CSVRecordReader.forEachRecord(path: path) { record in
            if unsafe record.number == 1 {
                header = true
                guard unsafe (0..<record.count).map({ unsafe record.field($0).string }) == schema.columns.map(\.name) else {
                    throw InputError(file: shown, line: 1, "header does not match the table \(schema.name)'s columns")
                }
                return
            }
            guard unsafe record.count == types.count else {
                throw unsafe InputError(file: shown, line: record.number, "\(record.count) fields, \(types.count) columns")
            }
            for column in 0..<types.count {
                let field = unsafe record.field(column)
                guard field.count > 0 else {
                    sink.null(column)
                    continue
                }
                switch types[column] {
                case .text:
                    sink.text(column, field)
                case .integer:
                    guard let value = TypedField.integer(field) else { throw unsafe mistyped(shown, record, schema, column) }
                    sink.integer(column, value)
                case .real:
                    guard let value = TypedField.real(field) else { throw unsafe mistyped(shown, record, schema, column) }
                    sink.real(column, value)
                case .boolean:
                    if field.equals("true") {
                        sink.boolean(column, true)
                    } else if field.equals("false") {
                        sink.boolean(column, false)
                    } else {
                        throw unsafe mistyped(shown, record, schema, column)
                    }
                case .date:
                    guard let days = TypedField.days(field) else { throw unsafe mistyped(shown, record, schema, column) }
                    sink.date(column, days: days, text: field)
                case .timestamp:
                    guard let seconds = TypedField.utcSeconds(field) else { throw unsafe mistyped(shown, record, schema, column) }
                    sink.timestamp(column, seconds: seconds)
                }
            }
            try sink.endRow()
            rows += 1
        }
        guard header else { throw InputError(file: shown, "no header row") }
        return rows
    }

    /// Which of `columns` hold a number in every non-empty field of the CSV at `path` (a column
    /// with no value at all counts as numbers).
    package static func numericColumns(_ path: String, among columns: [String]) throws -> Set<String> {
        var indices: [Int] = []
        var numeric: [Bool] = []
        // SAFETY: `record` and its fields are used only inside the closure that received it.
        try unsafe CSVRecordReader.forEachRecord(path: path) { record in
            if unsafe record.number == 1 {
                let header = unsafe (0..<record.count).map { unsafe record.field($0).string }
                indices = columns.map { header.firstIndex(of: $0) ?? -1 }
                numeric = indices.map { $0 >= 0 }
                return
            }
            for (k, i) in indices.enumerated() where unsafe numeric[k] && i < record.count {
                let field = unsafe record.field(i)
                guard field.count > 0 else { continue }
                if TypedField.real(field) == nil { numeric[k] = false }
            }
        }
        return Set(columns.indices.filter { numeric.indices.contains($0) && numeric[$0] }.map { columns[$0] })
    }

    private static func mistyped(_ path: String, _ record: CSVRecordReader.Record, _ schema: TableSchema, _ column: Int) -> InputError {
        let c = schema.columns[column]
        let article = c.type == .integer ? "an" : "a"
        // SAFETY: called inside the record's closure; the error keeps only the record's number.
        return unsafe InputError(
            file: path, line: record.number,
            "column \(c.name) does not hold \(article) \(c.type.rawValue) value (a bug: please report it)")
    }
}

/// The typed value of a CSV field, parsed without allocating (save for rare long numbers).
enum TypedField {
    /// `-12`, `0`, `42`: any whole number an `Int64` holds; nil for anything else.
    @inline(__always)
    static func integer(_ s: ByteSpan) -> Int64? {
        var i = 0
        let negative = s.count > 0 && s[0] == 0x2D
        if negative { i = 1 }
        guard i < s.count, s.count - i <= 19 else { return nil }
        // Accumulated negative: Int64.min has no positive counterpart.
        var value: Int64 = 0
        while i < s.count {
            let digit = s[i] &- 0x30
            guard digit < 10 else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = times10.subtractingReportingOverflow(Int64(digit))
            guard !o1, !o2 else { return nil }
            value = next
            i += 1
        }
        if negative { return value }
        return value == .min ? nil : -value
    }

    /// `2024-01-02T15:31:22Z` → seconds since 1970-01-01T00:00:00Z, for any four-digit year
    /// (a local time near 1900 or 2200 may fall just outside the years the decoders accept
    /// once made UTC); nil for anything else. The text is the one format of those seconds
    /// (`Timestamp.writeUTC`, which never writes a leap second's `:60`), so the database can
    /// store the seconds alone and give the same text back.
    @inline(__always)
    static func utcSeconds(_ s: ByteSpan) -> Int64? {
        guard s.count == 20, s[4] == 0x2D, s[7] == 0x2D, s[10] == 0x54, s[13] == 0x3A, s[16] == 0x3A, s[19] == 0x5A,
            let days = days(s.prefix(10)), let hour = Timestamp.digits(s, 11, 2), let minute = Timestamp.digits(s, 14, 2),
            let second = Timestamp.digits(s, 17, 2), hour <= 23, minute <= 59, second <= 59
        else { return nil }
        return Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// A decimal number, rounded as strtod rounds it (`NumberText.fastDouble`); nil for a
    /// number's text that reads as infinity (`1e309`): no table stores one, and the writers never
    /// stage one (`NumberText.isInRange`).
    @inline(__always)
    static func real(_ s: ByteSpan) -> Double? {
        guard let value = NumberText.fastDouble(s), value.isFinite else { return nil }
        return value
    }

    /// `2024-01-02` → days since 1970-01-01; nil for a day the month does not have.
    @inline(__always)
    static func days(_ s: ByteSpan) -> Int32? {
        guard s.count == 10, s[4] == 0x2D, s[7] == 0x2D, let y = Timestamp.digits(s, 0, 4), let m = Timestamp.digits(s, 5, 2),
            let d = Timestamp.digits(s, 8, 2), (1...12).contains(m), d >= 1, d <= Timestamp.daysIn(month: m, year: y)
        else { return nil }
        return Int32(Timestamp.daysFromCivil(year: y, month: m, day: d))
    }
}
