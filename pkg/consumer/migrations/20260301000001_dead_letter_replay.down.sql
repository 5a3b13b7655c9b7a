ALTER TABLE dead_letters DROP COLUMN IF EXISTS replayed_at;
