CREATE TABLE IF NOT EXISTS clients (
    id          text        PRIMARY KEY,
    name        text        NOT NULL,
    secret_hash text        NOT NULL,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);

--bun:split

CREATE TABLE IF NOT EXISTS businesses (
    id                      uuid        PRIMARY KEY,
    client_id               text        NOT NULL REFERENCES clients (id),
    external_id             text,
    legal_name              text        NOT NULL,
    tin                     text,
    us_state                text,
    country                 text        NOT NULL,
    entity_type             text,
    phone_number            text,
    activation_at           date,
    naics_code              text,
    default_reporting_basis text        NOT NULL,
    created_at              timestamptz NOT NULL,
    updated_at              timestamptz NOT NULL,
    -- NULL external ids never collide: only imports carry one.
    CONSTRAINT businesses_client_external_id_key UNIQUE (client_id, external_id)
);

--bun:split

-- Keyset pagination per owner over the two sort keys.
CREATE INDEX IF NOT EXISTS businesses_client_created_idx ON businesses (client_id, created_at, id);

--bun:split

CREATE INDEX IF NOT EXISTS businesses_client_legal_name_idx ON businesses (client_id, legal_name, id);

--bun:split

CREATE TABLE IF NOT EXISTS signing_keys (
    kid             text        PRIMARY KEY,
    public_key      bytea       NOT NULL,
    private_key_enc bytea       NOT NULL,
    created_at      timestamptz NOT NULL,
    retired_at      timestamptz
);
