-- acctsync: the sync from the connected company (POST .../acctsync/sync-from).

-- One sync per business. A worker claims a QUEUED sync (or a RUNNING one
-- whose lease expired: its process died) under a new run_id and renews the
-- lease with every page; every write of a run is fenced by its run_id.
-- cursor_position is the provider position of the next page to read.
CREATE TABLE acctsync_syncs (
    business_id       uuid        PRIMARY KEY REFERENCES acctsync_connections (business_id) ON DELETE CASCADE,
    realm_id          text        NOT NULL,
    status            text        NOT NULL CHECK (status IN ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED')),
    run_id            uuid,
    lease_until       timestamptz,
    cursor_position   integer     NOT NULL CHECK (cursor_position >= 1),
    fetched           integer     NOT NULL DEFAULT 0 CHECK (fetched >= 0),
    attempts          integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    requested_at      timestamptz,
    started_at        timestamptz,
    finished_at       timestamptz,
    last_succeeded_at timestamptz,
    last_error        text        NOT NULL DEFAULT '',
    CHECK ((status = 'RUNNING') = (run_id IS NOT NULL))
);
CREATE INDEX acctsync_syncs_waiting ON acctsync_syncs (requested_at) WHERE status IN ('QUEUED', 'RUNNING');

-- The accounts the current sync has read so far; the last page imports
-- them all in one transaction and empties this table for the business.
CREATE TABLE acctsync_sync_staged_accounts (
    business_id          uuid    NOT NULL REFERENCES acctsync_syncs (business_id) ON DELETE CASCADE,
    external_id          text    NOT NULL,
    parent_external_id   text,
    name                 text    NOT NULL,
    fully_qualified_name text    NOT NULL DEFAULT '',
    account_number       text    NOT NULL DEFAULT '',
    account_type         text    NOT NULL,
    account_subtype      text    NOT NULL,
    classification       text    NOT NULL,
    current_balance      bigint  NOT NULL,
    currency             text    NOT NULL DEFAULT '',
    active               boolean NOT NULL,
    PRIMARY KEY (business_id, external_id)
);
