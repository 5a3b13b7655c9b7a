-- The aging report sums the holders open today per party in one ordered
-- pass (a GroupAggregate over this index, one row per party with a sum per
-- bucket), instead of hashing every holder by party and bucket.
CREATE INDEX IF NOT EXISTS aging_holders_party_idx ON aging_holders (business_id, side, party_id)
    INCLUDE (age_day, open, last_day) WHERE open <> 0;

--bun:split

DROP INDEX IF EXISTS aging_holders_open_idx;

--bun:split

-- A holder's moves up to a day (the report's holders spanning the day, and
-- the refresh of a holder's sums) read from the index alone.
CREATE INDEX IF NOT EXISTS aging_moves_holder_amount_idx ON aging_moves (business_id, side, holder_type, holder_id, day)
    INCLUDE (amount);

--bun:split

DROP INDEX IF EXISTS aging_moves_holder_idx;
