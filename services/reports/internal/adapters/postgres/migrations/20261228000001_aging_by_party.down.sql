CREATE INDEX IF NOT EXISTS aging_moves_holder_idx ON aging_moves (business_id, side, holder_type, holder_id, day);
DROP INDEX IF EXISTS aging_moves_holder_amount_idx;
CREATE INDEX IF NOT EXISTS aging_holders_open_idx ON aging_holders (business_id, side, last_day)
    INCLUDE (party_id, age_day, open) WHERE open <> 0;
DROP INDEX IF EXISTS aging_holders_party_idx;
