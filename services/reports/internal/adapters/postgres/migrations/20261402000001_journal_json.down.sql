ALTER TABLE entries ALTER COLUMN payload TYPE jsonb USING payload::jsonb;
