import CSQLite
import HealthTrailArchive
import HealthTrailBase

/// A prepared statement with its parameters bound by index: the inserts of a bulk load.
///
/// Invariant: `handle` is a statement prepared on `connection`'s open handle, finalised only by
/// `finalize()` (which the connection calls before it closes). Text is bound with
/// `SQLITE_STATIC` (a nil destructor: SQLite does not copy it), so a text's bytes must stay
/// valid until `step()` has run; `TableRowSink`'s rows bind every column and step before the
/// spans they were given are reused.
@safe
package final class SQLiteStatement {
    private var handle: OpaquePointer?
    private unowned let connection: SQLiteConnection

    init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        unsafe self.handle = handle
        self.connection = connection
    }

    /// The first bind of this row that failed: `step()` throws it instead of inserting a row
    /// that would hold the previous row's value (bindings outlive a reset).
    private var bindFailure: Int32 = SQLITE_OK

    /// Touches `bindFailure` only when a bind failed: a class's stored property is checked for
    /// exclusive access at run time on every access, and binds run once per field.
    @inline(__always) private func check(_ status: Int32) {
        if _slowPath(status != SQLITE_OK) { recordBindFailure(status) }
    }

    @inline(never) private func recordBindFailure(_ status: Int32) {
        if bindFailure == SQLITE_OK { bindFailure = status }
    }

    /// Binds NULL to parameter `index` (1-based, as SQLite counts).
    @inline(__always) package func bindNull(_ index: Int32) {
        // SAFETY: `handle` is a live statement (the type's invariant); so for every bind below.
        unsafe check(sqlite3_bind_null(handle, index))
    }

    /// Binds a whole number.
    @inline(__always) package func bind(_ index: Int32, _ value: Int64) { unsafe check(sqlite3_bind_int64(handle, index, value)) }

    /// Binds a real number.
    @inline(__always) package func bind(_ index: Int32, _ value: Double) { unsafe check(sqlite3_bind_double(handle, index, value)) }

    /// Binds UTF-8 text without copying it; the bytes must stay valid until `step()`.
    /// `@unsafe`: SQLite keeps the address, so the caller keeps the bytes alive.
    @unsafe @inline(__always) package func bind(_ index: Int32, text: ByteSpan) {
        // SAFETY: the span's `count` bytes are valid until the row is stepped (the type's
        // invariant); a nil destructor is SQLITE_STATIC, so SQLite reads them in `step()` only.
        unsafe check(
            text.withUnsafeBytes { bytes in
                unsafe sqlite3_bind_text(handle, index, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
            })
    }

    /// Binds text that SQLite copies (a `String`'s bytes do not outlive the call).
    package func bind(_ index: Int32, copying text: String) {
        unsafe check(healthtrail_sqlite3_bind_text_copy(handle, index, text, -1))
    }

    /// Runs the statement (an insert: no rows come back) and resets it for the next.
    @inline(__always) package func step() throws {
        if bindFailure != SQLITE_OK {
            let status = bindFailure
            bindFailure = SQLITE_OK
            unsafe sqlite3_reset(handle)
            throw InputError(file: connection.path, unsafe "SQLite cannot bind a value: \(SQLiteConnection.message(nil, status))")
        }
        // SAFETY: every parameter was bound for this row, text to bytes still valid (the type's invariant).
        let status = unsafe sqlite3_step(handle)
        unsafe sqlite3_reset(handle)
        guard status == SQLITE_DONE else {
            throw InputError(file: connection.path, unsafe "SQLite: \(SQLiteConnection.message(try? connection.openHandle(), status))")
        }
    }

    func finalize() {
        unsafe sqlite3_finalize(handle)
        unsafe handle = nil
    }
}
