import CSQLite
import Foundation
import HealthTrailArchive
import HealthTrailBase

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An open SQLite database file, through Debian's libsqlite3: the one type that holds the
/// connection handle.
///
/// The file is created owner-only (0600) before SQLite opens it, and written without a rollback
/// journal: it is built in a run's staging folder, where a failed run discards it whole, so
/// the journal's protection would only cost time. `close()` syncs it to disk.
///
/// Invariant: `handle` is an open connection from `sqlite3_open_v2` until `close()` sets it to
/// nil; every statement prepared on it is finalised before it closes.
@safe
package final class SQLiteConnection {
    /// The database file.
    package let path: String
    private var handle: OpaquePointer?

    /// Creates a new database file at `path`, which must not exist. SQLite's temporary files
    /// (the sorts that build indexes) go in the database's own folder, a run's private staging
    /// folder, where they are unlinked as soon as they are opened.
    /// - Parameter pageSize: SQLite's page size in bytes, a power of two from 512 to 65536.
    package init(creating path: String, pageSize: Int = 4096) throws {
        self.path = path
        let fd = unsafe open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw InputError(file: path, unsafe "cannot create the database: \(String(cString: strerror(errno)))") }
        closeDescriptor(fd)
        var db: OpaquePointer?
        let status = unsafe sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        unsafe handle = db
        guard status == SQLITE_OK else {
            let message = unsafe Self.message(db, status)
            unsafe sqlite3_close(db)
            unsafe handle = nil
            throw InputError(file: path, "SQLite cannot open the database: \(message)")
        }
        // No journal and no syncs while the file is built. Temporary files beside the database, not in /var/tmp: no health
        // data may land outside the staging folder, and sorts kept in memory instead would grow
        // the process by the size of the largest index.
        let folder = (path as NSString).deletingLastPathComponent.replacingOccurrences(of: "'", with: "''")
        try execute(
            "PRAGMA page_size = \(pageSize); PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE; "
                + "PRAGMA temp_store = FILE; PRAGMA temp_store_directory = '\(folder.isEmpty ? "." : folder)'")
    }

    /// A connection dropped without `close()` (a run that failed) finalises its statements and
    /// closes here, so neither the file nor SQLite's cache outlives it.
    deinit {
        for statement in statements { statement.finalize() }
        // SAFETY: `handle` is open (the type's invariant) and its statements are finalised.
        if let handle = unsafe handle { unsafe sqlite3_close_v2(handle) }
    }

    /// Runs one or more SQL statements that return no rows.
    package func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        // SAFETY: `handle` is open (the type's invariant); SQLite allocates `error` with
        // sqlite3_malloc, copied to a String and freed here.
        let status = unsafe sqlite3_exec(try openHandle(), sql, nil, nil, &error)
        guard status == SQLITE_OK else {
            let message = unsafe error.map { unsafe String(cString: $0) } ?? Self.message(handle, status)
            unsafe sqlite3_free(error)
            throw InputError(file: path, "SQLite: \(message)")
        }
    }

    /// Prepares a statement that stays valid until `close()`.
    package func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = unsafe sqlite3_prepare_v3(try openHandle(), sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement = unsafe statement else {
            throw InputError(file: path, unsafe "SQLite: \(Self.message(handle, status))")
        }
        let prepared = unsafe SQLiteStatement(statement, connection: self)
        statements.append(prepared)
        return prepared
    }

    private var statements: [SQLiteStatement] = []

    /// Finalises every statement, closes the connection and syncs the file to disk.
    package func close() throws {
        guard let handle = unsafe handle else { return }
        for statement in statements { statement.finalize() }
        statements = []
        let status = unsafe sqlite3_close(handle)
        unsafe self.handle = nil
        guard status == SQLITE_OK else { throw InputError(file: path, unsafe "SQLite cannot close the database: \(Self.message(handle, status))") }
        let fd = unsafe open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0, fsync(fd) == 0 else {
            if fd >= 0 { closeDescriptor(fd) }
            throw InputError(file: path, unsafe "cannot sync the database: \(String(cString: strerror(errno)))")
        }
        closeDescriptor(fd)
    }

    func openHandle() throws -> OpaquePointer {
        guard let handle = unsafe handle else { throw InputError(file: path, "SQLite database already closed") }
        return unsafe handle
    }

    /// SQLite's message for `status` on `db` (its extended message when `db` has one).
    static func message(_ db: OpaquePointer?, _ status: Int32) -> String {
        if let db = unsafe db, let text = unsafe sqlite3_errmsg(db) { return unsafe String(cString: text) }
        return unsafe String(cString: sqlite3_errstr(status))
    }
}

/// `close(2)`, which `SQLiteConnection.close()` would otherwise shadow.
private func closeDescriptor(_ fd: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(fd)
    #else
    _ = Darwin.close(fd)
    #endif
}
