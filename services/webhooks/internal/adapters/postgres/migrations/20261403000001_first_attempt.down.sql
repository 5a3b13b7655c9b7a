-- The first attempts back into attempts, then the columns dropped.
INSERT INTO attempts (id, delivery_id, number, attempted_at, status_code, latency_ms, response, error, next_retry_at)
SELECT first_attempt_id, id, 1, first_attempted_at, first_status_code, first_latency_ms, coalesce(first_response, ''), first_error, first_next_retry_at
FROM deliveries WHERE first_attempt_id IS NOT NULL
ON CONFLICT (id) DO NOTHING;

--bun:split

ALTER TABLE deliveries
    DROP COLUMN IF EXISTS first_attempt_id,
    DROP COLUMN IF EXISTS first_attempted_at,
    DROP COLUMN IF EXISTS first_status_code,
    DROP COLUMN IF EXISTS first_latency_ms,
    DROP COLUMN IF EXISTS first_response,
    DROP COLUMN IF EXISTS first_error,
    DROP COLUMN IF EXISTS first_next_retry_at;
