import CSQLite
import HealthTrailArchive

/// A prepared statement with its parameters bound by index: the inserts of a bulk load.
///
/// Invariant: `handle` is a statement prepared on `connection`'s open handle, finalised only by
/// `finalize()` (which the connection calls before it closes). Text is bound with
/// `SQLITE_STATIC` (a nil destructor: SQLite does not copy it), so a text's bytes must stay
/// valid until `step()` has run; `TableRowSink`'s rows bind every column and step before the
/// spans they were given are reused.
public final class SQLiteStatement {
    private var handle: OpaquePointer?
    private unowned let connection: SQLiteConnection

    init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    /// Binds NULL to parameter `index` (1-based, as SQLite counts).
    @inline(__always) public func bindNull(_ index: Int32) { sqlite3_bind_null(handle, index) }

    /// Binds a whole number.
    @inline(__always) public func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }

    /// Binds a real number.
    @inline(__always) public func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(handle, index, value) }

    /// Binds UTF-8 text without copying it; the bytes must stay valid until `step()`.
    @inline(__always) public func bind(_ index: Int32, text: ByteSpan) {
        // SAFETY: the span's `count` bytes are valid until the row is stepped (the type's
        // invariant); a nil destructor is SQLITE_STATIC, so SQLite reads them in `step()` only.
        text.withUnsafeBytes { bytes in
            _ = sqlite3_bind_text(handle, index, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
        }
    }

    /// Binds text that SQLite copies (a `String`'s bytes do not outlive the call).
    public func bind(_ index: Int32, copying text: String) {
        _ = healthtrail_sqlite3_bind_text_copy(handle, index, text, -1)
    }

    /// Runs the statement (an insert: no rows come back) and resets it for the next.
    @inline(__always) public func step() throws {
        let status = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard status == SQLITE_DONE else {
            throw InputError(file: connection.path, "SQLite: \(SQLiteConnection.message(try? connection.openHandle(), status))")
        }
    }

    func finalize() {
        sqlite3_finalize(handle)
        handle = nil
    }
}
