-- A delivery's first attempt is kept in its own row: most deliveries
-- succeed at once, and then no attempts row (with its two index entries
-- and its reference check) is written for them. Later attempts, and the
-- notes of a delivery failed without an attempt, stay in attempts.
ALTER TABLE deliveries
    ADD COLUMN IF NOT EXISTS first_attempt_id    uuid,
    ADD COLUMN IF NOT EXISTS first_attempted_at  timestamptz,
    ADD COLUMN IF NOT EXISTS first_status_code   integer,
    ADD COLUMN IF NOT EXISTS first_latency_ms    bigint,
    ADD COLUMN IF NOT EXISTS first_response      text,
    ADD COLUMN IF NOT EXISTS first_error         text,
    ADD COLUMN IF NOT EXISTS first_next_retry_at timestamptz;
