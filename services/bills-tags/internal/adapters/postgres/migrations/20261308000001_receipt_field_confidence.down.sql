ALTER TABLE receipts DROP COLUMN IF EXISTS note;

--bun:split

ALTER TABLE receipts DROP COLUMN IF EXISTS field_confidence;
