-- propd schema, version 4: keys that expire (`Set(..., ttl)`).
-- `expires` is the deadline in milliseconds since the Unix epoch, NULL for a
-- key that does not expire. A Set writes it (NULL without ttl), a Delete
-- removes the row with it, and derived keys never have one. The partial
-- index holds only expiring keys: the daemon reads them all at start to arm
-- its timers, and plain keys pay nothing for it.
ALTER TABLE properties ADD COLUMN expires INTEGER;

CREATE INDEX properties_by_expiry ON properties (expires) WHERE expires IS NOT NULL;

UPDATE meta SET value = 4 WHERE name = 'schema_version';
