-- The tag registry of each business: dimensions (tag keys) and their value
-- definitions. Ids are pkg/tags' deterministic ids (UUIDv5 of the business
-- and the normalised key, then of the dimension and the value), so every
-- service names the same entry for the same tag. Rows come from the API
-- and from the tags seen in the domain events (learned: inserted ON
-- CONFLICT DO NOTHING, so the first display names stay). Display names are
-- never NULL: the key or the value when nobody named them.
CREATE TABLE IF NOT EXISTS tag_dimensions (
    business_id  uuid        NOT NULL,
    id           uuid        NOT NULL,
    key          text        NOT NULL,
    display_name text        NOT NULL,
    strictness   text        NOT NULL,
    user_visible boolean     NOT NULL DEFAULT true,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    deleted_at   timestamptz,
    CONSTRAINT tag_dimensions_pkey PRIMARY KEY (business_id, id),
    CONSTRAINT tag_dimensions_key_key UNIQUE (business_id, key),
    CONSTRAINT tag_dimensions_strictness_check CHECK (strictness IN ('BALANCING', 'NON_BALANCING')),
    CONSTRAINT tag_dimensions_key_check CHECK (key <> ''),
    CONSTRAINT tag_dimensions_display_name_check CHECK (display_name <> '')
);

--bun:split

CREATE TABLE IF NOT EXISTS tag_values (
    business_id  uuid        NOT NULL,
    id           uuid        NOT NULL,
    dimension_id uuid        NOT NULL,
    value        text        NOT NULL,
    display_name text        NOT NULL,
    archived_at  timestamptz,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    CONSTRAINT tag_values_pkey PRIMARY KEY (business_id, id),
    CONSTRAINT tag_values_value_key UNIQUE (business_id, dimension_id, value),
    CONSTRAINT tag_values_dimension_fkey FOREIGN KEY (business_id, dimension_id)
        REFERENCES tag_dimensions (business_id, id) ON DELETE CASCADE,
    CONSTRAINT tag_values_value_check CHECK (value <> ''),
    CONSTRAINT tag_values_display_name_check CHECK (display_name <> '')
);
