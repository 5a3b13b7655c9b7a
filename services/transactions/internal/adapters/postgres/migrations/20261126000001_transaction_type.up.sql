-- The bank's or provider's kind of transaction (transaction_type of the
-- Bank_Transaction answer, e.g. "Book"), as imported; null when not given.
ALTER TABLE bank_transactions ADD COLUMN IF NOT EXISTS transaction_type text;
