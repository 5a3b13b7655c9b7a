-- How sure the reading is of each proposed field (vendor, paid_at,
-- amount: 0 to 1), and what to check when the total is uncertain.
ALTER TABLE receipts ADD COLUMN IF NOT EXISTS field_confidence jsonb NOT NULL DEFAULT '{}';

--bun:split

ALTER TABLE receipts ADD COLUMN IF NOT EXISTS note text;
