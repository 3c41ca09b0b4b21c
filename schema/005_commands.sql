-- propd schema, version 5: commands (CONTRACT 6.2). A command's name is a
-- key CMD; from its first Serve or Execute on, propd keeps CMD.executing and
-- CMD.error for it, which clients cannot write. This table remembers which
-- names are commands, so that those two keys stay the daemon's across
-- restarts, and so that an execution a restart interrupted (CMD.executing
-- still true) is ended as failed when the daemon starts. `revision` is the
-- revision at which the command first appeared.
CREATE TABLE commands (
    name     TEXT    NOT NULL PRIMARY KEY,
    revision INTEGER NOT NULL
) WITHOUT ROWID;

UPDATE meta SET value = 5 WHERE name = 'schema_version';
