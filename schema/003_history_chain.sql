-- propd schema, version 3: history without a key-ordered index. Each history
-- row names the revision of the same key's previous row (`previous`), so a
-- key's history is a chain walked from its newest row by primary-key lookups,
-- and appending costs one B-tree insert instead of two.
--
-- The newest row of a key (the head of its chain) is:
--   * properties.revision, when the key exists and has a value or an error
--     (a derived key declared without a value has no history at that revision);
--   * otherwise deleted_heads.revision, when the key's newest change is a
--     delete (the key is gone, or was declared again as a derived key without
--     a value since);
--   * otherwise there is none: the key has no history.
-- A row of deleted_heads whose key has since been set again is stale and
-- ignored by that rule; compaction removes such rows.
-- `previous` is NULL for a key's oldest row still in history.
--
-- The table is rebuilt rather than altered: its CHECK on `kind` is written
-- with `=` instead of `IN (...)`, which SQLite evaluates by building a
-- temporary table on every insert.
CREATE TABLE history_chain (
    revision INTEGER NOT NULL,
    key      TEXT    NOT NULL,
    kind     TEXT    NOT NULL CHECK (kind = 'set' OR kind = 'delete' OR kind = 'error'),
    value    TEXT,
    error    TEXT,
    previous INTEGER,
    PRIMARY KEY (revision, key)
) WITHOUT ROWID;

INSERT INTO history_chain (revision, key, kind, value, error, previous)
SELECT revision, key, kind, value, error, (
    SELECT max(older.revision) FROM history AS older
    WHERE older.key = history.key AND older.revision < history.revision
)
FROM history ORDER BY revision, key;

CREATE TABLE deleted_heads (
    key      TEXT    NOT NULL PRIMARY KEY,
    revision INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO deleted_heads (key, revision)
SELECT newest.key, newest.revision
FROM (SELECT key, max(revision) AS revision FROM history GROUP BY key) AS newest
JOIN history ON history.revision = newest.revision AND history.key = newest.key
WHERE history.kind = 'delete';

-- Last: the statements above find each key's rows through history_by_key,
-- which goes with the old table.
DROP TABLE history;
ALTER TABLE history_chain RENAME TO history;

UPDATE meta SET value = 3 WHERE name = 'schema_version';
