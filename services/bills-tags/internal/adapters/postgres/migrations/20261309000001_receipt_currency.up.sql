-- The receipt's currency as read (ISO 4217): printed on it, else the
-- business's country's.
ALTER TABLE receipts ADD COLUMN IF NOT EXISTS currency text;
