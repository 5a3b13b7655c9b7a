DROP TABLE IF EXISTS ledger_accounts;
