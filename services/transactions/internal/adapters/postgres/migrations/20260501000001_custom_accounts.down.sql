DROP TABLE IF EXISTS custom_accounts;
