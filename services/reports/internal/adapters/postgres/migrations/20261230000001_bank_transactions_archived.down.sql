ALTER TABLE bank_transactions DROP COLUMN IF EXISTS archived;
