-- Bill payments and their allocations to bills. Amounts are integer
-- cents. A payment's allocations sum to its amount and each bill's
-- settled_amount includes them (kept by the use cases with the bills
-- locked); deleting a payment deletes its allocations.
CREATE TABLE IF NOT EXISTS bill_payments (
    business_id      uuid        NOT NULL,
    id               uuid        NOT NULL,
    external_id      text,
    paid_at          timestamptz NOT NULL,
    method           text        NOT NULL CHECK (method IN ('CASH', 'CHECK', 'CREDIT_CARD', 'ACH', 'CREDIT_BALANCE', 'OTHER')),
    amount           bigint      NOT NULL CHECK (amount > 0),
    processor        text,
    clearing_account jsonb       NOT NULL,
    memo             text,
    reference_number text,
    metadata         jsonb,
    tags             jsonb       NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(tags) = 'array'),
    version          bigint      NOT NULL CHECK (version >= 1),
    imported_at      timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    CONSTRAINT bill_payments_pkey PRIMARY KEY (business_id, id)
);

--bun:split

CREATE UNIQUE INDEX IF NOT EXISTS bill_payments_external_id_key ON bill_payments (business_id, external_id)
    WHERE external_id IS NOT NULL;

--bun:split

CREATE TABLE IF NOT EXISTS bill_payment_allocations (
    business_id      uuid   NOT NULL,
    payment_id       uuid   NOT NULL,
    bill_id          uuid   NOT NULL,
    id               uuid   NOT NULL,
    position         int    NOT NULL,
    amount           bigint NOT NULL CHECK (amount > 0),
    memo             text,
    reference_number text,
    metadata         jsonb,
    tags             jsonb  NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(tags) = 'array'),
    CONSTRAINT bill_payment_allocations_pkey PRIMARY KEY (business_id, payment_id, bill_id),
    CONSTRAINT bill_payment_allocations_payment_fkey FOREIGN KEY (business_id, payment_id)
        REFERENCES bill_payments (business_id, id) ON DELETE CASCADE,
    CONSTRAINT bill_payment_allocations_bill_fkey FOREIGN KEY (business_id, bill_id)
        REFERENCES bills (business_id, id)
);

--bun:split

CREATE INDEX IF NOT EXISTS bill_payment_allocations_bill_idx ON bill_payment_allocations (business_id, bill_id);
