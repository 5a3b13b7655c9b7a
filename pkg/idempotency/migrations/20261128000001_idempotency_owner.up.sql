-- The request holding a reservation: its owner token, and when it last
-- showed it is still running (the owner refreshes alive_at while its
-- request runs). A reservation whose owner stopped showing signs of life
-- (its process killed mid-request) is taken over soon, not after minutes;
-- the owner stores its response only while it still holds the key.
ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS owner uuid;
ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS alive_at timestamptz;
