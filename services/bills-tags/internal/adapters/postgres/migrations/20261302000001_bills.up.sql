-- Bills of each business. Amounts are integer cents. The lines and
-- additional taxes are kept whole on the bill as JSON (they are only ever
-- read and replaced with it); every column a listing filters or sorts on
-- is a real column. settled_amount is what payments and vendor credits
-- applied, kept by the use cases with the bill row locked, so status and
-- outstanding_balance are columns too.
CREATE TABLE IF NOT EXISTS bills (
    business_id            uuid        NOT NULL,
    id                     uuid        NOT NULL,
    external_id            text,
    bill_number            text,
    vendor_id              uuid        NOT NULL,
    status                 text        NOT NULL CHECK (status IN ('RECEIVED', 'PARTIALLY_PAID', 'PAID', 'VOIDED')),
    received_at            timestamptz NOT NULL,
    due_at                 timestamptz,
    -- due_at, or 9999-12-31 without one: the keyset of sort_by=due_at.
    due_sort               timestamptz NOT NULL,
    paid_at                timestamptz,
    voided_at              timestamptz,
    memo                   text,
    reference_number       text,
    metadata               jsonb,
    tags                   jsonb       NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(tags) = 'array'),
    lines                  jsonb       NOT NULL CHECK (jsonb_typeof(lines) = 'array'),
    additional_sales_taxes jsonb       NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(additional_sales_taxes) = 'array'),
    subtotal               bigint      NOT NULL,
    discounts              bigint      NOT NULL CHECK (discounts >= 0),
    line_taxes             bigint      NOT NULL CHECK (line_taxes >= 0),
    additional_taxes       bigint      NOT NULL CHECK (additional_taxes >= 0),
    total_amount           bigint      NOT NULL CHECK (total_amount >= 0),
    settled_amount         bigint      NOT NULL DEFAULT 0 CHECK (settled_amount >= 0),
    outstanding_balance    bigint      NOT NULL,
    version                bigint      NOT NULL CHECK (version >= 1),
    imported_at            timestamptz NOT NULL,
    updated_at             timestamptz NOT NULL,
    CONSTRAINT bills_pkey PRIMARY KEY (business_id, id),
    CONSTRAINT bills_vendor_fkey FOREIGN KEY (business_id, vendor_id) REFERENCES vendors (business_id, id),
    -- Never more settled than billed; a voided bill owes nothing.
    CONSTRAINT bills_balance_check CHECK (
        outstanding_balance = CASE WHEN voided_at IS NULL THEN total_amount - settled_amount ELSE 0 END
        AND outstanding_balance >= 0),
    CONSTRAINT bills_voided_check CHECK ((status = 'VOIDED') = (voided_at IS NOT NULL)),
    CONSTRAINT bills_due_sort_check CHECK (due_sort = coalesce(due_at, '9999-12-31 00:00:00+00'))
);

--bun:split

CREATE UNIQUE INDEX IF NOT EXISTS bills_external_id_key ON bills (business_id, external_id) WHERE external_id IS NOT NULL;

--bun:split

CREATE INDEX IF NOT EXISTS bills_received_at_idx ON bills (business_id, received_at, id);

--bun:split

CREATE INDEX IF NOT EXISTS bills_due_sort_idx ON bills (business_id, due_sort, id);

--bun:split

CREATE INDEX IF NOT EXISTS bills_total_amount_idx ON bills (business_id, total_amount, id);

--bun:split

CREATE INDEX IF NOT EXISTS bills_vendor_idx ON bills (business_id, vendor_id);
