-- The month (1–12) a business's fiscal year starts in; January for the
-- businesses created before it.
ALTER TABLE businesses ADD COLUMN IF NOT EXISTS fiscal_year_start_month smallint NOT NULL DEFAULT 1
    CHECK (fiscal_year_start_month BETWEEN 1 AND 12);
