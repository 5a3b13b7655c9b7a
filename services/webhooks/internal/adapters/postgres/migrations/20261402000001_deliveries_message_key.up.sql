-- One index fewer to write per delivery inserted or updated: the key of a
-- message's delivery to an endpoint leads with the message, so it also
-- serves what the index on the message alone served (the purge's lookup
-- of a message's deliveries, the checks of the reference from
-- deliveries to messages).
CREATE UNIQUE INDEX IF NOT EXISTS deliveries_message_endpoint_key ON deliveries (message_id, endpoint_id);

--bun:split

ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_message_key;

--bun:split

DROP INDEX IF EXISTS deliveries_message_idx;
