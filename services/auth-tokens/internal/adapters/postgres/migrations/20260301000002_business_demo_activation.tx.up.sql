-- Clients read is_demo and a non-null activation_at date-time on every
-- business. Dates become midnight UTC; missing ones default to the creation time.
ALTER TABLE businesses ADD COLUMN IF NOT EXISTS is_demo boolean NOT NULL DEFAULT false;

--bun:split

ALTER TABLE businesses ALTER COLUMN activation_at TYPE timestamptz
    USING (activation_at::timestamp AT TIME ZONE 'UTC');

--bun:split

UPDATE businesses SET activation_at = created_at WHERE activation_at IS NULL;

--bun:split

ALTER TABLE businesses ALTER COLUMN activation_at SET NOT NULL;
