// The system SQLite (libsqlite3-dev).
#include <sqlite3.h>
