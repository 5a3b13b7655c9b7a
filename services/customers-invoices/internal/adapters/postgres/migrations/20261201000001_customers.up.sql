-- Customers of each business. Text fields are NULL when empty (never '').
-- The tags are the customer's own (pkg/tags shapes and deterministic ids),
-- replaced as a whole by a patch. sort_name backs sort_by=name: the display
-- name (company, else individual) in lower case.
CREATE TABLE IF NOT EXISTS customers (
    business_id     uuid        NOT NULL,
    id              uuid        NOT NULL,
    external_id     text,
    individual_name text,
    company_name    text,
    email           text,
    mobile_phone    text,
    office_phone    text,
    address_string  text,
    memo            text,
    status          text        NOT NULL,
    tags            jsonb       NOT NULL DEFAULT '[]',
    version         integer     NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    archived_at     timestamptz,
    sort_name       text        GENERATED ALWAYS AS (lower(coalesce(company_name, individual_name, ''))) STORED,
    CONSTRAINT customers_pkey PRIMARY KEY (business_id, id),
    CONSTRAINT customers_status_check CHECK (status IN ('ACTIVE', 'ARCHIVED')),
    CONSTRAINT customers_archived_at_check CHECK ((status = 'ARCHIVED') = (archived_at IS NOT NULL)),
    CONSTRAINT customers_name_check CHECK (individual_name IS NOT NULL OR company_name IS NOT NULL),
    CONSTRAINT customers_tags_check CHECK (jsonb_typeof(tags) = 'array'),
    CONSTRAINT customers_version_check CHECK (version >= 1)
);

--bun:split

-- One customer per external id and business; customers without one never
-- collide. Creates rely on it (INSERT ... ON CONFLICT DO NOTHING).
CREATE UNIQUE INDEX IF NOT EXISTS customers_external_id_key ON customers (business_id, external_id)
    WHERE external_id IS NOT NULL;

--bun:split

-- Keyset pagination: one (business_id, sort key, id) index per sort key.
CREATE INDEX IF NOT EXISTS customers_sort_name_idx ON customers (business_id, sort_name, id);

--bun:split

CREATE INDEX IF NOT EXISTS customers_created_at_idx ON customers (business_id, created_at, id);

--bun:split

CREATE INDEX IF NOT EXISTS customers_updated_at_idx ON customers (business_id, updated_at, id);
