-- The month a business's fiscal year starts in (1 = January), from
-- business events; businesses projected before it have January.
ALTER TABLE businesses ADD COLUMN IF NOT EXISTS fiscal_year_start_month smallint NOT NULL DEFAULT 1
    CHECK (fiscal_year_start_month BETWEEN 1 AND 12);
