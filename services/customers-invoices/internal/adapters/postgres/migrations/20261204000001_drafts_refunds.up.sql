-- Drafts, refunds and the payment methods an invoice accepts.
--
-- A DRAFT owes nothing yet (it posts no entry until it is finalized), so its
-- outstanding balance is 0 like a voided invoice's. A refund returns money
-- already paid: it reverses part of the sale and pays the customer back, so
-- it leaves the outstanding balance unchanged; refunded_amount never exceeds
-- paid_amount.
ALTER TABLE invoices DROP CONSTRAINT IF EXISTS invoices_status_check;

--bun:split

ALTER TABLE invoices ADD CONSTRAINT invoices_status_check CHECK (status IN
    ('DRAFT', 'SENT', 'PARTIALLY_PAID', 'PAID', 'VOIDED', 'PARTIALLY_WRITTEN_OFF', 'WRITTEN_OFF', 'REFUNDED'));

--bun:split

ALTER TABLE invoices ADD COLUMN IF NOT EXISTS refunded_amount bigint NOT NULL DEFAULT 0;

--bun:split

ALTER TABLE invoices ADD COLUMN IF NOT EXISTS payment_methods jsonb NOT NULL DEFAULT '[]';

--bun:split

ALTER TABLE invoices DROP CONSTRAINT IF EXISTS invoices_balance_check;

--bun:split

ALTER TABLE invoices ADD CONSTRAINT invoices_balance_check CHECK (
    outstanding_balance = CASE WHEN voided_at IS NULL AND status <> 'DRAFT'
        THEN total_amount - paid_amount - written_off_amount ELSE 0 END
    AND outstanding_balance >= 0
    AND refunded_amount >= 0 AND refunded_amount <= paid_amount);

--bun:split

CREATE TABLE IF NOT EXISTS invoice_refunds (
    business_id      uuid        NOT NULL,
    id               uuid        NOT NULL,
    invoice_id       uuid        NOT NULL,
    external_id      text,
    amount           bigint      NOT NULL CHECK (amount > 0),
    method           text        NOT NULL CHECK (method IN ('CASH', 'CHECK', 'CREDIT_CARD', 'ACH', 'OTHER')),
    completed_at     timestamptz NOT NULL,
    memo             text,
    reference_number text,
    -- Where the money goes out from: [{account, amount}] (the accounts the
    -- invoice's payments put it in), summing to amount.
    payouts          jsonb       NOT NULL,
    -- Set when the invoice is reset: the refund's entries are reversed.
    voided_at        timestamptz,
    version          integer     NOT NULL CHECK (version >= 1),
    created_at       timestamptz NOT NULL,
    CONSTRAINT invoice_refunds_pkey PRIMARY KEY (business_id, id),
    CONSTRAINT invoice_refunds_invoice_fkey FOREIGN KEY (business_id, invoice_id)
        REFERENCES invoices (business_id, id) ON DELETE CASCADE
);

--bun:split

CREATE UNIQUE INDEX IF NOT EXISTS invoice_refunds_external_id_key ON invoice_refunds (business_id, external_id)
    WHERE external_id IS NOT NULL;

--bun:split

CREATE INDEX IF NOT EXISTS invoice_refunds_invoice_idx ON invoice_refunds (business_id, invoice_id);
