// A VFS over SQLite's "unix" one that writes each transaction's log frames
// with one write instead of two per frame.
//
// SQLite appends a frame to the write-ahead log as two writes, its 24-byte
// header and then its page, each a pwrite(2): a transaction of six pages is
// twelve system calls. Here the log's writes that follow one another are
// gathered in a buffer and written together when the transaction's commit
// frame (the one whose header gives the database size) has been appended:
// one pwrite(2) per transaction. Before anything else touches the log (a
// read, a sync, a size, a truncate, a lock, a close, a write elsewhere) the
// buffer is written first, so the file is always as SQLite believes it to
// be whenever SQLite or another connection can look. A frame never waits in
// the buffer past its transaction's commit: when SQLite returns from the
// commit the whole transaction is in the file (and, with synchronous=FULL,
// synced), exactly as without this VFS, and a failed write fails the commit.
//
// The flush at the commit frame relies on SQLite writing a frame as a
// 24-byte header and then its page. Should a later SQLite write otherwise,
// the database file's shared-memory calls flush its log too: SQLite takes
// or releases a shared-memory lock, or makes a barrier, before a commit is
// visible to any other connection.
//
// Only files SQLite opens as write-ahead logs are buffered; everything else
// is the unix VFS's own behaviour, passed through.
#include <sqlite_nio_sqlite3.h>
#include <string.h>
#include "CSQLite.h"

typedef struct CoalescingFile CoalescingFile;
struct CoalescingFile {
    sqlite3_file base;
    sqlite3_file *real;          // the unix VFS's file, allocated right after this struct
    int isLog;                   // opened as a write-ahead log
    unsigned char *buffer;       // the log's writes not yet made, contiguous
    sqlite3_int64 bufferOffset;  // where buffer[0] goes in the file
    int used;                    // bytes in buffer
    int capacity;
    int commitFramePending;      // the last write was a commit frame's header
    CoalescingFile *log;         // of a database file: its open log, if any
    CoalescingFile *database;    // of a log: its database file
};

// Large enough for a transaction of ~60 pages of 4 KiB, written in pieces
// of 64 KiB; a larger transaction's frames are written as the buffer fills.
enum { BUFFER_CAPACITY = 256 * 1024, WRITE_PIECE = 64 * 1024, FRAME_HEADER = 24 };

static sqlite3_vfs *root;
static sqlite3_vfs coalescingVFS;
static sqlite3_io_methods coalescingMethods;

static int flush(CoalescingFile *file) {
    int used = file->used;
    file->used = 0;
    // In pieces: the unix VFS writes at most 128 KiB - 1 bytes a call (it
    // masks the size with 0x1ffff).
    for (int done = 0; done < used;) {
        int piece = used - done < WRITE_PIECE ? used - done : WRITE_PIECE;
        int rc = file->real->pMethods->xWrite(file->real, file->buffer + done, piece, file->bufferOffset + done);
        if (rc != SQLITE_OK) return rc;
        done += piece;
    }
    return SQLITE_OK;
}

// Writes a log's buffer before anything that could look at the file.
#define FLUSHING_FIRST(file) \
    do { \
        if ((file)->isLog) { \
            int flushed = flush(file); \
            if (flushed != SQLITE_OK) return flushed; \
        } \
    } while (0)

static int xClose(sqlite3_file *f) {
    CoalescingFile *file = (CoalescingFile *)f;
    int flushed = file->isLog ? flush(file) : SQLITE_OK;
    if (file->database != NULL) file->database->log = NULL;
    if (file->log != NULL) file->log->database = NULL;
    int closed = file->real->pMethods ? file->real->pMethods->xClose(file->real) : SQLITE_OK;
    sqlite_nio_sqlite3_free(file->buffer);
    file->buffer = NULL;
    return flushed != SQLITE_OK ? flushed : closed;
}

static int xRead(sqlite3_file *f, void *out, int amount, sqlite3_int64 offset) {
    CoalescingFile *file = (CoalescingFile *)f;
    FLUSHING_FIRST(file);
    return file->real->pMethods->xRead(file->real, out, amount, offset);
}

static int xWrite(sqlite3_file *f, const void *data, int amount, sqlite3_int64 offset) {
    CoalescingFile *file = (CoalescingFile *)f;
    if (!file->isLog) return file->real->pMethods->xWrite(file->real, data, amount, offset);
    int rc;
    if (file->used > 0 && (offset != file->bufferOffset + file->used || file->used + amount > file->capacity)) {
        rc = flush(file);
        if (rc != SQLITE_OK) return rc;
    }
    if (amount > file->capacity) return file->real->pMethods->xWrite(file->real, data, amount, offset);
    if (file->used == 0) file->bufferOffset = offset;
    memcpy(file->buffer + file->used, data, (size_t)amount);
    file->used += amount;
    if (file->commitFramePending && amount != FRAME_HEADER) {
        // The commit frame's page: the transaction is complete.
        file->commitFramePending = 0;
        return flush(file);
    }
    if (amount == FRAME_HEADER) {
        // A frame's header: bytes 4..7 give the database's size after a commit, 0 otherwise.
        const unsigned char *header = data;
        file->commitFramePending = (header[4] | header[5] | header[6] | header[7]) != 0;
    }
    return SQLITE_OK;
}

static int xTruncate(sqlite3_file *f, sqlite3_int64 size) {
    CoalescingFile *file = (CoalescingFile *)f;
    FLUSHING_FIRST(file);
    return file->real->pMethods->xTruncate(file->real, size);
}

static int xSync(sqlite3_file *f, int flags) {
    CoalescingFile *file = (CoalescingFile *)f;
    FLUSHING_FIRST(file);
    return file->real->pMethods->xSync(file->real, flags);
}

static int xFileSize(sqlite3_file *f, sqlite3_int64 *size) {
    CoalescingFile *file = (CoalescingFile *)f;
    FLUSHING_FIRST(file);
    return file->real->pMethods->xFileSize(file->real, size);
}

static int xLock(sqlite3_file *f, int level) {
    CoalescingFile *file = (CoalescingFile *)f;
    FLUSHING_FIRST(file);
    return file->real->pMethods->xLock(file->real, level);
}

static int xUnlock(sqlite3_file *f, int level) {
    CoalescingFile *file = (CoalescingFile *)f;
    FLUSHING_FIRST(file);
    return file->real->pMethods->xUnlock(file->real, level);
}

static int xCheckReservedLock(sqlite3_file *f, int *out) {
    CoalescingFile *file = (CoalescingFile *)f;
    return file->real->pMethods->xCheckReservedLock(file->real, out);
}

static int xFileControl(sqlite3_file *f, int op, void *arg) {
    CoalescingFile *file = (CoalescingFile *)f;
    FLUSHING_FIRST(file);
    return file->real->pMethods->xFileControl(file->real, op, arg);
}

static int xSectorSize(sqlite3_file *f) {
    CoalescingFile *file = (CoalescingFile *)f;
    return file->real->pMethods->xSectorSize(file->real);
}

static int xDeviceCharacteristics(sqlite3_file *f) {
    CoalescingFile *file = (CoalescingFile *)f;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

// The unix VFS gives every file shared-memory and fetch methods (iVersion 3);
// a file whose methods are older has none to pass to.
static int hasVersion(CoalescingFile *file, int version) { return file->real->pMethods->iVersion >= version; }

static int xShmMap(sqlite3_file *f, int region, int size, int extend, void volatile **out) {
    CoalescingFile *file = (CoalescingFile *)f;
    if (!hasVersion(file, 2)) return SQLITE_IOERR_SHMMAP;
    return file->real->pMethods->xShmMap(file->real, region, size, extend, out);
}

static int xShmLock(sqlite3_file *f, int offset, int n, int flags) {
    CoalescingFile *file = (CoalescingFile *)f;
    if (file->log != NULL) {
        int flushed = flush(file->log);
        if (flushed != SQLITE_OK) return flushed;
    }
    if (!hasVersion(file, 2)) return SQLITE_IOERR_SHMLOCK;
    return file->real->pMethods->xShmLock(file->real, offset, n, flags);
}

static void xShmBarrier(sqlite3_file *f) {
    CoalescingFile *file = (CoalescingFile *)f;
    // Nothing to report an error to here; the commit frame's flush reports it.
    if (file->log != NULL) (void)flush(file->log);
    if (hasVersion(file, 2)) file->real->pMethods->xShmBarrier(file->real);
}

static int xShmUnmap(sqlite3_file *f, int deleteFlag) {
    CoalescingFile *file = (CoalescingFile *)f;
    if (!hasVersion(file, 2)) return SQLITE_OK;
    return file->real->pMethods->xShmUnmap(file->real, deleteFlag);
}

static int xFetch(sqlite3_file *f, sqlite3_int64 offset, int amount, void **out) {
    CoalescingFile *file = (CoalescingFile *)f;
    FLUSHING_FIRST(file);
    if (!hasVersion(file, 3)) {
        *out = NULL;
        return SQLITE_OK;
    }
    return file->real->pMethods->xFetch(file->real, offset, amount, out);
}

static int xUnfetch(sqlite3_file *f, sqlite3_int64 offset, void *page) {
    CoalescingFile *file = (CoalescingFile *)f;
    if (!hasVersion(file, 3)) return SQLITE_OK;
    return file->real->pMethods->xUnfetch(file->real, offset, page);
}

static int xOpen(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *f, int flags, int *outFlags) {
    (void)vfs;
    CoalescingFile *file = (CoalescingFile *)f;
    memset(file, 0, sizeof *file);
    file->real = (sqlite3_file *)&file[1];
    int rc = root->xOpen(root, name, file->real, flags, outFlags);
    if (rc != SQLITE_OK || file->real->pMethods == NULL) {
        // SQLite closes a file only when pMethods is set; the real one cleaned up after itself.
        file->base.pMethods = NULL;
        return rc;
    }
    if (flags & SQLITE_OPEN_WAL) {
        file->buffer = sqlite_nio_sqlite3_malloc(BUFFER_CAPACITY);
        if (file->buffer == NULL) {
            file->real->pMethods->xClose(file->real);
            file->base.pMethods = NULL;
            return SQLITE_NOMEM;
        }
        file->capacity = BUFFER_CAPACITY;
        file->isLog = 1;
        // The connection opened its database file through this VFS too.
        CoalescingFile *database = (CoalescingFile *)sqlite_nio_sqlite3_database_file_object(name);
        if (database != NULL && database->base.pMethods == &coalescingMethods) {
            database->log = file;
            file->database = database;
        }
    }
    file->base.pMethods = &coalescingMethods;
    return SQLITE_OK;
}

// Everything else about files and the system is the unix VFS's.
static int xDelete(sqlite3_vfs *v, const char *name, int syncDir) { (void)v; return root->xDelete(root, name, syncDir); }
static int xAccess(sqlite3_vfs *v, const char *name, int flags, int *out) {
    (void)v;
    return root->xAccess(root, name, flags, out);
}
static int xFullPathname(sqlite3_vfs *v, const char *name, int size, char *out) {
    (void)v;
    return root->xFullPathname(root, name, size, out);
}
static void *xDlOpen(sqlite3_vfs *v, const char *name) { (void)v; return root->xDlOpen(root, name); }
static void xDlError(sqlite3_vfs *v, int size, char *out) { (void)v; root->xDlError(root, size, out); }
static void (*xDlSym(sqlite3_vfs *v, void *handle, const char *symbol))(void) {
    (void)v;
    return root->xDlSym(root, handle, symbol);
}
static void xDlClose(sqlite3_vfs *v, void *handle) { (void)v; root->xDlClose(root, handle); }
static int xRandomness(sqlite3_vfs *v, int size, char *out) { (void)v; return root->xRandomness(root, size, out); }
static int xSleep(sqlite3_vfs *v, int micro) { (void)v; return root->xSleep(root, micro); }
static int xCurrentTime(sqlite3_vfs *v, double *out) { (void)v; return root->xCurrentTime(root, out); }
static int xGetLastError(sqlite3_vfs *v, int size, char *out) { (void)v; return root->xGetLastError(root, size, out); }
static int xCurrentTimeInt64(sqlite3_vfs *v, sqlite3_int64 *out) { (void)v; return root->xCurrentTimeInt64(root, out); }

int propd_wal_coalescing_vfs_register(void) {
    if (sqlite_nio_sqlite3_vfs_find(PROPD_WAL_COALESCING_VFS) != NULL) return SQLITE_OK;
    root = sqlite_nio_sqlite3_vfs_find("unix");
    if (root == NULL || root->iVersion < 2) return SQLITE_ERROR;
    coalescingMethods = (sqlite3_io_methods){
        .iVersion = 3, .xClose = xClose, .xRead = xRead, .xWrite = xWrite, .xTruncate = xTruncate,
        .xSync = xSync, .xFileSize = xFileSize, .xLock = xLock, .xUnlock = xUnlock,
        .xCheckReservedLock = xCheckReservedLock, .xFileControl = xFileControl, .xSectorSize = xSectorSize,
        .xDeviceCharacteristics = xDeviceCharacteristics, .xShmMap = xShmMap, .xShmLock = xShmLock,
        .xShmBarrier = xShmBarrier, .xShmUnmap = xShmUnmap, .xFetch = xFetch, .xUnfetch = xUnfetch,
    };
    coalescingVFS = (sqlite3_vfs){
        .iVersion = 2, .szOsFile = (int)sizeof(CoalescingFile) + root->szOsFile, .mxPathname = root->mxPathname,
        .zName = PROPD_WAL_COALESCING_VFS, .xOpen = xOpen, .xDelete = xDelete, .xAccess = xAccess,
        .xFullPathname = xFullPathname, .xDlOpen = xDlOpen, .xDlError = xDlError, .xDlSym = xDlSym,
        .xDlClose = xDlClose, .xRandomness = xRandomness, .xSleep = xSleep, .xCurrentTime = xCurrentTime,
        .xGetLastError = xGetLastError, .xCurrentTimeInt64 = xCurrentTimeInt64,
    };
    return sqlite_nio_sqlite3_vfs_register(&coalescingVFS, 0);
}
