ALTER TABLE idempotency_keys DROP COLUMN IF EXISTS alive_at;
ALTER TABLE idempotency_keys DROP COLUMN IF EXISTS owner;
