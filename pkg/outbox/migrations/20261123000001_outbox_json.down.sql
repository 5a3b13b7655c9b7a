ALTER TABLE outbox
    ALTER COLUMN data TYPE jsonb USING data::jsonb,
    ALTER COLUMN headers DROP DEFAULT,
    ALTER COLUMN headers TYPE jsonb USING headers::jsonb,
    ALTER COLUMN headers SET DEFAULT '{}'::jsonb;
