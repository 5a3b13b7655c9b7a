-- The journal copy keeps each entry as the JSON text its event carried
-- (json, not jsonb): nothing queries inside it in SQL, it is only read back
-- whole (rebuilds, the detail reports), and storing it as text costs half
-- the time of converting it to jsonb on every insert of a catch-up.
ALTER TABLE entries ALTER COLUMN payload TYPE json USING payload::json;
