// The system SQLite (libsqlite3-dev), for PropdStore's SQLite wrapper alone.
#include <sqlite3.h>
