-- Webhook endpoints of each platform (client_id). Secrets are sealed
-- (pkg/secretbox, bound to the endpoint and their role); the previous
-- secret also signs until previous_secret_expires_at (a rotation's overlap).
CREATE TABLE IF NOT EXISTS endpoints (
    id                         uuid        PRIMARY KEY,
    client_id                  text        NOT NULL,
    url                        text        NOT NULL,
    description                text        NOT NULL DEFAULT '',
    event_types                text[]      NOT NULL DEFAULT '{}',
    business_ids               uuid[]      NOT NULL DEFAULT '{}',
    disabled                   boolean     NOT NULL DEFAULT false,
    disabled_reason            text,
    ordering                   text        NOT NULL DEFAULT 'business',
    secret                     bytea       NOT NULL,
    previous_secret            bytea,
    previous_secret_expires_at timestamptz,
    failing_since              timestamptz,
    created_at                 timestamptz NOT NULL,
    updated_at                 timestamptz NOT NULL,
    CONSTRAINT endpoints_ordering_check CHECK (ordering IN ('business', 'none'))
);

--bun:split

CREATE INDEX IF NOT EXISTS endpoints_client_idx ON endpoints (client_id, created_at, id);

--bun:split

-- What the service remembers of each entity it has seen change: its newest
-- version applied and whether it is archived (to tell created, updated and
-- archived apart).
CREATE TABLE IF NOT EXISTS entity_states (
    business_id uuid    NOT NULL,
    entity      text    NOT NULL,
    entity_id   text    NOT NULL,
    version     bigint  NOT NULL,
    archived    boolean NOT NULL,
    CONSTRAINT entity_states_pkey PRIMARY KEY (business_id, entity, entity_id)
);

--bun:split

-- Webhook events of businesses the service has not heard of yet (their
-- business.created comes on another topic): fanned out when it arrives.
CREATE TABLE IF NOT EXISTS parked_events (
    business_id uuid        NOT NULL,
    seq         bigint      GENERATED ALWAYS AS IDENTITY,
    event       jsonb       NOT NULL,
    parked_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT parked_events_pkey PRIMARY KEY (business_id, seq)
);

--bun:split

-- One row per webhook event sent to at least one endpoint: its body, the
-- same bytes on every attempt (they are signed).
CREATE TABLE IF NOT EXISTS messages (
    id          uuid        PRIMARY KEY,
    client_id   text        NOT NULL,
    business_id uuid,
    type        text        NOT NULL,
    body        bytea       NOT NULL,
    created_at  timestamptz NOT NULL
);

--bun:split

-- One row per message and endpoint. lane orders what is sent: the business
-- id for an endpoint with ordering 'business' (its events go one at a
-- time, in seq order), the delivery's own id otherwise.
CREATE TABLE IF NOT EXISTS deliveries (
    id              uuid        PRIMARY KEY,
    endpoint_id     uuid        NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
    message_id      uuid        NOT NULL REFERENCES messages (id),
    lane            text        NOT NULL,
    seq             bigint      GENERATED ALWAYS AS IDENTITY,
    event_type      text        NOT NULL,
    business_id     uuid,
    status          text        NOT NULL,
    attempts        integer     NOT NULL DEFAULT 0,
    next_attempt_at timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT deliveries_status_check CHECK (status IN ('pending', 'delivered', 'failed')),
    CONSTRAINT deliveries_message_key UNIQUE (endpoint_id, message_id)
);

--bun:split

CREATE INDEX IF NOT EXISTS deliveries_lane_idx ON deliveries (endpoint_id, lane, seq) WHERE status = 'pending';

--bun:split

CREATE INDEX IF NOT EXISTS deliveries_list_idx ON deliveries (endpoint_id, created_at, id);

--bun:split

CREATE INDEX IF NOT EXISTS deliveries_failed_idx ON deliveries (endpoint_id, updated_at) WHERE status = 'failed';

--bun:split

CREATE INDEX IF NOT EXISTS deliveries_message_idx ON deliveries (message_id);

--bun:split

CREATE INDEX IF NOT EXISTS deliveries_finished_idx ON deliveries (updated_at) WHERE status <> 'pending';

--bun:split

-- One row per lane with a pending delivery: when its head may go (due_at)
-- and until when a dispatcher holds it (lease_until).
CREATE TABLE IF NOT EXISTS lanes (
    endpoint_id uuid        NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
    lane        text        NOT NULL,
    due_at      timestamptz NOT NULL,
    lease_until timestamptz,
    CONSTRAINT lanes_pkey PRIMARY KEY (endpoint_id, lane)
);

--bun:split

CREATE INDEX IF NOT EXISTS lanes_due_idx ON lanes (due_at);

--bun:split

-- An endpoint's due lanes, soonest first (the claim visits endpoints one
-- by one).
CREATE INDEX IF NOT EXISTS lanes_endpoint_due_idx ON lanes (endpoint_id, due_at);

--bun:split

CREATE INDEX IF NOT EXISTS lanes_leased_idx ON lanes (endpoint_id) WHERE lease_until IS NOT NULL;

--bun:split

-- Every attempt of a delivery.
CREATE TABLE IF NOT EXISTS attempts (
    id            uuid        PRIMARY KEY,
    delivery_id   uuid        NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    number        integer     NOT NULL,
    attempted_at  timestamptz NOT NULL,
    status_code   integer,
    latency_ms    bigint      NOT NULL,
    response      text        NOT NULL DEFAULT '',
    error         text,
    next_retry_at timestamptz
);

--bun:split

CREATE INDEX IF NOT EXISTS attempts_delivery_idx ON attempts (delivery_id, attempted_at DESC);
