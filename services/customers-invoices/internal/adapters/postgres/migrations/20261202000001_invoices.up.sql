-- Invoices, their lines, customer payments (with their allocations to
-- invoices) and write-offs. Amounts are integer cents; quantities are
-- millionths (money.Quantity). Every table leads with business_id and
-- every query is scoped by it.
--
-- An invoice's paid and written-off amounts are kept on its row by the
-- use cases that change them (in the same transaction, the invoice row
-- locked), so its status and outstanding balance are columns that list
-- filters and sorts can use.
CREATE TABLE IF NOT EXISTS invoices (
    business_id                 uuid        NOT NULL,
    id                          uuid        NOT NULL,
    external_id                 text,
    invoice_number              text,
    customer_id                 uuid,
    sent_at                     timestamptz NOT NULL,
    due_at                      timestamptz,
    -- due_at, or 9999-12-31 for an invoice without one: the keyset of
    -- sort_by=due_at (those without a due date last).
    due_sort                    timestamptz NOT NULL,
    paid_at                     timestamptz,
    voided_at                   timestamptz,
    memo                        text,
    custom_payment_instructions text,
    reference_number            text,
    metadata                    jsonb,
    tags                        jsonb       NOT NULL DEFAULT '[]',
    additional_discount         bigint      NOT NULL DEFAULT 0 CHECK (additional_discount >= 0),
    additional_sales_taxes      jsonb       NOT NULL DEFAULT '[]',
    tips                        bigint      NOT NULL DEFAULT 0 CHECK (tips >= 0),
    subtotal                    bigint      NOT NULL,
    total_discount              bigint      NOT NULL,
    total_tax                   bigint      NOT NULL,
    additional_taxes_total      bigint      NOT NULL,
    total_amount                bigint      NOT NULL CHECK (total_amount >= 0),
    paid_amount                 bigint      NOT NULL DEFAULT 0 CHECK (paid_amount >= 0),
    written_off_amount          bigint      NOT NULL DEFAULT 0 CHECK (written_off_amount >= 0),
    outstanding_balance         bigint      NOT NULL,
    status                      text        NOT NULL CHECK (status IN
        ('SENT', 'PARTIALLY_PAID', 'PAID', 'VOIDED', 'PARTIALLY_WRITTEN_OFF', 'WRITTEN_OFF')),
    version                     integer     NOT NULL CHECK (version >= 1),
    imported_at                 timestamptz NOT NULL,
    updated_at                  timestamptz NOT NULL,
    CONSTRAINT invoices_pkey PRIMARY KEY (business_id, id),
    CONSTRAINT invoices_customer_fkey FOREIGN KEY (business_id, customer_id) REFERENCES customers (business_id, id),
    -- Never more paid or written off than billed; a voided invoice owes nothing.
    CONSTRAINT invoices_balance_check CHECK (
        outstanding_balance = CASE WHEN voided_at IS NULL THEN total_amount - paid_amount - written_off_amount ELSE 0 END
        AND outstanding_balance >= 0),
    CONSTRAINT invoices_voided_check CHECK ((status = 'VOIDED') = (voided_at IS NOT NULL)),
    CONSTRAINT invoices_due_sort_check CHECK (due_sort = coalesce(due_at, '9999-12-31 00:00:00+00'))
);

--bun:split

CREATE UNIQUE INDEX IF NOT EXISTS invoices_external_id_key ON invoices (business_id, external_id)
    WHERE external_id IS NOT NULL;

--bun:split

-- Keyset pagination: one (business_id, sort key, id) index per sort key.
CREATE INDEX IF NOT EXISTS invoices_sent_at_idx ON invoices (business_id, sent_at, id);

--bun:split

CREATE INDEX IF NOT EXISTS invoices_due_sort_idx ON invoices (business_id, due_sort, id);

--bun:split

CREATE INDEX IF NOT EXISTS invoices_total_amount_idx ON invoices (business_id, total_amount, id);

--bun:split

CREATE INDEX IF NOT EXISTS invoices_updated_at_idx ON invoices (business_id, updated_at, id);

--bun:split

-- Filters that narrow a business's invoices sharply.
CREATE INDEX IF NOT EXISTS invoices_customer_idx ON invoices (business_id, customer_id, sent_at, id);

--bun:split

CREATE INDEX IF NOT EXISTS invoices_status_idx ON invoices (business_id, status, sent_at, id);

--bun:split

CREATE INDEX IF NOT EXISTS invoices_reference_number_idx ON invoices (business_id, reference_number)
    WHERE reference_number IS NOT NULL;

--bun:split

CREATE TABLE IF NOT EXISTS invoice_lines (
    business_id       uuid    NOT NULL,
    invoice_id        uuid    NOT NULL,
    id                uuid    NOT NULL,
    line_number       integer NOT NULL CHECK (line_number >= 1),
    external_id       text,
    product           text,
    description       text,
    unit_price        bigint  NOT NULL CHECK (unit_price >= 0),
    quantity          bigint  NOT NULL CHECK (quantity > 0), -- millionths
    -- The revenue account as sent: an id or a stable name (SALES when none).
    account_id        uuid,
    account_stable_name text,
    discount_amount   bigint  NOT NULL CHECK (discount_amount >= 0),
    sales_taxes       jsonb   NOT NULL DEFAULT '[]',
    subtotal          bigint  NOT NULL,
    sales_taxes_total bigint  NOT NULL,
    total_amount      bigint  NOT NULL,
    revenue           bigint  NOT NULL CHECK (revenue >= 0),
    memo              text,
    tags              jsonb   NOT NULL DEFAULT '[]',
    CONSTRAINT invoice_lines_pkey PRIMARY KEY (business_id, id),
    CONSTRAINT invoice_lines_number_key UNIQUE (business_id, invoice_id, line_number),
    CONSTRAINT invoice_lines_invoice_fkey FOREIGN KEY (business_id, invoice_id)
        REFERENCES invoices (business_id, id) ON DELETE CASCADE,
    CONSTRAINT invoice_lines_account_check CHECK (account_id IS NULL OR account_stable_name IS NULL)
);

--bun:split

CREATE TABLE IF NOT EXISTS invoice_payments (
    business_id      uuid        NOT NULL,
    id               uuid        NOT NULL,
    external_id      text,
    paid_at          timestamptz NOT NULL,
    method           text        NOT NULL CHECK (method IN ('CASH', 'CHECK', 'CREDIT_CARD', 'ACH', 'CREDIT_BALANCE', 'OTHER')),
    amount           bigint      NOT NULL CHECK (amount > 0),
    fee              bigint      NOT NULL DEFAULT 0 CHECK (fee >= 0 AND fee <= amount),
    processor        text,
    memo             text,
    reference_number text,
    tags             jsonb       NOT NULL DEFAULT '[]',
    version          integer     NOT NULL CHECK (version >= 1),
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    CONSTRAINT invoice_payments_pkey PRIMARY KEY (business_id, id)
);

--bun:split

CREATE UNIQUE INDEX IF NOT EXISTS invoice_payments_external_id_key ON invoice_payments (business_id, external_id)
    WHERE external_id IS NOT NULL;

--bun:split

CREATE TABLE IF NOT EXISTS payment_allocations (
    business_id uuid   NOT NULL,
    payment_id  uuid   NOT NULL,
    invoice_id  uuid   NOT NULL,
    amount      bigint NOT NULL CHECK (amount > 0),
    CONSTRAINT payment_allocations_pkey PRIMARY KEY (business_id, payment_id, invoice_id),
    CONSTRAINT payment_allocations_payment_fkey FOREIGN KEY (business_id, payment_id)
        REFERENCES invoice_payments (business_id, id) ON DELETE CASCADE,
    CONSTRAINT payment_allocations_invoice_fkey FOREIGN KEY (business_id, invoice_id)
        REFERENCES invoices (business_id, id)
);

--bun:split

CREATE INDEX IF NOT EXISTS payment_allocations_invoice_idx ON payment_allocations (business_id, invoice_id);

--bun:split

CREATE TABLE IF NOT EXISTS invoice_write_offs (
    business_id      uuid        NOT NULL,
    id               uuid        NOT NULL,
    invoice_id       uuid        NOT NULL,
    external_id      text,
    amount           bigint      NOT NULL CHECK (amount > 0),
    write_off_mode   text        NOT NULL CHECK (write_off_mode IN ('EXPENSE', 'REVENUE_REVERSAL')),
    destination_account_id          uuid,
    destination_account_stable_name text,
    write_off_at     timestamptz NOT NULL,
    memo             text,
    reference_number text,
    tags             jsonb       NOT NULL DEFAULT '[]',
    -- Set when the invoice is voided: the write-off's entry is reversed.
    voided_at        timestamptz,
    version          integer     NOT NULL CHECK (version >= 1),
    created_at       timestamptz NOT NULL,
    CONSTRAINT invoice_write_offs_pkey PRIMARY KEY (business_id, id),
    CONSTRAINT invoice_write_offs_invoice_fkey FOREIGN KEY (business_id, invoice_id)
        REFERENCES invoices (business_id, id) ON DELETE CASCADE
);

--bun:split

CREATE UNIQUE INDEX IF NOT EXISTS invoice_write_offs_external_id_key ON invoice_write_offs (business_id, external_id)
    WHERE external_id IS NOT NULL;

--bun:split

CREATE INDEX IF NOT EXISTS invoice_write_offs_invoice_idx ON invoice_write_offs (business_id, invoice_id);
