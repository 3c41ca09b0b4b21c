// SQLite's C API under its usual names, for PropdStore's SQLite wrapper alone.
//
// The library is the SQLite amalgamation that vapor/sqlite-nio vendors and
// compiles (SQLite 3.54; its symbols carry a `sqlite_nio_` prefix). propd
// links it instead of the system libsqlite3 because Debian's is built with
// SQLITE_OMIT_LOOKASIDE: every record SQLite builds while running a
// statement is then a malloc. This one has its lookaside allocator, and its
// memory statistics are off, so no allocation of SQLite's takes a
// process-wide mutex. BENCHMARKS.md ("Why the write path is built this way")
// has the measurement.
//
// A process must not hold one database file open through two copies of SQLite
// (https://sqlite.org/howtocorrupt.html#multiple_copies_of_sqlite_linked_into_the_same_application):
// everything in propd, its tests included, opens its files through this one.
#ifndef PROPD_CSQLITE_H
#define PROPD_CSQLITE_H
#include <sqlite_nio_sqlite3.h>

/// The VFS that writes each transaction's log frames with one write
/// (WALCoalescingVFS.c), once registered by propd_wal_coalescing_vfs_register().
#define PROPD_WAL_COALESCING_VFS "propd-wal-coalescing"
/// Registers PROPD_WAL_COALESCING_VFS (not as the default); SQLITE_OK, also
/// when it already is. Not thread-safe: call it once.
int propd_wal_coalescing_vfs_register(void);

static inline int sqlite3_open_v2(const char *filename, sqlite3 **db, int flags, const char *vfs) {
    return sqlite_nio_sqlite3_open_v2(filename, db, flags, vfs);
}
static inline int sqlite3_close_v2(sqlite3 *db) { return sqlite_nio_sqlite3_close_v2(db); }
static inline int sqlite3_busy_timeout(sqlite3 *db, int ms) { return sqlite_nio_sqlite3_busy_timeout(db, ms); }
static inline int sqlite3_extended_result_codes(sqlite3 *db, int on) {
    return sqlite_nio_sqlite3_extended_result_codes(db, on);
}
static inline int sqlite3_exec(sqlite3 *db, const char *sql, int (*callback)(void *, int, char **, char **),
                               void *context, char **errmsg) {
    return sqlite_nio_sqlite3_exec(db, sql, callback, context, errmsg);
}
static inline int sqlite3_get_autocommit(sqlite3 *db) { return sqlite_nio_sqlite3_get_autocommit(db); }
static inline int sqlite3_changes(sqlite3 *db) { return sqlite_nio_sqlite3_changes(db); }
static inline const char *sqlite3_errmsg(sqlite3 *db) { return sqlite_nio_sqlite3_errmsg(db); }
static inline const char *sqlite3_errstr(int code) { return sqlite_nio_sqlite3_errstr(code); }
static inline void *sqlite3_malloc(int size) { return sqlite_nio_sqlite3_malloc(size); }
static inline void sqlite3_free(void *p) { sqlite_nio_sqlite3_free(p); }
static inline void *sqlite3_wal_hook(sqlite3 *db, int (*hook)(void *, sqlite3 *, const char *, int), void *context) {
    return sqlite_nio_sqlite3_wal_hook(db, hook, context);
}
static inline int sqlite3_wal_checkpoint_v2(sqlite3 *db, const char *name, int mode, int *log, int *checkpointed) {
    return sqlite_nio_sqlite3_wal_checkpoint_v2(db, name, mode, log, checkpointed);
}

static inline int sqlite3_prepare_v3(sqlite3 *db, const char *sql, int bytes, unsigned int flags,
                                     sqlite3_stmt **statement, const char **tail) {
    return sqlite_nio_sqlite3_prepare_v3(db, sql, bytes, flags, statement, tail);
}
static inline int sqlite3_finalize(sqlite3_stmt *s) { return sqlite_nio_sqlite3_finalize(s); }
static inline int sqlite3_reset(sqlite3_stmt *s) { return sqlite_nio_sqlite3_reset(s); }
static inline int sqlite3_step(sqlite3_stmt *s) { return sqlite_nio_sqlite3_step(s); }
static inline int sqlite3_bind_null(sqlite3_stmt *s, int i) { return sqlite_nio_sqlite3_bind_null(s, i); }
static inline int sqlite3_clear_bindings(sqlite3_stmt *s) { return sqlite_nio_sqlite3_clear_bindings(s); }
static inline int sqlite3_bind_int64(sqlite3_stmt *s, int i, sqlite3_int64 v) {
    return sqlite_nio_sqlite3_bind_int64(s, i, v);
}
static inline int sqlite3_bind_text(sqlite3_stmt *s, int i, const char *text, int bytes, void (*destructor)(void *)) {
    return sqlite_nio_sqlite3_bind_text(s, i, text, bytes, destructor);
}
static inline int sqlite3_column_type(sqlite3_stmt *s, int i) { return sqlite_nio_sqlite3_column_type(s, i); }
static inline sqlite3_int64 sqlite3_column_int64(sqlite3_stmt *s, int i) { return sqlite_nio_sqlite3_column_int64(s, i); }
static inline const unsigned char *sqlite3_column_text(sqlite3_stmt *s, int i) {
    return sqlite_nio_sqlite3_column_text(s, i);
}
static inline int sqlite3_column_bytes(sqlite3_stmt *s, int i) { return sqlite_nio_sqlite3_column_bytes(s, i); }

#endif
