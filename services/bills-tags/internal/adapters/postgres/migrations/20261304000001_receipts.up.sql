-- Receipts imported by each business (POST /receipts/import). The file is
-- in object storage under storage_key (storage_document_id is its id in the
-- answers); the rest is what was read from it. Import is synchronous, so a
-- receipt is READY_FOR_BILL or FAILED from its first row; it becomes
-- BILL_CREATED (bill_id set) or REJECTED (rejected_at set). Amounts are
-- integer cents; the proposed lines are kept whole as JSON (only ever read
-- and written with the receipt).
CREATE TABLE IF NOT EXISTS receipts (
    business_id         uuid             NOT NULL,
    id                  uuid             NOT NULL,
    storage_document_id uuid             NOT NULL,
    storage_key         text             NOT NULL,
    file_name           text,
    file_type           text             NOT NULL CHECK (file_type IN ('pdf', 'png', 'jpeg')),
    size_bytes          bigint           NOT NULL CHECK (size_bytes >= 0),
    context             text,
    source              text             NOT NULL,
    status              text             NOT NULL CHECK (status IN ('PROCESSING', 'READY_FOR_BILL', 'BILL_CREATED', 'REJECTED', 'FAILED')),
    failure_reason      text,
    text_source         text,
    confidence          double precision NOT NULL DEFAULT 0,
    vendor_display      text,
    vendor_external_id  text,
    paid_at             timestamptz,
    amount_cents        bigint           CHECK (amount_cents >= 0),
    line_items          jsonb            NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(line_items) = 'array'),
    matched_vendor_id   uuid,
    bill_id             uuid,
    rejected_at         timestamptz,
    created_at          timestamptz      NOT NULL,
    updated_at          timestamptz      NOT NULL,
    CONSTRAINT receipts_pkey PRIMARY KEY (business_id, id),
    CONSTRAINT receipts_storage_key UNIQUE (storage_key),
    CONSTRAINT receipts_bill_fkey FOREIGN KEY (business_id, bill_id) REFERENCES bills (business_id, id),
    CONSTRAINT receipts_vendor_fkey FOREIGN KEY (business_id, matched_vendor_id) REFERENCES vendors (business_id, id),
    CONSTRAINT receipts_bill_check CHECK ((status = 'BILL_CREATED') = (bill_id IS NOT NULL)),
    CONSTRAINT receipts_rejected_check CHECK ((status = 'REJECTED') = (rejected_at IS NOT NULL)),
    -- A FAILED receipt says why; it keeps the reason once rejected.
    CONSTRAINT receipts_failed_check CHECK (status <> 'FAILED' OR failure_reason IS NOT NULL)
);

--bun:split

CREATE INDEX IF NOT EXISTS receipts_created_at_idx ON receipts (business_id, created_at, id);

--bun:split

CREATE INDEX IF NOT EXISTS receipts_status_idx ON receipts (business_id, status, created_at, id);

