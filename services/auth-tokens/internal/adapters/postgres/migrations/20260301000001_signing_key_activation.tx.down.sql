ALTER TABLE signing_keys DROP COLUMN IF EXISTS activates_at;
