-- propd schema, version 4: keys that expire (`Set(..., ttl)`).
-- `expires` is the deadline in milliseconds since the Unix epoch, NULL for a
-- key that does not expire. A Set writes it (NULL without ttl), a Delete
-- removes the row with it, and derived keys never have one.
ALTER TABLE properties ADD COLUMN expires INTEGER;

-- The expiring keys, which the daemon reads at start to arm its timers.
-- Partial, so plain keys pay nothing for it; on `key` rather than on
-- `expires`, so a heartbeat (a new deadline for the same key) rewrites its
-- entry in place instead of moving it to the other end of the index.
CREATE INDEX properties_expiring ON properties (key) WHERE expires IS NOT NULL;

UPDATE meta SET value = 4 WHERE name = 'schema_version';
