-- Bank transactions: imported from a provider or the API, or entered in a
-- custom account. Every index leads with business_id (every query is
-- within one business). amount is positive cents; direction its side.
-- version grows by one with every change (the acct.transactions.v1
-- snapshots carry it).
CREATE TABLE IF NOT EXISTS bank_transactions (
    business_id           uuid        NOT NULL,
    id                    uuid        NOT NULL,
    source                text        NOT NULL CHECK (source IN ('API', 'CUSTOM', 'PROVIDER_1', 'PROVIDER_2', 'PROVIDER_3')),
    source_transaction_id text        NOT NULL,
    source_account_id     text,
    external_id           text,
    custom_account_id     uuid,
    external_account_id   uuid,
    ledger_account_id     uuid        NOT NULL,
    account_name          text,
    account_mask          text,
    institution_name      text,
    date                  timestamptz NOT NULL,
    direction             text        NOT NULL CHECK (direction IN ('CREDIT', 'DEBIT')),
    amount                bigint      NOT NULL CHECK (amount >= 0),
    counterparty_name     text,
    -- autocat.NormalizeCounterparty(counterparty_name): the key of the
    -- business's history with a counterparty (category suggestions).
    counterparty_key      text,
    description           text,
    reference_number      text,
    memo                  text,
    metadata              jsonb,
    categorization_status text        NOT NULL,
    categorization_method text,
    category              jsonb,
    tax_code              text,
    imported_at           timestamptz NOT NULL,
    updated_at            timestamptz NOT NULL,
    version               integer     NOT NULL DEFAULT 1 CHECK (version >= 1),
    CONSTRAINT bank_transactions_pkey PRIMARY KEY (business_id, id),
    CONSTRAINT bank_transactions_source_key UNIQUE (business_id, source, source_transaction_id),
    CONSTRAINT bank_transactions_ledger_account_fkey FOREIGN KEY (business_id, ledger_account_id)
        REFERENCES ledger_accounts (business_id, id),
    CONSTRAINT bank_transactions_custom_account_fkey FOREIGN KEY (business_id, custom_account_id)
        REFERENCES custom_accounts (business_id, id)
);

--bun:split

-- Keyset pagination per sort key (id breaks ties).
CREATE INDEX IF NOT EXISTS bank_transactions_date_idx ON bank_transactions (business_id, date, id);

--bun:split

CREATE INDEX IF NOT EXISTS bank_transactions_amount_idx ON bank_transactions (business_id, amount, id);

--bun:split

CREATE INDEX IF NOT EXISTS bank_transactions_imported_at_idx ON bank_transactions (business_id, imported_at, id);

--bun:split

CREATE INDEX IF NOT EXISTS bank_transactions_counterparty_idx ON bank_transactions (business_id, counterparty_key)
    WHERE category IS NOT NULL;

--bun:split

CREATE INDEX IF NOT EXISTS bank_transactions_ledger_account_idx ON bank_transactions (business_id, ledger_account_id, date);

--bun:split

-- The external accounts of imported transactions: one per (source,
-- source_account_id), each with its own ledger account.
CREATE TABLE IF NOT EXISTS external_accounts (
    business_id       uuid        NOT NULL,
    id                uuid        NOT NULL,
    source            text        NOT NULL,
    source_account_id text        NOT NULL,
    account_name      text,
    ledger_account_id uuid        NOT NULL,
    created_at        timestamptz NOT NULL,
    CONSTRAINT external_accounts_pkey PRIMARY KEY (business_id, id),
    CONSTRAINT external_accounts_source_key UNIQUE (business_id, source, source_account_id),
    CONSTRAINT external_accounts_ledger_account_fkey FOREIGN KEY (business_id, ledger_account_id)
        REFERENCES ledger_accounts (business_id, id)
);

--bun:split

-- Tags on bank transactions, with pkg/tags' deterministic ids (a tag id is
-- the same whenever the same key and value tag the same transaction).
CREATE TABLE IF NOT EXISTS bank_transaction_tags (
    business_id            uuid        NOT NULL,
    id                     uuid        NOT NULL,
    transaction_id         uuid        NOT NULL,
    key                    text        NOT NULL,
    value                  text        NOT NULL,
    dimension_id           uuid        NOT NULL,
    definition_id          uuid        NOT NULL,
    dimension_display_name text,
    value_display_name     text,
    created_at             timestamptz NOT NULL,
    updated_at             timestamptz NOT NULL,
    CONSTRAINT bank_transaction_tags_pkey PRIMARY KEY (business_id, id),
    CONSTRAINT bank_transaction_tags_transaction_fkey FOREIGN KEY (business_id, transaction_id)
        REFERENCES bank_transactions (business_id, id) ON DELETE CASCADE
);

--bun:split

CREATE INDEX IF NOT EXISTS bank_transaction_tags_transaction_idx ON bank_transaction_tags (business_id, transaction_id);

--bun:split

-- Documents (receipts) of bank transactions; the bytes are in pkg/storage
-- under storage_key. Archived documents stay (archived_at set).
CREATE TABLE IF NOT EXISTS bank_transaction_documents (
    business_id    uuid        NOT NULL,
    id             uuid        NOT NULL,
    transaction_id uuid        NOT NULL,
    file_name      text        NOT NULL,
    file_type      text        NOT NULL,
    document_type  text,
    storage_key    text        NOT NULL,
    size_bytes     bigint      NOT NULL,
    created_at     timestamptz NOT NULL,
    archived_at    timestamptz,
    CONSTRAINT bank_transaction_documents_pkey PRIMARY KEY (business_id, id),
    CONSTRAINT bank_transaction_documents_transaction_fkey FOREIGN KEY (business_id, transaction_id)
        REFERENCES bank_transactions (business_id, id)
);

--bun:split

CREATE INDEX IF NOT EXISTS bank_transaction_documents_transaction_idx ON bank_transaction_documents (business_id, transaction_id);

--bun:split

-- Auto-categorization rules. The rule is kept as the draft it was created
-- from (autocat.RuleDraft) and rebuilt with autocat.NewRule when read.
CREATE TABLE IF NOT EXISTS categorization_rules (
    business_id uuid        NOT NULL,
    id          uuid        NOT NULL,
    draft       jsonb       NOT NULL,
    created_at  timestamptz NOT NULL,
    CONSTRAINT categorization_rules_pkey PRIMARY KEY (business_id, id)
);
