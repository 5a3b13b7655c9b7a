DROP INDEX IF EXISTS outbox_parked_idx;

--bun:split

ALTER TABLE outbox
    DROP COLUMN IF EXISTS failed_at,
    DROP COLUMN IF EXISTS last_error,
    DROP COLUMN IF EXISTS attempts;
