// The floor of a durable Set server on this machine: the least work a
// Varlink-style daemon can do per Set and still acknowledge it only once it
// is committed. One thread, epoll, NUL-framed calls on a Unix socket; the
// Sets read in one epoll round share one SQLite WAL transaction (an upsert
// and a history row each, like `sqlite_floor.c`), then every reply is
// written. No JSON parser (the key is cut out of the frame with strstr), no
// bindings, no patterns, no history per key, no limits: what is left is the
// syscalls and the commit that any such server pays. propd-bench drives it like propd:
//
//   gcc -O2 durable_set_server.c -lsqlite3 -o floor-server
//   ./floor-server /tmp/f/s.sock /tmp/f/db NORMAL
//   propd-bench concurrent --socket /tmp/f/s.sock --connections 16 64
//
// Built with -DPROPD_SQL it runs, per Set, the two statements propd's
// writer runs (the history row linked to the key's previous one, then the
// upsert; their text as in WriterStatements.swift) on a database that propd
// created, so its schema is propd's own; history is never trimmed, so this
// is a lower bound of propd's SQL per Set. The database must exist:
//
//   gcc -O2 -DPROPD_SQL durable_set_server.c -lsqlite3 -o floor-propd-sql
//   propd --database /tmp/f/db --socket /tmp/f/p.sock &  (stop it once the socket exists)
//   ./floor-propd-sql /tmp/f/s.sock /tmp/f/db NORMAL
//
// -DHISTORY_BY_KEY adds an index on the history by key to the floor's own
// tables: the least its history needs to answer History(key).
//
// -DVENDORED_SQLITE builds any of these on the SQLite propd links instead of
// the system's (compile the amalgamation as floors-side-by-side.sh does).
//
// With a writer that knows each key's head (the revision of its newest
// history row) instead of looking it up, as propd's does:
//   -DPROPD_SQL -DKNOWN_HEAD  propd's schema and statements, `previous` bound
//                             (here the revision before, which costs the same);
//   -DPROPD_SQL -DKNOWN_HEAD -DMULTI_ROW  the same rows, but each epoll
//                             round's written by one multi-row INSERT into
//                             history and one multi-row upsert (up to 64
//                             rows a statement) just before its COMMIT;
//   -DROWID_CHAIN             propd's `properties`, and a history in a rowid
//                             table like propd's (the id a revision shifted
//                             left plus n), linked by `previous`, appended by
//                             a plain INSERT with no CHECK and no upsert: the
//                             least SQL a per-key chain needs.
// And what keeping only the last TRIM_KEEP rows of each key costs at least,
// the writer remembering every key's row ids (up to 1024 keys):
//   -DROWID_CHAIN -DTRIM_KEEP=100  the rowid chain, a key's oldest row
//                             deleted by its id once it has TRIM_KEEP newer:
//                             no scan, one B-tree delete per Set;
//   -DROWID_CHAIN -DTRIM_KEEP=100 -DBULK_TRIM=1000  the same history
//                             trimmed in bulk: every BULK_TRIM Sets, one
//                             range delete of every row older than the
//                             oldest row any key still keeps (the least a
//                             bulk trim costs: with keys all written alike
//                             nothing needs carrying forward);
//   -DRING_HISTORY -DTRIM_KEEP=100  a ring of TRIM_KEEP slots per key,
//                             `(key, slot)` rewritten in place, with the
//                             index by revision that `since` would need.
//
// GetInfo and Get get a fixed reply (the sequential scenario's comparison
// figures); Subscribe makes the connection receive an event for every Set
// (no patterns), written after the round's replies, one write per
// subscriber, for the Set-to-event and fan-out scenarios.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#ifdef VENDORED_SQLITE
// propd's own SQLite: the amalgamation vapor/sqlite-nio vendors, whose
// symbols carry a `sqlite_nio_` prefix (see Sources/CSQLite in propd).
#include <sqlite_nio_sqlite3.h>
#define sqlite3_bind_int64 sqlite_nio_sqlite3_bind_int64
#define sqlite3_bind_text sqlite_nio_sqlite3_bind_text
#define sqlite3_column_int64 sqlite_nio_sqlite3_column_int64
#define sqlite3_errmsg sqlite_nio_sqlite3_errmsg
#define sqlite3_exec sqlite_nio_sqlite3_exec
#define sqlite3_finalize sqlite_nio_sqlite3_finalize
#define sqlite3_open sqlite_nio_sqlite3_open
#define sqlite3_open_v2 sqlite_nio_sqlite3_open_v2
#define sqlite3_prepare_v2 sqlite_nio_sqlite3_prepare_v2
#define sqlite3_reset sqlite_nio_sqlite3_reset
#define sqlite3_step sqlite_nio_sqlite3_step
#else
#include <sqlite3.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#if defined(RING_HISTORY) && !defined(TRIM_KEEP)
#error "-DRING_HISTORY needs -DTRIM_KEEP=N, the slots per key"
#endif
#if defined(BULK_TRIM) && !(defined(TRIM_KEEP) && defined(ROWID_CHAIN))
#error "-DBULK_TRIM goes with -DROWID_CHAIN -DTRIM_KEEP=N"
#endif
#if defined(TRIM_KEEP) && !defined(ROWID_CHAIN) && !defined(RING_HISTORY)
#error "-DTRIM_KEEP goes with -DROWID_CHAIN or -DRING_HISTORY"
#endif

#define MAX_CONN 4096
#define BUF (1 << 16)

// propd's `properties` table (schema/) and the upsert its writer runs for
// a Set without ttl (WriterStatements.swift, `expires` bound NULL), for the
// layouts built on propd's tables.
#define PROPERTIES_TABLE \
  "CREATE TABLE properties (key TEXT NOT NULL PRIMARY KEY, value TEXT, revision INTEGER NOT NULL, " \
  "created INTEGER NOT NULL, error TEXT, expires INTEGER) WITHOUT ROWID;" \
  "CREATE INDEX properties_expiring ON properties (key) WHERE expires IS NOT NULL;"
#define PROPERTIES_UPSERT \
  "INSERT INTO properties (key, value, revision, created, error, expires) VALUES (?1, ?2, ?3, ?3, NULL, NULL) " \
  "ON CONFLICT (key) DO UPDATE SET value = excluded.value, revision = excluded.revision, error = NULL, " \
  "expires = excluded.expires"

typedef struct {
  int fd;
  char in[BUF];
  size_t used;
  char out[BUF];
  size_t out_used;
  int subscriber;
} conn;

static conn *conns[MAX_CONN];
static sqlite3 *db;
static sqlite3_stmt *up, *hi;
static long long revision;
static int touched[MAX_CONN], touched_count;
static int in_transaction;
static char event_frames[BUF];
static size_t events_used;

#ifdef TRIM_KEEP
// A key's newest history rows: their ids (ROWID_CHAIN), or how many it has
// had (RING_HISTORY: the next slot). Keys past the table's size are not
// trimmed (ROWID_CHAIN) or all share slot 0 (RING_HISTORY); the benchmarks
// write far fewer.
typedef struct {
  char key[64];
  long long ids[TRIM_KEEP];
  long long written;
} key_rows;
static key_rows *key_table[1024];
#ifdef ROWID_CHAIN
static sqlite3_stmt *trim;
#endif

static key_rows *rows_of(const char *k) {
  unsigned hash = 5381;
  for (const char *p = k; *p; p++) hash = hash * 33 + (unsigned char)*p;
  for (unsigned i = 0; i < 1024; i++) {
    key_rows **slot = &key_table[(hash + i) & 1023];
    if (!*slot) {
      *slot = calloc(1, sizeof(key_rows));
      strncpy((*slot)->key, k, sizeof (*slot)->key - 1);
      return *slot;
    }
    if (strcmp((*slot)->key, k) == 0) return *slot;
  }
  return NULL;
}
#endif

static void queue_reply(conn *c, const char *text) {
  size_t n = strlen(text) + 1;
  if (c->out_used + n <= BUF) {
    memcpy(c->out + c->out_used, text, n);
    c->out_used += n;
  }
}

static void touch(conn *c) {
  for (int i = 0; i < touched_count; i++)
    if (touched[i] == c->fd) return;
  touched[touched_count++] = c->fd;
}

// The key's current value, at the current revision: the same statement
// shape for every layout.
#ifdef MULTI_ROW
#if !(defined(PROPD_SQL) && defined(KNOWN_HEAD))
#error MULTI_ROW needs PROPD_SQL and KNOWN_HEAD
#endif
// The round's rows, copied out of the connections' buffers (which move),
// written at COMMIT by statements of 1 to MULTI_ROWS rows, prepared once
// per size.
#define MULTI_ROWS 64
#define MULTI_MAX 8192
static struct { long long revision; int key, value, length; } pending[MULTI_MAX];
static int pending_count;
static char pool[1 << 22];
static size_t pool_used;
static sqlite3_stmt *history_rows[MULTI_ROWS + 1], *upsert_rows[MULTI_ROWS + 1];

static void pend_row(const char *k, const char *v, int length) {
  size_t key_length = strlen(k) + 1;
  if (pending_count == MULTI_MAX || pool_used + key_length + (size_t)length > sizeof pool) abort();
  pending[pending_count].revision = revision;
  pending[pending_count].key = (int)pool_used;
  memcpy(pool + pool_used, k, key_length);
  pool_used += key_length;
  pending[pending_count].value = (int)pool_used;
  pending[pending_count].length = length;
  memcpy(pool + pool_used, v, (size_t)length);
  pool_used += (size_t)length;
  pending_count++;
}

static sqlite3_stmt *prepared_rows(sqlite3_stmt **cache, int n, const char *head, const char *row, const char *tail) {
  if (cache[n]) return cache[n];
  char sql[64 * 1024];
  size_t used = (size_t)snprintf(sql, sizeof sql, "%s", head);
  for (int i = 0; i < n; i++) used += (size_t)snprintf(sql + used, sizeof sql - used, "%s%s", i ? "," : "", row);
  snprintf(sql + used, sizeof sql - used, "%s", tail);
  if (sqlite3_prepare_v2(db, sql, -1, &cache[n], 0) != SQLITE_OK) {
    fprintf(stderr, "%s\n", sqlite3_errmsg(db));
    exit(1);
  }
  return cache[n];
}

// The history rows first (each `previous` is the key's head before the
// round, as the per-Set statements see it), then the upserts.
static void write_pending(void) {
  for (int first = 0; first < pending_count; first += MULTI_ROWS) {
    int n = pending_count - first < MULTI_ROWS ? pending_count - first : MULTI_ROWS;
    sqlite3_stmt *h = prepared_rows(history_rows, n,
        "INSERT INTO history (id, key, kind, value, error, previous) VALUES ",
        "(?, ?, 'set', ?, NULL, coalesce(?, (SELECT revision FROM properties WHERE key = ? AND "
        "(value IS NOT NULL OR error IS NOT NULL)), (SELECT revision FROM deleted_heads WHERE key = ?)))",
        " ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, value = excluded.value, error = excluded.error");
    sqlite3_stmt *u = prepared_rows(upsert_rows, n,
        "INSERT INTO properties (key, value, revision, created, error, expires) VALUES ",
        "(?, ?, ?, ?, NULL, NULL)",
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value, revision = excluded.revision, error = NULL, "
        "expires = excluded.expires");
    for (int i = 0; i < n; i++) {
      const char *k = pool + pending[first + i].key, *v = pool + pending[first + i].value;
      int length = pending[first + i].length;
      long long rev = pending[first + i].revision;
      sqlite3_bind_int64(h, 6 * i + 1, rev << 18);
      sqlite3_bind_text(h, 6 * i + 2, k, -1, SQLITE_STATIC);
      sqlite3_bind_text(h, 6 * i + 3, v, length, SQLITE_STATIC);
      sqlite3_bind_int64(h, 6 * i + 4, rev - 1);
      sqlite3_bind_text(h, 6 * i + 5, k, -1, SQLITE_STATIC);
      sqlite3_bind_text(h, 6 * i + 6, k, -1, SQLITE_STATIC);
      sqlite3_bind_text(u, 4 * i + 1, k, -1, SQLITE_STATIC);
      sqlite3_bind_text(u, 4 * i + 2, v, length, SQLITE_STATIC);
      sqlite3_bind_int64(u, 4 * i + 3, rev);
      sqlite3_bind_int64(u, 4 * i + 4, rev);
    }
    if (sqlite3_step(h) != SQLITE_DONE || sqlite3_step(u) != SQLITE_DONE) {
      fprintf(stderr, "%s\n", sqlite3_errmsg(db));
      exit(1);
    }
    sqlite3_reset(h);
    sqlite3_reset(u);
  }
  pending_count = 0;
  pool_used = 0;
}
#else
static void upsert(const char *k, const char *v, int length) {
  sqlite3_bind_text(up, 1, k, -1, SQLITE_STATIC);
  sqlite3_bind_text(up, 2, v, length, SQLITE_STATIC);
  sqlite3_bind_int64(up, 3, revision);
  sqlite3_step(up);
  sqlite3_reset(up);
}
#endif

static void handle_frame(conn *c, char *frame) {
  if (strstr(frame, "\"io.propd.Set\"")) {
    char *k = strstr(frame, "\"values\":{\"");
    if (!k) return;
    k += 11;
    char *end = strchr(k, '"');
    if (!end) return;
    *end = 0;
    char *v = end + 2;
    char *vend = strchr(v, '}');
    if (!vend) return;
    if (!in_transaction) {
      sqlite3_exec(db, "BEGIN", 0, 0, 0);
      in_transaction = 1;
    }
    revision++;
#ifdef MULTI_ROW
    pend_row(k, v, (int)(vend - v));
#elif defined(PROPD_SQL)
    // History first: its `previous` is the key's head before the upsert.
    // The revision's one row: its id is the revision's first.
    sqlite3_bind_int64(hi, 1, revision << 18);
    sqlite3_bind_text(hi, 2, k, -1, SQLITE_STATIC);
    sqlite3_bind_text(hi, 3, "set", 3, SQLITE_STATIC);
    sqlite3_bind_text(hi, 4, v, (int)(vend - v), SQLITE_STATIC);
#ifdef KNOWN_HEAD
    sqlite3_bind_int64(hi, 5, revision - 1);
#endif
    sqlite3_step(hi);
    sqlite3_reset(hi);
    upsert(k, v, (int)(vend - v));
#elif defined(ROWID_CHAIN)
    sqlite3_bind_int64(hi, 1, revision << 16);
    sqlite3_bind_text(hi, 2, k, -1, SQLITE_STATIC);
    sqlite3_bind_text(hi, 3, v, (int)(vend - v), SQLITE_STATIC);
    sqlite3_bind_int64(hi, 4, (revision - 1) << 16);
    sqlite3_step(hi);
    sqlite3_reset(hi);
#ifdef TRIM_KEEP
    key_rows *rows = rows_of(k);
    if (rows) {
      long long *oldest = &rows->ids[rows->written % TRIM_KEEP];
#ifndef BULK_TRIM
      if (rows->written >= TRIM_KEEP) {
        sqlite3_bind_int64(trim, 1, *oldest);
        sqlite3_step(trim);
        sqlite3_reset(trim);
      }
#endif
      *oldest = revision << 16;
      rows->written++;
    }
#ifdef BULK_TRIM
    if (revision % BULK_TRIM == 0) {
      // The oldest row any key keeps: its oldest kept id, or its first row.
      long long floor_id = revision << 16;
      for (int i = 0; i < 1024; i++) {
        key_rows *r = key_table[i];
        if (!r) continue;
        long long kept = r->ids[r->written >= TRIM_KEEP ? r->written % TRIM_KEEP : 0];
        if (kept < floor_id) floor_id = kept;
      }
      sqlite3_bind_int64(trim, 1, floor_id);
      sqlite3_step(trim);
      sqlite3_reset(trim);
    }
#endif
#endif
    upsert(k, v, (int)(vend - v));
#elif defined(RING_HISTORY)
    key_rows *rows = rows_of(k);
    sqlite3_bind_text(hi, 1, k, -1, SQLITE_STATIC);
    sqlite3_bind_int64(hi, 2, rows ? rows->written++ % TRIM_KEEP : 0);
    sqlite3_bind_int64(hi, 3, revision);
    sqlite3_bind_text(hi, 4, v, (int)(vend - v), SQLITE_STATIC);
    sqlite3_step(hi);
    sqlite3_reset(hi);
    upsert(k, v, (int)(vend - v));
#else
    upsert(k, v, (int)(vend - v));
    // The revision's one row: its id is the revision's first.
    sqlite3_bind_int64(hi, 1, revision << 16);
    sqlite3_bind_text(hi, 2, k, -1, SQLITE_STATIC);
    sqlite3_bind_text(hi, 3, v, (int)(vend - v), SQLITE_STATIC);
    sqlite3_step(hi);
    sqlite3_reset(hi);
#endif
    char reply[64];
    snprintf(reply, sizeof reply, "{\"parameters\":{\"revision\":%lld}}", revision);
    queue_reply(c, reply);
    touch(c);
    int n = snprintf(event_frames + events_used, BUF - events_used,
                     "{\"parameters\":{\"event\":{\"kind\":\"set\",\"key\":\"%s\",\"value\":%.*s,\"revision\":%lld}},\"continues\":true}",
                     k, (int)(vend - v), v, revision);
    if (n > 0 && events_used + (size_t)n + 1 < BUF) events_used += (size_t)n + 1;
  } else if (strstr(frame, "\"io.propd.Subscribe\"")) {
    char synced[128];
    snprintf(synced, sizeof synced, "{\"parameters\":{\"event\":{\"kind\":\"synced\",\"revision\":%lld}},\"continues\":true}", revision);
    queue_reply(c, synced);
    c->subscriber = 1;
    touch(c);
  } else if (strstr(frame, "\"org.varlink.service.GetInfo\"")) {
    queue_reply(c, "{\"parameters\":{\"vendor\":\"floor\",\"product\":\"floor\",\"version\":\"0\",\"url\":\"\",\"interfaces\":[]}}");
    touch(c);
  } else {
    queue_reply(c, "{\"parameters\":{\"properties\":[]}}");
    touch(c);
  }
}

static void readable(conn *c) {
  ssize_t n = read(c->fd, c->in + c->used, BUF - c->used);
  if (n <= 0) {
    if (n < 0 && errno == EAGAIN) return;
    close(c->fd);
    conns[c->fd] = NULL;
    free(c);
    return;
  }
  c->used += (size_t)n;
  size_t start = 0;
  for (size_t i = 0; i < c->used; i++) {
    if (c->in[i] == 0) {
      handle_frame(c, c->in + start);
      start = i + 1;
    }
  }
  memmove(c->in, c->in + start, c->used - start);
  c->used -= start;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s SOCKET DATABASE NORMAL|FULL\n", argv[0]);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  unlink(argv[1]);
#ifdef PROPD_SQL
  if (sqlite3_open_v2(argv[2], &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
    fprintf(stderr, "%s: not a database propd made\n", argv[2]);
    return 1;
  }
#else
  remove(argv[2]);
  sqlite3_open(argv[2], &db);
#endif
  char sql[128];
  sqlite3_exec(db, "PRAGMA journal_mode=WAL", 0, 0, 0);
  snprintf(sql, sizeof sql, "PRAGMA synchronous=%s", argv[3]);
  sqlite3_exec(db, sql, 0, 0, 0);
#ifdef PROPD_SQL
  sqlite3_stmt *last;
  sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE name = 'revision'", -1, &last, 0);
  if (sqlite3_step(last) == SQLITE_ROW) revision = sqlite3_column_int64(last, 0);
  sqlite3_finalize(last);
  if (sqlite3_prepare_v2(db, PROPERTIES_UPSERT, -1, &up, 0) != SQLITE_OK ||
      sqlite3_prepare_v2(db,
          "INSERT INTO history (id, key, kind, value, error, previous) VALUES (?1, ?2, ?3, ?4, NULL, coalesce(?5, "
          "(SELECT revision FROM properties WHERE key = ?2 AND (value IS NOT NULL OR error IS NOT NULL)), "
          "(SELECT revision FROM deleted_heads WHERE key = ?2))) "
          "ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, value = excluded.value, error = excluded.error",
          -1, &hi, 0) != SQLITE_OK) {
    fprintf(stderr, "%s\n", sqlite3_errmsg(db));
    return 1;
  }
#elif defined(ROWID_CHAIN)
  sqlite3_exec(db,
      PROPERTIES_TABLE
      "CREATE TABLE history (id INTEGER PRIMARY KEY, key TEXT NOT NULL, kind TEXT NOT NULL, value TEXT, "
      "error TEXT, previous INTEGER);", 0, 0, 0);
  sqlite3_prepare_v2(db, PROPERTIES_UPSERT, -1, &up, 0);
  sqlite3_prepare_v2(db, "INSERT INTO history (id, key, kind, value, error, previous) VALUES (?1, ?2, 'set', ?3, NULL, ?4)",
                     -1, &hi, 0);
#ifdef TRIM_KEEP
#ifdef BULK_TRIM
  sqlite3_prepare_v2(db, "DELETE FROM history WHERE id < ?1", -1, &trim, 0);
#else
  sqlite3_prepare_v2(db, "DELETE FROM history WHERE id = ?1", -1, &trim, 0);
#endif
#endif
#elif defined(RING_HISTORY)
  sqlite3_exec(db,
      PROPERTIES_TABLE
      "CREATE TABLE history (key TEXT NOT NULL, slot INTEGER NOT NULL, revision INTEGER NOT NULL, "
      "kind TEXT NOT NULL, value TEXT, error TEXT, PRIMARY KEY (key, slot)) WITHOUT ROWID;"
      "CREATE INDEX history_by_revision ON history (revision);", 0, 0, 0);
  sqlite3_prepare_v2(db, PROPERTIES_UPSERT, -1, &up, 0);
  sqlite3_prepare_v2(db,
      "INSERT INTO history (key, slot, revision, kind, value, error) VALUES (?1, ?2, ?3, 'set', ?4, NULL) "
      "ON CONFLICT (key, slot) DO UPDATE SET revision = excluded.revision, kind = excluded.kind, "
      "value = excluded.value, error = excluded.error", -1, &hi, 0);
#else
  sqlite3_exec(db, "CREATE TABLE p(key TEXT PRIMARY KEY, value BLOB, rev INTEGER);"
                   "CREATE TABLE h(rev INTEGER PRIMARY KEY, key TEXT, value BLOB);", 0, 0, 0);
#ifdef HISTORY_BY_KEY
  // The least a rowid history needs to answer History(key) from the file.
  sqlite3_exec(db, "CREATE INDEX h_by_key ON h(key, rev);", 0, 0, 0);
#endif
  sqlite3_prepare_v2(db, "INSERT INTO p(key,value,rev) VALUES(?1,?2,?3) ON CONFLICT(key) DO UPDATE SET value=excluded.value, rev=excluded.rev", -1, &up, 0);
  sqlite3_prepare_v2(db, "INSERT INTO h(rev,key,value) VALUES(?1,?2,?3)", -1, &hi, 0);
#endif

  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  strncpy(address.sun_path, argv[1], sizeof address.sun_path - 1);
  if (bind(listener, (struct sockaddr *)&address, sizeof address) || listen(listener, 512)) {
    perror("listen");
    return 1;
  }
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = listener};
  epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
  struct epoll_event events[256];
  for (;;) {
    int n = epoll_wait(ep, events, 256, -1);
    for (int i = 0; i < n; i++) {
      int fd = events[i].data.fd;
      if (fd == listener) {
        int client;
        while ((client = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
          if (client >= MAX_CONN) { close(client); continue; }
          conns[client] = calloc(1, sizeof(conn));
          conns[client]->fd = client;
          struct epoll_event cev = {.events = EPOLLIN, .data.fd = client};
          epoll_ctl(ep, EPOLL_CTL_ADD, client, &cev);
        }
      } else if (conns[fd]) {
        readable(conns[fd]);
      }
    }
    if (in_transaction) {
#ifdef MULTI_ROW
      write_pending();
#endif
      sqlite3_exec(db, "COMMIT", 0, 0, 0);
      in_transaction = 0;
    }
    // Replies first, then every subscriber gets the round's events.
    for (int i = 0; i < touched_count; i++) {
      conn *c = conns[touched[i]];
      if (c && c->out_used) {
        ssize_t w = write(c->fd, c->out, c->out_used);
        (void)w;
        c->out_used = 0;
      }
    }
    touched_count = 0;
    if (events_used) {
      for (int fd = 0; fd < MAX_CONN; fd++) {
        conn *c = conns[fd];
        if (c && c->subscriber) {
          ssize_t w = write(c->fd, event_frames, events_used);
          (void)w;
        }
      }
      events_used = 0;
    }
  }
}
