-- When ReplayDeadLetters sent a dead letter back to its topic: a replayed
-- row is not sent again by a later replay.
ALTER TABLE dead_letters ADD COLUMN IF NOT EXISTS replayed_at timestamptz;
