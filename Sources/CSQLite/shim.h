// The system SQLite (libsqlite3-dev), for PropdStore's SQLite wrapper alone.
#include <sqlite3.h>

// sqlite3_config is variadic, which Swift cannot call: one function per option.
// With memory statistics off, every sqlite3_malloc and sqlite3_free skips a
// process-wide mutex and a malloc_usable_size call; they serve only
// sqlite3_memory_used(), sqlite3_status() and heap limits, which propd never
// uses. Returns SQLITE_MISUSE when SQLite was already initialized.
static inline int propd_sqlite3_memory_statistics_off(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
