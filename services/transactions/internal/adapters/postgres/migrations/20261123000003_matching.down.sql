ALTER TABLE bank_transactions DROP COLUMN IF EXISTS match;

--bun:split

DROP TABLE IF EXISTS matchable_payments;
