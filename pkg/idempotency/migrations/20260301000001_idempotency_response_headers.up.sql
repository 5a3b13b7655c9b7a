-- Headers replayed with a stored response (Cache-Control, Pragma, Location).
ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS response_headers jsonb;
