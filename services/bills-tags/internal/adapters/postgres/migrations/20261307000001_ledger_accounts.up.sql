-- The businesses' charts of accounts as the ledger (the transactions
-- service) publishes them on acct.accounts.v1: what lets every account a
-- bill, bill payment or vendor credit names be checked when it is written,
-- instead of the ledger refusing (dead-lettering) its posting later. Kept
-- per account, newest updated_at winning (as customers-invoices keeps it).
CREATE TABLE IF NOT EXISTS ledger_accounts (
    business_id  uuid        NOT NULL,
    id           uuid        NOT NULL,
    stable_name  text,
    name         text        NOT NULL,
    account_type text        NOT NULL,
    archived     boolean     NOT NULL,
    updated_at   timestamptz NOT NULL,
    CONSTRAINT ledger_accounts_pkey PRIMARY KEY (business_id, id)
);

--bun:split

CREATE INDEX IF NOT EXISTS ledger_accounts_stable_name_idx ON ledger_accounts (business_id, stable_name)
    WHERE stable_name IS NOT NULL;
