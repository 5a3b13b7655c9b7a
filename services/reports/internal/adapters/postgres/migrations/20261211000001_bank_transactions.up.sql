-- bank_transactions: the read model of the transactions service's
-- bank_transaction.upserted snapshots (acct.transactions.v1), one row per
-- transaction; the newest version wins (an older or repeated snapshot
-- changes nothing). It answers fully_categorized and the transactions CSV
-- export.
CREATE TABLE IF NOT EXISTS bank_transactions (
    business_id            uuid        NOT NULL,
    transaction_id         uuid        NOT NULL,
    version                integer     NOT NULL,
    day                    date        NOT NULL,
    date_time              timestamptz NOT NULL,
    description            text,
    counterparty           text,
    account_name           text,
    ledger_account_id      uuid        NOT NULL,
    direction              text        NOT NULL,
    amount                 bigint      NOT NULL,
    category_stable_names  text[]      NOT NULL DEFAULT '{}',
    category_display_name  text,
    categorization_status  text        NOT NULL,
    categorized            boolean     NOT NULL,
    tags                   text        NOT NULL DEFAULT '',
    memo                   text,
    reference_number       text,
    event_time             timestamptz NOT NULL,
    CONSTRAINT bank_transactions_pkey PRIMARY KEY (business_id, transaction_id)
);

--bun:split

CREATE INDEX IF NOT EXISTS bank_transactions_day_idx ON bank_transactions (business_id, day, transaction_id);

--bun:split

CREATE INDEX IF NOT EXISTS bank_transactions_uncategorized_idx ON bank_transactions (business_id, day) WHERE NOT categorized;
