DROP TABLE IF EXISTS bank_transactions;
