-- Archived bank transactions (DELETE /bank-transactions/{id}): hidden from
-- listings unless include_archived=true, their live journal entry reversed;
-- restoring one (POST .../restore) posts its categorization again.
ALTER TABLE bank_transactions ADD COLUMN IF NOT EXISTS archived_at timestamptz;

--bun:split

-- The counterparties of a business (GET /counterparties): one per normalised
-- counterparty name (bank_transactions.counterparty_key, see
-- autocat.NormalizeCounterparty), added as transactions carrying a new name
-- are imported, recorded or renamed. id is banking.CounterpartyID: a
-- name-based UUID (version 3, MD5) over the business id and the key, so a
-- transaction's counterparty_id follows from its key without a lookup. name
-- is the first name seen for the key.
CREATE TABLE IF NOT EXISTS bank_counterparties (
    business_id uuid        NOT NULL,
    id          uuid        NOT NULL,
    key         text        NOT NULL CHECK (key <> ''),
    name        text        NOT NULL,
    external_id text,
    website     text,
    logo        text,
    mccs        text[]      NOT NULL DEFAULT '{}',
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (business_id, id),
    UNIQUE (business_id, key)
);

--bun:split

CREATE INDEX IF NOT EXISTS bank_counterparties_name_idx ON bank_counterparties (business_id, name, id);

--bun:split

CREATE INDEX IF NOT EXISTS bank_counterparties_external_id_idx ON bank_counterparties (business_id, external_id)
    WHERE external_id IS NOT NULL;

--bun:split

-- The counterparties of the transactions already stored. The id is
-- uuid.NewMD5(namespace, "<business id>:<key>") computed here: the MD5 of
-- the namespace's bytes and the name, with the version (3) and variant bits
-- set as RFC 4122 says.
INSERT INTO bank_counterparties (business_id, id, key, name, created_at, updated_at)
SELECT DISTINCT ON (bt.business_id, bt.counterparty_key)
       bt.business_id,
       (substr(h.hex, 1, 12) || '3' || substr(h.hex, 14, 3)
           || substr('89ab', (('x' || substr(h.hex, 17, 1))::bit(4)::int & 3) + 1, 1)
           || substr(h.hex, 18))::uuid,
       bt.counterparty_key, bt.counterparty_name, bt.imported_at, bt.imported_at
FROM bank_transactions bt
CROSS JOIN LATERAL (SELECT md5(decode('5b0f6c1e8e2a4d7f9c3b2a1d0e4f6a88', 'hex')
    || convert_to(bt.business_id::text || ':' || bt.counterparty_key, 'UTF8')) AS hex) h
WHERE bt.counterparty_key IS NOT NULL AND bt.counterparty_key <> '' AND bt.counterparty_name IS NOT NULL
ORDER BY bt.business_id, bt.counterparty_key, bt.imported_at, bt.id
ON CONFLICT DO NOTHING;
