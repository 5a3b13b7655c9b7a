-- Events are stored as the JSON text they were enqueued with (json, not
-- jsonb): no parsing into jsonb on insert and no rendering back on every
-- relay read, and the stored size is the size checked at Enqueue (jsonb
-- re-renders with extra spaces, so the size had to be measured again).
ALTER TABLE outbox
    ALTER COLUMN data TYPE json USING data::json,
    ALTER COLUMN headers DROP DEFAULT,
    ALTER COLUMN headers TYPE json USING headers::json,
    ALTER COLUMN headers SET DEFAULT '{}'::json;
