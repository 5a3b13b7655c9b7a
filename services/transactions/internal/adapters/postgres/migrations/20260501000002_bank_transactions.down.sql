DROP TABLE IF EXISTS categorization_rules;

--bun:split

DROP TABLE IF EXISTS bank_transaction_documents;

--bun:split

DROP TABLE IF EXISTS bank_transaction_tags;

--bun:split

DROP TABLE IF EXISTS external_accounts;

--bun:split

DROP TABLE IF EXISTS bank_transactions;
