-- A row the broker refuses for good is parked (failed_at set) instead of
-- being retried forever in front of every other row; later rows of its key
-- wait behind it until an operator unparks or deletes it.
ALTER TABLE outbox
    ADD COLUMN IF NOT EXISTS failed_at  timestamptz,
    ADD COLUMN IF NOT EXISTS last_error text,
    ADD COLUMN IF NOT EXISTS attempts   integer NOT NULL DEFAULT 0;

--bun:split

-- Parked rows are few: this index answers "is a row of this key parked?"
-- for every row the relay reads, and counts them for alerting.
CREATE INDEX IF NOT EXISTS outbox_parked_idx ON outbox (key, seq) WHERE failed_at IS NOT NULL AND sent_at IS NULL;
