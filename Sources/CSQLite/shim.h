#ifndef HEALTHTRAIL_CSQLITE_SHIM_H
#define HEALTHTRAIL_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import: bind calls that pass it make SQLite
// copy the bytes before returning, so the caller's buffer may be reused at once.
static inline int healthtrail_sqlite3_bind_text_copy(sqlite3_stmt *stmt, int index, const char *text, int bytes) {
    return sqlite3_bind_text(stmt, index, text, bytes, SQLITE_TRANSIENT);
}
#endif
