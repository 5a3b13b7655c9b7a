DROP TABLE IF EXISTS signing_keys;
--bun:split
DROP TABLE IF EXISTS businesses;
--bun:split
DROP TABLE IF EXISTS clients;
