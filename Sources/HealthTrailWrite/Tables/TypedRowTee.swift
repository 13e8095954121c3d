import HealthTrailArchive
import HealthTrailBase

/// A sink that writes each row to a local writer (the Parquet file, if any) and also batches it
/// for a `TypedRowQueue` (the database's thread): one reading of a CSV file, two formats.
@safe package final class TypedRowTee<Local: TableRowSink>: TableRowSink {
    private let local: Local?
    private let queue: TypedRowQueue
    private let columns: Int
    /// The batch being filled, in an `UncheckedBox`: read once per field, it would cost a
    /// run-time exclusivity check each time as a stored property. SAFETY: the tee is used by one
    /// thread, and `flush` replaces the batch outside any other access to the box.
    private let current: UncheckedBox<TypedRowBatch>
    private var batch: TypedRowBatch { unsafe current.value }

    /// Rows go to `local` (nil: none) and, in batches of `columns`-column rows, to `queue`.
    package init(local: Local?, queue: TypedRowQueue, columns: Int) {
        self.local = local
        self.queue = queue
        self.columns = columns
        unsafe current = UncheckedBox(queue.emptyBatch(columns: columns))
    }

    /// An empty field.
    package func null(_ column: Int) {
        local?.null(column)
        batch.null(column)
    }
    /// A text value.
    package func text(_ column: Int, _ value: ByteSpan) {
        local?.text(column, value)
        batch.text(column, value)
    }
    /// A whole number.
    package func integer(_ column: Int, _ value: Int64) {
        local?.integer(column, value)
        batch.integer(column, value)
    }
    /// A decimal number.
    package func real(_ column: Int, _ value: Double) {
        local?.real(column, value)
        batch.real(column, value)
    }
    /// `true` or `false`.
    package func boolean(_ column: Int, _ value: Bool) {
        local?.boolean(column, value)
        batch.boolean(column, value)
    }
    /// A date.
    package func date(_ column: Int, days: Int32, text: ByteSpan) {
        local?.date(column, days: days, text: text)
        batch.date(column, days: days, text: text)
    }
    /// An instant.
    package func timestamp(_ column: Int, seconds: Int64) {
        local?.timestamp(column, seconds: seconds)
        batch.timestamp(column, seconds: seconds)
    }
    /// Ends the row in both; a full batch goes to the queue (waiting while the queue is full).
    package func endRow() throws {
        try local?.endRow()
        batch.endRow()
        if batch.isFull { try flush() }
    }

    /// Sends the rows batched so far, if any.
    package func flush() throws {
        guard batch.rows > 0 else { return }
        try queue.send(.rows(batch))
        unsafe current.value = queue.emptyBatch(columns: columns)
    }
}
