-- A/R and A/P aging (domain/aging.go).
--
-- aging_moves: every movement of a control account (ACCOUNTS_RECEIVABLE,
-- ACCOUNTS_PAYABLE and the accounts below them) in the open-amount sense
-- (positive: owed to the business on AR, owed by it on AP), per origin (0:
-- a ledger source's control lines; 1: what a payment applied), holder (the
-- document, payment, credit or other source it counts on) and day. An
-- allocation is two moves that sum to zero (the document −, its payer +),
-- so the moves of a business sum to the ledger's balance of the control
-- account. Derived from the journal copy and cash_allocations: cleared and
-- recomputed by a rebuild.
CREATE TABLE IF NOT EXISTS aging_moves (
    business_id uuid     NOT NULL,
    side        text     NOT NULL,
    origin_kind smallint NOT NULL,
    origin_type text     NOT NULL,
    origin_id   text     NOT NULL,
    holder_type text     NOT NULL,
    holder_id   text     NOT NULL,
    day         date     NOT NULL,
    amount      bigint   NOT NULL,
    CONSTRAINT aging_moves_pkey PRIMARY KEY (business_id, side, origin_kind, origin_type, origin_id, holder_type, holder_id, day)
);

--bun:split

CREATE INDEX IF NOT EXISTS aging_moves_holder_idx ON aging_moves (business_id, side, holder_type, holder_id, day);

--bun:split

-- aging_holders: per holder, the sum of its moves (open: its open amount
-- from last_day on), the first and last days of its non-zero moves, and,
-- for a document, its party and the day it ages from (its due date, else
-- its date, from aging_documents; else its first move's day) copied here so
-- that the report reads one table (age_day is null for the other holders).
-- A report on day D reads the holders open today whose last move is on or
-- before D as they are, and sums the moves up to D of the few whose last
-- move is after D.
CREATE TABLE IF NOT EXISTS aging_holders (
    business_id uuid   NOT NULL,
    side        text   NOT NULL,
    holder_type text   NOT NULL,
    holder_id   text   NOT NULL,
    first_day   date   NOT NULL,
    last_day    date   NOT NULL,
    open        bigint NOT NULL,
    party_id    uuid,
    age_day     date,
    CONSTRAINT aging_holders_pkey PRIMARY KEY (business_id, side, holder_type, holder_id)
);

--bun:split

-- The holders open today, covering what a report reads of them (an
-- index-only scan for the pages the visibility map knows).
CREATE INDEX IF NOT EXISTS aging_holders_open_idx ON aging_holders (business_id, side, last_day)
    INCLUDE (party_id, age_day, open) WHERE open <> 0;

--bun:split

-- The holders with a move after a report's day that were open on it
-- (first_day checked in the index, before the table is read).
CREATE INDEX IF NOT EXISTS aging_holders_last_day_idx ON aging_holders (business_id, side, last_day, first_day);

--bun:split

-- aging_documents: the newest snapshot of each invoice (invoice.upserted)
-- and bill (bill.upserted): party, date and due date. Snapshots, not
-- replayable from the journal copy: a rebuild keeps them.
CREATE TABLE IF NOT EXISTS aging_documents (
    business_id uuid   NOT NULL,
    doc_type    text   NOT NULL,
    doc_id      text   NOT NULL,
    party_id    uuid,
    doc_day     date   NOT NULL,
    due_day     date,
    version     bigint NOT NULL,
    CONSTRAINT aging_documents_pkey PRIMARY KEY (business_id, doc_type, doc_id)
);

--bun:split

-- aging_parties: the newest display name of each customer
-- (customer.upserted) and vendor (vendor.upserted). Kept by a rebuild.
CREATE TABLE IF NOT EXISTS aging_parties (
    business_id uuid   NOT NULL,
    party_type  text   NOT NULL,
    party_id    uuid   NOT NULL,
    name        text   NOT NULL,
    version     bigint NOT NULL,
    CONSTRAINT aging_parties_pkey PRIMARY KEY (business_id, party_type, party_id)
);

--bun:split

-- aging_write_offs: the invoice of each write-off (the newest
-- invoice_write_off.upserted), so that its control lines count on the
-- invoice. Kept by a rebuild.
CREATE TABLE IF NOT EXISTS aging_write_offs (
    business_id  uuid   NOT NULL,
    write_off_id text   NOT NULL,
    invoice_id   text   NOT NULL,
    version      bigint NOT NULL,
    CONSTRAINT aging_write_offs_pkey PRIMARY KEY (business_id, write_off_id)
);

--bun:split

-- A read model that predates the aging gets its moves and holders from the
-- journal copy and cash_allocations at start-up (app.RebuildPending).
INSERT INTO rebuild_pending (business_id, reason)
SELECT DISTINCT business_id, 'aging: control-account moves from the journal copy' FROM entries
ON CONFLICT (business_id) DO NOTHING;
