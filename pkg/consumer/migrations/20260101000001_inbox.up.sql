-- One row per event applied by this service's handlers: the primary key is
-- what makes redelivered events no-ops.
CREATE TABLE IF NOT EXISTS inbox (
    event_id    uuid        PRIMARY KEY,
    topic       text        NOT NULL,
    "partition" integer     NOT NULL,
    "offset"    bigint      NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);

--bun:split

CREATE INDEX IF NOT EXISTS inbox_received_at_idx ON inbox (received_at);

--bun:split

-- Messages given up on (also published to <topic>.dlq), for operators.
CREATE TABLE IF NOT EXISTS dead_letters (
    id          bigserial   PRIMARY KEY,
    topic       text        NOT NULL,
    "partition" integer     NOT NULL,
    "offset"    bigint      NOT NULL,
    event_id    uuid,
    event_type  text,
    key         bytea,
    headers     jsonb       NOT NULL DEFAULT '{}'::jsonb,
    payload     bytea,
    error       text        NOT NULL,
    attempts    integer     NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (topic, "partition", "offset")
);
