-- Matching bank deposits to customer payments. matchable_payments is this
-- service's projection of the payments customers-invoices publishes
-- (invoice_payment.upserted / .deleted on acct.invoicing.v1): what a
-- deposit can be matched to. A payment is matched to at most one bank
-- transaction and a transaction to at most one payment.
CREATE TABLE IF NOT EXISTS matchable_payments (
    business_id            uuid        NOT NULL,
    id                     uuid        NOT NULL,
    match_type             text        NOT NULL DEFAULT 'INVOICE_PAYMENT',
    external_id            text,
    reference_number       text,
    memo                   text,
    paid_at                timestamptz NOT NULL,
    method                 text        NOT NULL,
    amount                 bigint      NOT NULL,
    fee                    bigint      NOT NULL,
    -- What reaches the bank (amount − fee) and the account the payment's
    -- entry put it in, which a match moves it out of.
    deposit                bigint      NOT NULL,
    deposit_account        text        NOT NULL,
    -- The invoices it paid: [{id, external_id, reference_number, invoice_number, amount}].
    invoices               jsonb       NOT NULL DEFAULT '[]',
    version                bigint      NOT NULL,
    deleted_at             timestamptz,
    matched_transaction_id uuid,
    updated_at             timestamptz NOT NULL,
    CONSTRAINT matchable_payments_pkey PRIMARY KEY (business_id, id)
);

--bun:split

-- Candidates of a deposit: same business, same amount, a date window.
CREATE INDEX IF NOT EXISTS matchable_payments_open_idx ON matchable_payments (business_id, deposit, paid_at)
    WHERE deleted_at IS NULL AND matched_transaction_id IS NULL;

--bun:split

CREATE UNIQUE INDEX IF NOT EXISTS matchable_payments_matched_key ON matchable_payments (business_id, matched_transaction_id)
    WHERE matched_transaction_id IS NOT NULL;

--bun:split

-- The confirmed match of a MATCHED transaction, as the API renders it.
ALTER TABLE bank_transactions ADD COLUMN IF NOT EXISTS match jsonb;
