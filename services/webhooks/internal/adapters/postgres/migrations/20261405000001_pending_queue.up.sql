-- The pending deliveries, in their own small table: what the dispatchers
-- read a lane's run from (a copy of what they need of each delivery), a
-- row added on enqueue and deleted once the delivery is finished. The
-- deliveries table then has no index on what a recorded attempt changes
-- (status, lane, updated_at, ...), so recording one updates its row in
-- place (a heap-only tuple: no index entries written), with room left on
-- each page for that.
CREATE TABLE IF NOT EXISTS pending (
    delivery_id     uuid        PRIMARY KEY REFERENCES deliveries (id) ON DELETE CASCADE,
    endpoint_id     uuid        NOT NULL,
    lane            text        NOT NULL,
    seq             bigint      NOT NULL,
    message_id      uuid        NOT NULL,
    event_type      text        NOT NULL,
    business_id     uuid,
    attempts        integer     NOT NULL,
    next_attempt_at timestamptz,
    created_at      timestamptz NOT NULL,
    CONSTRAINT pending_lane_key UNIQUE (endpoint_id, lane, seq)
);

--bun:split

INSERT INTO pending (delivery_id, endpoint_id, lane, seq, message_id, event_type, business_id, attempts, next_attempt_at, created_at)
SELECT id, endpoint_id, lane, seq, message_id, event_type, business_id, attempts, next_attempt_at, created_at
FROM deliveries WHERE status = 'pending'
ON CONFLICT DO NOTHING;

--bun:split

-- When each failed delivery failed, for POST .../recover?since= (the
-- deliveries table keeps no index on its status or updated_at).
CREATE TABLE IF NOT EXISTS failures (
    delivery_id uuid        PRIMARY KEY REFERENCES deliveries (id) ON DELETE CASCADE,
    endpoint_id uuid        NOT NULL,
    failed_at   timestamptz NOT NULL
);

--bun:split

CREATE INDEX IF NOT EXISTS failures_endpoint_idx ON failures (endpoint_id, failed_at);

--bun:split

INSERT INTO failures (delivery_id, endpoint_id, failed_at)
SELECT id, endpoint_id, updated_at FROM deliveries WHERE status = 'failed'
ON CONFLICT DO NOTHING;

--bun:split

-- pending and failures follow deliveries whatever writes them (an
-- enqueue, a recorded attempt, a resend, an endpoint disabled, a replica
-- of the previous version during a rolling upgrade): once per statement,
-- from the rows it wrote.
-- (The function keeps the schema it was made in: it also runs for
-- sessions whose search path does not name it.)
CREATE OR REPLACE FUNCTION deliveries_follow() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        -- By key (an array, whatever the planner guesses of the rows).
        DELETE FROM pending WHERE delivery_id = ANY (ARRAY(SELECT c.id FROM changed c WHERE c.status <> 'pending'));
    END IF;
    INSERT INTO pending (delivery_id, endpoint_id, lane, seq, message_id, event_type, business_id, attempts, next_attempt_at, created_at)
    SELECT c.id, c.endpoint_id, c.lane, c.seq, c.message_id, c.event_type, c.business_id, c.attempts, c.next_attempt_at, c.created_at
    FROM changed c WHERE c.status = 'pending'
    ON CONFLICT (delivery_id) DO UPDATE SET lane = EXCLUDED.lane, attempts = EXCLUDED.attempts, next_attempt_at = EXCLUDED.next_attempt_at
    WHERE (pending.lane, pending.attempts, pending.next_attempt_at) IS DISTINCT FROM (EXCLUDED.lane, EXCLUDED.attempts, EXCLUDED.next_attempt_at);
    INSERT INTO failures (delivery_id, endpoint_id, failed_at)
    SELECT c.id, c.endpoint_id, c.updated_at FROM changed c WHERE c.status = 'failed'
    ON CONFLICT (delivery_id) DO UPDATE SET failed_at = EXCLUDED.failed_at;
    RETURN NULL;
END
$$;

--bun:split

CREATE OR REPLACE TRIGGER deliveries_inserted AFTER INSERT ON deliveries
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION deliveries_follow();

--bun:split

CREATE OR REPLACE TRIGGER deliveries_updated AFTER UPDATE ON deliveries
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION deliveries_follow();

--bun:split

-- The retention's purge reads old deliveries by when they were created.
CREATE INDEX IF NOT EXISTS deliveries_created_idx ON deliveries (created_at);

--bun:split

DROP INDEX IF EXISTS deliveries_lane_idx;

--bun:split

DROP INDEX IF EXISTS deliveries_failed_idx;

--bun:split

DROP INDEX IF EXISTS deliveries_finished_idx;

--bun:split

-- Room on each page for a delivery's recorded version beside the one it
-- replaces (the first attempt's answer is kept in the row).
ALTER TABLE deliveries SET (fillfactor = 60);
