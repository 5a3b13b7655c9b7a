CREATE INDEX IF NOT EXISTS deliveries_message_idx ON deliveries (message_id);

--bun:split

ALTER TABLE deliveries ADD CONSTRAINT deliveries_message_key UNIQUE (endpoint_id, message_id);

--bun:split

DROP INDEX IF EXISTS deliveries_message_endpoint_key;
