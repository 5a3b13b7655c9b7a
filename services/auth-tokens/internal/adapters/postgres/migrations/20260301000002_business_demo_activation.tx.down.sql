ALTER TABLE businesses ALTER COLUMN activation_at DROP NOT NULL;

--bun:split

ALTER TABLE businesses ALTER COLUMN activation_at TYPE date
    USING ((activation_at AT TIME ZONE 'UTC')::date);

--bun:split

ALTER TABLE businesses DROP COLUMN IF EXISTS is_demo;
