-- The cash basis. The accrual basis is account_days; the cash basis is
-- account_days plus cash_days, the difference between the two:
--   * the profit-and-loss lines of a deferred source's entries (an
--     invoice, a bill, a write-off: domain.CashRules) are subtracted on the
--     entry's day;
--   * what the document's payments recognize is added on each payment's
--     day (cash_recognized holds it per document, so that a change of the
--     document or of its payments replaces it exactly).
CREATE TABLE IF NOT EXISTS cash_days (
    business_id uuid   NOT NULL,
    day         date   NOT NULL,
    account_id  uuid   NOT NULL,
    tag_set_id  uuid   NOT NULL,
    amount      bigint NOT NULL,
    CONSTRAINT cash_days_pkey PRIMARY KEY (business_id, day, account_id, tag_set_id)
);

--bun:split

-- cash_doc_lines: per deferred document (ledger source), the sum of its
-- entries' profit-and-loss lines (a replaced or voided document's
-- reversals cancel its old lines).
CREATE TABLE IF NOT EXISTS cash_doc_lines (
    business_id uuid   NOT NULL,
    source_type text   NOT NULL,
    source_id   text   NOT NULL,
    account_id  uuid   NOT NULL,
    tag_set_id  uuid   NOT NULL,
    amount      bigint NOT NULL,
    CONSTRAINT cash_doc_lines_pkey PRIMARY KEY (business_id, source_type, source_id, account_id, tag_set_id)
);

--bun:split

-- cash_docs: per deferred document, what it asks to be paid (the sum of
-- its entries' control lines, signed by domain.CashRule.ControlSign).
CREATE TABLE IF NOT EXISTS cash_docs (
    business_id uuid   NOT NULL,
    source_type text   NOT NULL,
    source_id   text   NOT NULL,
    total       bigint NOT NULL,
    CONSTRAINT cash_docs_pkey PRIMARY KEY (business_id, source_type, source_id)
);

--bun:split

-- cash_payments: the newest version of every payment seen (deleted ones
-- too, so that a late older snapshot cannot bring one back).
CREATE TABLE IF NOT EXISTS cash_payments (
    business_id  uuid    NOT NULL,
    payment_type text    NOT NULL,
    payment_id   uuid    NOT NULL,
    version      bigint  NOT NULL,
    deleted      boolean NOT NULL,
    CONSTRAINT cash_payments_pkey PRIMARY KEY (business_id, payment_type, payment_id)
);

--bun:split

-- cash_allocations: what each live payment paid on each document, and on
-- which day.
CREATE TABLE IF NOT EXISTS cash_allocations (
    business_id  uuid   NOT NULL,
    payment_type text   NOT NULL,
    payment_id   uuid   NOT NULL,
    ordinal      int    NOT NULL,
    source_type  text   NOT NULL,
    source_id    text   NOT NULL,
    day          date   NOT NULL,
    amount       bigint NOT NULL,
    CONSTRAINT cash_allocations_pkey PRIMARY KEY (business_id, payment_type, payment_id, ordinal)
);

--bun:split

CREATE INDEX IF NOT EXISTS cash_allocations_doc_idx ON cash_allocations (business_id, source_type, source_id);

--bun:split

-- cash_recognized: what each document's payments recognize, per day,
-- account and tag set (its part of cash_days).
CREATE TABLE IF NOT EXISTS cash_recognized (
    business_id uuid   NOT NULL,
    source_type text   NOT NULL,
    source_id   text   NOT NULL,
    day         date   NOT NULL,
    account_id  uuid   NOT NULL,
    tag_set_id  uuid   NOT NULL,
    amount      bigint NOT NULL,
    CONSTRAINT cash_recognized_pkey PRIMARY KEY (business_id, source_type, source_id, day, account_id, tag_set_id)
);
