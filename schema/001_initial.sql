-- propd schema, version 1. Applied once, in order, by PropdStore's migrator;
-- never edit a shipped migration: add 002_*.sql instead.

-- The current value of every key. `value` is JSON text; it is NULL only for a
-- derived key that has never produced a value. `revision` is the revision of
-- the last change, `created` the revision that created the key. `error` is a
-- derived key's current evaluation error (its last value is kept).
CREATE TABLE properties (
    key      TEXT    NOT NULL PRIMARY KEY,
    value    TEXT,
    revision INTEGER NOT NULL,
    created  INTEGER NOT NULL,
    error    TEXT
) WITHOUT ROWID;

-- Every change, appended with its revision: at most one row per key and
-- revision. For `delete` the value is NULL; for `error` it is the value kept.
CREATE TABLE history (
    revision INTEGER NOT NULL,
    key      TEXT    NOT NULL,
    kind     TEXT    NOT NULL CHECK (kind IN ('set', 'delete', 'error')),
    value    TEXT,
    error    TEXT,
    PRIMARY KEY (revision, key)
) WITHOUT ROWID;

-- History(key, limit, before) and per-key compaction.
CREATE INDEX history_by_key ON history (key, revision);

-- Store-wide counters.
--   revision:        the last committed revision (0 before any write)
--   history_horizon: the highest revision of which some history was compacted
--                    away; every change after it is still in history
--   schema_version:  the version of this schema, for humans and tools
CREATE TABLE meta (
    name  TEXT    NOT NULL PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO meta (name, value) VALUES ('revision', 0), ('history_horizon', 0), ('schema_version', 1);

-- Declared bindings: the expression as written and its static sources (a JSON
-- array of keys), with the revision that declared it.
CREATE TABLE bindings (
    key        TEXT    NOT NULL PRIMARY KEY,
    expression TEXT    NOT NULL,
    sources    TEXT    NOT NULL,
    revision   INTEGER NOT NULL
) WITHOUT ROWID;

-- Operator state of each binding (take/skip counters, scan accumulators,
-- the last value a filter let through, pending throttle values) as JSON.
CREATE TABLE binding_state (
    key   TEXT NOT NULL PRIMARY KEY,
    state TEXT NOT NULL
) WITHOUT ROWID;
