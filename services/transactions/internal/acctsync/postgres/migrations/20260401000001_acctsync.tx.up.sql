-- acctsync: the external accounting-software connection of a business.

-- Pending authorizations: the server-kept half of the OAuth CSRF state.
-- Only a hash of the state's secret is stored; a row is deleted when the
-- callback reads it (single use) or once it has expired.
CREATE TABLE acctsync_oauth_states (
    state_hash  bytea       PRIMARY KEY CHECK (length(state_hash) = 32),
    business_id uuid        NOT NULL,
    client_id   text        NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL CHECK (expires_at > created_at)
);
CREATE INDEX acctsync_oauth_states_expires_at ON acctsync_oauth_states (expires_at);

-- One connection per business, its provider tokens AES-256-GCM sealed.
CREATE TABLE acctsync_connections (
    business_id        uuid        PRIMARY KEY,
    realm_id           text        NOT NULL CHECK (realm_id ~ '^[0-9]{1,32}$'),
    connected_by       text        NOT NULL,
    connected_at       timestamptz NOT NULL,
    access_token_enc   bytea       NOT NULL,
    refresh_token_enc  bytea       NOT NULL,
    token_type         text        NOT NULL DEFAULT '',
    access_expires_at  timestamptz NOT NULL,
    refresh_expires_at timestamptz,
    token_version      bigint      NOT NULL DEFAULT 1,
    last_synced_at     timestamptz,
    updated_at         timestamptz NOT NULL
);

-- The imported external chart of accounts. Ids stay stable across
-- re-imports (upsert on the provider's id).
CREATE TABLE acctsync_accounts (
    id                   uuid        PRIMARY KEY,
    business_id          uuid        NOT NULL REFERENCES acctsync_connections (business_id) ON DELETE CASCADE,
    realm_id             text        NOT NULL,
    external_id          text        NOT NULL,
    parent_external_id   text,
    name                 text        NOT NULL,
    fully_qualified_name text        NOT NULL DEFAULT '',
    account_number       text        NOT NULL DEFAULT '',
    account_type         text        NOT NULL,
    account_subtype      text        NOT NULL,
    classification       text        NOT NULL CHECK (classification IN ('Asset', 'Liability', 'Equity', 'Revenue', 'Expense')),
    current_balance      bigint      NOT NULL,
    currency             text        NOT NULL DEFAULT '',
    active               boolean     NOT NULL,
    imported_at          timestamptz NOT NULL,
    UNIQUE (business_id, external_id),
    CHECK (parent_external_id IS DISTINCT FROM external_id)
);
CREATE INDEX acctsync_accounts_parent ON acctsync_accounts (business_id, parent_external_id);

-- The local ledger account each external account maps to, set on import
-- by the default rule (recorded in rule).
CREATE TABLE acctsync_account_map (
    business_id         uuid NOT NULL,
    external_account_id text NOT NULL,
    local_account_id    uuid NOT NULL,
    rule                text NOT NULL,
    PRIMARY KEY (business_id, external_account_id),
    FOREIGN KEY (business_id, external_account_id)
        REFERENCES acctsync_accounts (business_id, external_id) ON DELETE CASCADE
);
