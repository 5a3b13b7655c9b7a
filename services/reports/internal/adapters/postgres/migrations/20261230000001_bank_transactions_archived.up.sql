-- An archived bank transaction (taken out of the books until restored) is
-- kept, but counted and exported by no report.
ALTER TABLE bank_transactions ADD COLUMN archived boolean NOT NULL DEFAULT false;
