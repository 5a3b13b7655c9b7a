-- Custom accounts: bank accounts a business keeps by hand (no bank feed).
-- Each has its own ledger account under BANK_ACCOUNTS or CREDIT_CARDS,
-- created in the same transaction.
CREATE TABLE IF NOT EXISTS custom_accounts (
    id                  uuid        PRIMARY KEY,
    business_id         uuid        NOT NULL,
    external_id         text,
    account_name        text        NOT NULL,
    institution_name    text,
    mask                text,
    account_type        text        NOT NULL CHECK (account_type IN ('DEPOSITORY', 'CREDIT')),
    account_subtype     text        NOT NULL CHECK (account_subtype IN ('CHECKING', 'SAVINGS', 'CREDIT_CARD')),
    custom_account_type text        NOT NULL CHECK (custom_account_type IN ('DEFAULT', 'PERSONAL')),
    ledger_account_id   uuid        NOT NULL,
    user_created        boolean     NOT NULL,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    archived_at         timestamptz,
    CONSTRAINT custom_accounts_business_id_key UNIQUE (business_id, id),
    -- NULL external ids never collide.
    CONSTRAINT custom_accounts_external_id_key UNIQUE (business_id, external_id),
    CONSTRAINT custom_accounts_ledger_account_fkey FOREIGN KEY (business_id, ledger_account_id)
        REFERENCES ledger_accounts (business_id, id)
);
