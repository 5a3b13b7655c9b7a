-- The local projection of auth-tokens' businesses, fed by acct.business.v1.
CREATE TABLE IF NOT EXISTS businesses (
    id                      uuid        PRIMARY KEY,
    client_id               text        NOT NULL,
    external_id             text,
    legal_name              text        NOT NULL,
    country                 text        NOT NULL,
    us_state                text,
    entity_type             text,
    phone_number            text,
    activation_at           text,
    naics_code              text,
    default_reporting_basis text        NOT NULL,
    created_at              timestamptz NOT NULL,
    updated_at              timestamptz NOT NULL,
    last_event_time         timestamptz NOT NULL
);

--bun:split

CREATE INDEX IF NOT EXISTS businesses_client_id_idx ON businesses (client_id);
