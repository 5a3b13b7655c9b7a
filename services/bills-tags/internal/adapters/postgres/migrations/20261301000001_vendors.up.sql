-- Vendors of each business. Text fields are NULL when empty (never '').
-- The tags are the vendor's own (pkg/tags shapes and deterministic ids),
-- replaced as a whole by a patch. sort_name backs sort_by=name: the display
-- name (company, else individual) in lower case. A bill naming an unknown
-- vendor_external_id creates the vendor with that external id and no name,
-- so a vendor without a name always has an external id. A vendor merged
-- into another is ARCHIVED with merged_into_id set.
CREATE TABLE IF NOT EXISTS vendors (
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
    merged_into_id  uuid,
    tags            jsonb       NOT NULL DEFAULT '[]',
    version         integer     NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    archived_at     timestamptz,
    sort_name       text        GENERATED ALWAYS AS (lower(coalesce(company_name, individual_name, ''))) STORED,
    CONSTRAINT vendors_pkey PRIMARY KEY (business_id, id),
    CONSTRAINT vendors_status_check CHECK (status IN ('ACTIVE', 'ARCHIVED')),
    CONSTRAINT vendors_archived_at_check CHECK ((status = 'ARCHIVED') = (archived_at IS NOT NULL)),
    CONSTRAINT vendors_merged_check CHECK (merged_into_id IS NULL OR status = 'ARCHIVED'),
    CONSTRAINT vendors_name_check CHECK (individual_name IS NOT NULL OR company_name IS NOT NULL OR external_id IS NOT NULL),
    CONSTRAINT vendors_tags_check CHECK (jsonb_typeof(tags) = 'array'),
    CONSTRAINT vendors_version_check CHECK (version >= 1)
);

--bun:split

-- One vendor per external id and business. Creates rely on it
-- (INSERT ... ON CONFLICT DO NOTHING).
CREATE UNIQUE INDEX IF NOT EXISTS vendors_external_id_key ON vendors (business_id, external_id)
    WHERE external_id IS NOT NULL;

--bun:split

CREATE INDEX IF NOT EXISTS vendors_sort_name_idx ON vendors (business_id, sort_name, id);

--bun:split

CREATE INDEX IF NOT EXISTS vendors_created_at_idx ON vendors (business_id, created_at, id);

--bun:split

CREATE INDEX IF NOT EXISTS vendors_updated_at_idx ON vendors (business_id, updated_at, id);
