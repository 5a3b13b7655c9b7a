DROP TRIGGER IF EXISTS deliveries_inserted ON deliveries;

--bun:split

DROP TRIGGER IF EXISTS deliveries_updated ON deliveries;

--bun:split

DROP FUNCTION IF EXISTS deliveries_follow();

--bun:split

ALTER TABLE deliveries RESET (fillfactor);

--bun:split

CREATE INDEX IF NOT EXISTS deliveries_lane_idx ON deliveries (endpoint_id, lane, seq) WHERE status = 'pending';

--bun:split

CREATE INDEX IF NOT EXISTS deliveries_failed_idx ON deliveries (endpoint_id, updated_at) WHERE status = 'failed';

--bun:split

CREATE INDEX IF NOT EXISTS deliveries_finished_idx ON deliveries (updated_at) WHERE status <> 'pending';

--bun:split

DROP INDEX IF EXISTS deliveries_created_idx;

--bun:split

DROP TABLE IF EXISTS failures;

--bun:split

DROP TABLE IF EXISTS pending;
