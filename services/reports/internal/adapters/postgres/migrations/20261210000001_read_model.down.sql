DROP TABLE IF EXISTS freshness;

--bun:split

DROP TABLE IF EXISTS account_days;

--bun:split

DROP TABLE IF EXISTS tag_sets;

--bun:split

DROP TABLE IF EXISTS accounts;

--bun:split

DROP TABLE IF EXISTS entries;
