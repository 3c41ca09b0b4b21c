-- propd schema, version 6: history in a rowid table. A row's id is its
-- revision shifted left by 18 bits plus its place among the revision's rows
-- (0 to 262143), so the ids grow with the revisions and the table is read in
-- revision order by id, and a revision's rows are the ids from revision << 18
-- to (revision << 18) + 262143. `previous` is still the revision of the same
-- key's previous row (schema/003_history_chain.sql).
--
-- Appending to a rowid table at its right end starts a new page when the
-- last one is full; appending to a WITHOUT ROWID table shares the full page's
-- rows out with its neighbours each time, which wrote two to three times the
-- pages to the log per commit (BENCHMARKS.md, "What a transaction writes to
-- the log").
CREATE TABLE history_rows (
    id       INTEGER PRIMARY KEY,
    key      TEXT    NOT NULL,
    kind     TEXT    NOT NULL CHECK (kind = 'set' OR kind = 'delete' OR kind = 'error'),
    value    TEXT,
    error    TEXT,
    previous INTEGER
);

INSERT INTO history_rows (id, key, kind, value, error, previous)
SELECT (revision << 18) + row_number() OVER (PARTITION BY revision ORDER BY key) - 1,
    key, kind, value, error, previous
FROM history ORDER BY revision, key;

DROP TABLE history;
ALTER TABLE history_rows RENAME TO history;

UPDATE meta SET value = 6 WHERE name = 'schema_version';
