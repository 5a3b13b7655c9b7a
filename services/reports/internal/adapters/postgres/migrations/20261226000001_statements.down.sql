DROP TABLE IF EXISTS rebuild_pending;

--bun:split

ALTER TABLE cash_doc_lines DROP COLUMN IF EXISTS role;

--bun:split

DROP TABLE IF EXISTS cash_months;

--bun:split

DROP INDEX IF EXISTS cash_recognized_day_idx;

--bun:split

DROP INDEX IF EXISTS entries_day_idx;

--bun:split

DROP TABLE IF EXISTS account_months;
