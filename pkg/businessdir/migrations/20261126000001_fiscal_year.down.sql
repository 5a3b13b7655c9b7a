ALTER TABLE businesses DROP COLUMN IF EXISTS fiscal_year_start_month;
