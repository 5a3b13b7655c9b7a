-- A key is published from its creation but signs only from activates_at, so
-- verifiers caching the JWKS learn it first. Existing keys signed at once.
ALTER TABLE signing_keys ADD COLUMN IF NOT EXISTS activates_at timestamptz;

--bun:split

UPDATE signing_keys SET activates_at = created_at WHERE activates_at IS NULL;

--bun:split

ALTER TABLE signing_keys ALTER COLUMN activates_at SET NOT NULL;
