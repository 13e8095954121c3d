import HealthTrailArchive
import HealthTrailBase

/// Rows of one table, typed and held, to be handed to a writer on another thread: how one
/// reading of a staged CSV file feeds both the Parquet file and the database.
///
/// A batch is a `TableRowSink` while it is filled, and plays its rows into any other sink
/// afterwards, call for call: the writer replaying it sees what it would have seen reading the
/// CSV itself. Text is copied in, so the batch outlives the reader's buffer. A field costs a
/// byte for its kind and eight for its value (sixteen for a date, whose text
/// is kept too), so a batch of numbers is about as large as the numbers.
///
/// `@unchecked Sendable`: a batch is filled by one thread, then handed over (through
/// `TypedRowQueue`, whose lock orders the writes before the reads) and only read from then on,
/// until it is handed back to be emptied and filled again.
@safe package final class TypedRowBatch: TableRowSink, @unchecked Sendable {
    private enum Kind: UInt8 { case null, text, integer, real, boolean, date, timestamp }

    /// What the batch holds.
    private struct Storage {
        /// Each field's kind, in row order.
        var kinds: [Kind] = []
        /// Each field's value: the integer, the double's bit pattern, 1 or 0, the days or the
        /// seconds; for text, where it lies in `bytes` (`place`); a date has its days and
        /// then its text's place.
        var values: [Int64] = []
        var rows = 0
        /// The position in `bytes` of the batch's first text, and the text bytes held.
        var origin: Int?
        var textBytes = 0
    }

    /// In an `UncheckedBox`: every field appends to it, and as a stored property it would cost
    /// a run-time exclusivity check per field. SAFETY: one thread uses a batch at a time (see
    /// the type's note), and no access to the storage starts inside another.
    private let storage: UncheckedBox<Storage>
    /// The texts' bytes.
    private let bytes = ByteQueue(capacity: 1 << 16)
    /// Rows ended so far.
    package var rows: Int { unsafe storage.value.rows }
    /// Rows a batch takes before it is full.
    private let rowLimit: Int
    /// Text bytes a batch takes before it is full (a table of long texts would otherwise make
    /// batches of any size).
    private let byteLimit: Int

    /// An empty batch for rows of `columns` columns, full at `rowLimit` rows or `byteLimit` bytes
    /// of text, whichever comes first.
    package init(columns: Int, rowLimit: Int = 4096, byteLimit: Int = 1 << 20) {
        self.rowLimit = rowLimit
        self.byteLimit = byteLimit
        var storage = Storage()
        storage.kinds.reserveCapacity(columns * rowLimit)
        storage.values.reserveCapacity(columns * rowLimit)
        unsafe self.storage = UncheckedBox(storage)
    }

    /// Whether the batch should be handed over now.
    package var isFull: Bool { unsafe storage.value.rows >= rowLimit || storage.value.textBytes >= byteLimit }

    /// Empties the batch, keeping its storage, to be filled again.
    package func removeAll() {
        unsafe storage.value.kinds.removeAll(keepingCapacity: true)
        unsafe storage.value.values.removeAll(keepingCapacity: true)
        bytes.release(upTo: .max)
        unsafe storage.value.origin = nil
        unsafe storage.value.textBytes = 0
        unsafe storage.value.rows = 0
    }

    /// Copies `text` into `bytes`; returns its place: its offset from the batch's first text in
    /// the high 32 bits, its length in the low 32 (a batch stops taking rows past `byteLimit`,
    /// far below 4 GiB; a longer field would need a longer line than any reader of the CSV
    /// takes).
    private func place(_ text: ByteSpan) -> Int64 {
        let position = bytes.append(text)
        let origin = unsafe storage.value.origin ?? position
        unsafe storage.value.origin = origin
        unsafe storage.value.textBytes += text.count
        return Int64(position - origin) << 32 | Int64(UInt32(truncatingIfNeeded: text.count))
    }

    /// An empty field.
    package func null(_ column: Int) {
        unsafe storage.value.kinds.append(.null)
        unsafe storage.value.values.append(0)
    }
    /// A text value, copied.
    package func text(_ column: Int, _ value: ByteSpan) {
        unsafe storage.value.kinds.append(.text)
        unsafe storage.value.values.append(place(value))
    }
    /// A whole number.
    package func integer(_ column: Int, _ value: Int64) {
        unsafe storage.value.kinds.append(.integer)
        unsafe storage.value.values.append(value)
    }
    /// A decimal number, kept bit for bit.
    package func real(_ column: Int, _ value: Double) {
        unsafe storage.value.kinds.append(.real)
        unsafe storage.value.values.append(Int64(bitPattern: value.bitPattern))
    }
    /// `true` or `false`.
    package func boolean(_ column: Int, _ value: Bool) {
        unsafe storage.value.kinds.append(.boolean)
        unsafe storage.value.values.append(value ? 1 : 0)
    }
    /// A date and its text, copied.
    package func date(_ column: Int, days: Int32, text: ByteSpan) {
        unsafe storage.value.kinds.append(.date)
        unsafe storage.value.values.append(Int64(days))
        unsafe storage.value.values.append(place(text))
    }
    /// An instant.
    package func timestamp(_ column: Int, seconds: Int64) {
        unsafe storage.value.kinds.append(.timestamp)
        unsafe storage.value.values.append(seconds)
    }
    /// Ends the row.
    package func endRow() { unsafe storage.value.rows += 1 }

    /// Gives every row to `sink`, in order, as it was given to this batch.
    package func replay<Sink: TableRowSink>(into sink: Sink) throws {
        let (rows, kinds, values, origin) = unsafe (storage.value.rows, storage.value.kinds, storage.value.values, storage.value.origin ?? 0)
        guard rows > 0 else { return }
        let columns = kinds.count / rows
        let bytes = bytes   // what the spans borrow, alive to the end of the replay
        var field = 0, value = 0
        for _ in 0..<rows {
            for column in 0..<columns {
                let v = values[value]
                value += 1
                // SAFETY (the two spans): a place was made by `place` from a text this batch
                // holds until `removeAll`, and nothing appends to `bytes` while it is replayed;
                // each span is used before the row's `endRow()` returns.
                switch kinds[field] {
                case .null: sink.null(column)
                case .text: sink.text(column, unsafe bytes.span(at: origin + Int(v >> 32), count: Int(v & 0xFFFF_FFFF)))
                case .integer: sink.integer(column, v)
                case .real: sink.real(column, Double(bitPattern: UInt64(bitPattern: v)))
                case .boolean: sink.boolean(column, v != 0)
                case .date:
                    let place = values[value]
                    sink.date(
                        column, days: Int32(truncatingIfNeeded: v),
                        text: unsafe bytes.span(at: origin + Int(place >> 32), count: Int(place & 0xFFFF_FFFF)))
                    value += 1
                case .timestamp: sink.timestamp(column, seconds: v)
                }
                field += 1
            }
            try sink.endRow()
        }
    }
}
