CREATE TABLE IF NOT EXISTS outbox (
    seq        bigserial PRIMARY KEY,
    id         uuid        NOT NULL UNIQUE,
    topic      text        NOT NULL,
    key        text        NOT NULL,
    type       text        NOT NULL,
    source     text        NOT NULL,
    subject    text        NOT NULL DEFAULT '',
    time       timestamptz NOT NULL,
    headers    jsonb       NOT NULL DEFAULT '{}'::jsonb,
    data       jsonb       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    sent_at    timestamptz
);

--bun:split

-- The relay reads unsent rows in seq order: a partial index keeps that scan
-- proportional to the backlog, not to the retained history.
CREATE INDEX IF NOT EXISTS outbox_unsent_idx ON outbox (seq) WHERE sent_at IS NULL;

--bun:split

CREATE INDEX IF NOT EXISTS outbox_sent_at_idx ON outbox (sent_at) WHERE sent_at IS NOT NULL;
