DROP TABLE IF EXISTS aging_write_offs;

--bun:split

DROP TABLE IF EXISTS aging_parties;

--bun:split

DROP TABLE IF EXISTS aging_documents;

--bun:split

DROP TABLE IF EXISTS aging_holders;

--bun:split

DROP TABLE IF EXISTS aging_moves;
