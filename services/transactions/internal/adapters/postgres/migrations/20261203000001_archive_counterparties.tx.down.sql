DROP TABLE IF EXISTS bank_counterparties;

--bun:split

ALTER TABLE bank_transactions DROP COLUMN IF EXISTS archived_at;
