-- propd schema, version 2: which bindings came from binding files (*.prop in
-- the bindings directory) and from which file. A reload removes the bindings
-- whose file no longer declares them and leaves those declared by clients alone.
CREATE TABLE binding_files (
    key  TEXT NOT NULL PRIMARY KEY REFERENCES bindings (key) ON DELETE CASCADE,
    file TEXT NOT NULL
) WITHOUT ROWID;

UPDATE meta SET value = 2 WHERE name = 'schema_version';
