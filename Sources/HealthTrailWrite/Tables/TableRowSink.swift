import HealthTrailArchive
import HealthTrailBase

/// Something that stores typed rows: the SQLite and Parquet table writers.
///
/// Each row gives every column exactly one value, in column order, then `endRow()`. Dates and
/// timestamps come with the CSV text they were read from; SQLite stores a date's as it is, and
/// a timestamp's seconds alone (it generates the same text from them when read).
package protocol TableRowSink: AnyObject {
    /// An empty field.
    func null(_ column: Int)
    /// A text value, a span that cannot leave the call; its bytes stay valid until the row's
    /// `endRow()` returns (the SQLite writer binds them without a copy and reads them when the
    /// row is stepped).
    func text(_ column: Int, _ value: ByteSpan)
    /// A whole number.
    func integer(_ column: Int, _ value: Int64)
    /// A decimal number.
    func real(_ column: Int, _ value: Double)
    /// `true` or `false`.
    func boolean(_ column: Int, _ value: Bool)
    /// A date: days since 1970-01-01, and its `2024-01-02` text.
    func date(_ column: Int, days: Int32, text: ByteSpan)
    /// An instant: seconds since 1970-01-01T00:00:00Z (its `2024-01-02T15:31:22Z` text is the
    /// one format of them, which no writer stores).
    func timestamp(_ column: Int, seconds: Int64)
    /// Ends the row.
    func endRow() throws
}
