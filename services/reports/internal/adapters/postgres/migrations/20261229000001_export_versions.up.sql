-- A counter per business that every change of its read model moves on, in
-- the transaction of the change: the exports fingerprint their files with
-- it, so an export made before a change is never handed out after it. A
-- counter incremented under its row lock (not a sequence value nor a
-- timestamp) never goes back and never misses a change that commits late.
CREATE TABLE IF NOT EXISTS export_versions (
    business_id uuid   NOT NULL PRIMARY KEY,
    version     bigint NOT NULL
);
