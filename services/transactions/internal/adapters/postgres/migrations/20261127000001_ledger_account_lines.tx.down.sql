DROP TRIGGER IF EXISTS ledger_lines_day_totals ON ledger_lines;

--bun:split

DROP FUNCTION IF EXISTS ledger_lines_day_totals();

--bun:split

DROP TABLE IF EXISTS ledger_account_day_totals;

--bun:split

CREATE INDEX IF NOT EXISTS ledger_lines_account_idx ON ledger_lines (business_id, account_id, entry_at);

--bun:split

DROP INDEX IF EXISTS ledger_lines_account_order_idx;

--bun:split

DROP TRIGGER IF EXISTS ledger_lines_entry_number ON ledger_lines;

--bun:split

DROP FUNCTION IF EXISTS ledger_lines_entry_number();

--bun:split

ALTER TABLE ledger_lines DROP COLUMN IF EXISTS entry_number;
