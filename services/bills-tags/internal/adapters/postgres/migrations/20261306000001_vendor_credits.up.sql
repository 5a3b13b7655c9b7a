-- Vendor credits and their allocations to bills. Amounts are integer
-- cents. A credit's lines (amount, expense account, texts, tags) are kept
-- whole as JSON; total_amount is their sum and unapplied what its
-- allocations leave (never below 0). Each bill's settled_amount includes
-- the credits' allocations (kept by the use cases with the bills locked).
CREATE TABLE IF NOT EXISTS vendor_credits (
    business_id      uuid        NOT NULL,
    id               uuid        NOT NULL,
    external_id      text,
    vendor_id        uuid        NOT NULL,
    received_at      timestamptz NOT NULL,
    lines            jsonb       NOT NULL CHECK (jsonb_typeof(lines) = 'array'),
    total_amount     bigint      NOT NULL CHECK (total_amount > 0),
    unapplied        bigint      NOT NULL CHECK (unapplied >= 0 AND unapplied <= total_amount),
    memo             text,
    reference_number text,
    metadata         jsonb,
    tags             jsonb       NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(tags) = 'array'),
    version          bigint      NOT NULL CHECK (version >= 1),
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    deleted_at       timestamptz,
    CONSTRAINT vendor_credits_pkey PRIMARY KEY (business_id, id),
    CONSTRAINT vendor_credits_vendor_fkey FOREIGN KEY (business_id, vendor_id) REFERENCES vendors (business_id, id)
);

--bun:split

CREATE UNIQUE INDEX IF NOT EXISTS vendor_credits_external_id_key ON vendor_credits (business_id, external_id)
    WHERE external_id IS NOT NULL;

--bun:split

CREATE INDEX IF NOT EXISTS vendor_credits_received_at_idx ON vendor_credits (business_id, received_at, id);

--bun:split

CREATE INDEX IF NOT EXISTS vendor_credits_vendor_idx ON vendor_credits (business_id, vendor_id);

--bun:split

CREATE TABLE IF NOT EXISTS vendor_credit_allocations (
    business_id uuid   NOT NULL,
    credit_id   uuid   NOT NULL,
    bill_id     uuid   NOT NULL,
    id          uuid   NOT NULL,
    position    int    NOT NULL,
    amount      bigint NOT NULL CHECK (amount > 0),
    CONSTRAINT vendor_credit_allocations_pkey PRIMARY KEY (business_id, credit_id, bill_id),
    CONSTRAINT vendor_credit_allocations_credit_fkey FOREIGN KEY (business_id, credit_id)
        REFERENCES vendor_credits (business_id, id) ON DELETE CASCADE,
    CONSTRAINT vendor_credit_allocations_bill_fkey FOREIGN KEY (business_id, bill_id)
        REFERENCES bills (business_id, id)
);

--bun:split

CREATE INDEX IF NOT EXISTS vendor_credit_allocations_bill_idx ON vendor_credit_allocations (business_id, bill_id);
