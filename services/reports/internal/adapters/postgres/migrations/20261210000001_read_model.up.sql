-- The reports service's read model of the ledger, fed only by
-- ledger.entry.posted events (acct.ledger.v1).
--
-- entries: every posted entry applied, keyed by entry id (a redelivered
-- entry is skipped here, whatever the inbox did), with its payload: the
-- service's own journal copy, which `reports rebuild` replays.
CREATE TABLE IF NOT EXISTS entries (
    business_id uuid        NOT NULL,
    entry_id    uuid        NOT NULL,
    day         date        NOT NULL,
    event_time  timestamptz NOT NULL,
    payload     jsonb       NOT NULL,
    applied_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT entries_pkey PRIMARY KEY (business_id, entry_id)
);

--bun:split

-- accounts: every account a line named or had as an ancestor. path is the
-- ancestors' ids, root first. The newest event's names win.
CREATE TABLE IF NOT EXISTS accounts (
    business_id  uuid        NOT NULL,
    id           uuid        NOT NULL,
    stable_name  text,
    name         text        NOT NULL,
    account_type text        NOT NULL,
    subtype      text,
    normality    text,
    path         uuid[]      NOT NULL,
    seen_at      timestamptz NOT NULL,
    CONSTRAINT accounts_pkey PRIMARY KEY (business_id, id)
);

--bun:split

-- tag_sets: the distinct sorted key/value sets lines carry. id is a UUIDv5
-- of the canonical set (the empty set included); kv holds "key<US>value"
-- strings so a tag filter is one array overlap.
CREATE TABLE IF NOT EXISTS tag_sets (
    business_id uuid   NOT NULL,
    id          uuid   NOT NULL,
    tags        jsonb  NOT NULL,
    kv          text[] NOT NULL,
    keys        text[] NOT NULL,
    CONSTRAINT tag_sets_pkey PRIMARY KEY (business_id, id)
);

--bun:split

CREATE INDEX IF NOT EXISTS tag_sets_kv_idx ON tag_sets USING gin (kv);

--bun:split

-- account_days: signed cents (debit positive) per business, day, account
-- and tag set; every entry's lines are added (a reversal is an entry with
-- opposite signs, so it subtracts).
CREATE TABLE IF NOT EXISTS account_days (
    business_id uuid   NOT NULL,
    day         date   NOT NULL,
    account_id  uuid   NOT NULL,
    tag_set_id  uuid   NOT NULL,
    amount      bigint NOT NULL,
    CONSTRAINT account_days_pkey PRIMARY KEY (business_id, day, account_id, tag_set_id)
);

--bun:split

-- freshness: the time of the last event applied per business.
CREATE TABLE IF NOT EXISTS freshness (
    business_id   uuid        NOT NULL PRIMARY KEY,
    last_event_at timestamptz NOT NULL
);
