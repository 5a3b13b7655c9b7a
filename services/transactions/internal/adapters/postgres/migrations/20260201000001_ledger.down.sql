DROP TABLE IF EXISTS ledger_journal_entries;

--bun:split

DROP TABLE IF EXISTS ledger_lines;

--bun:split

DROP TABLE IF EXISTS ledger_entries;

--bun:split

DROP SEQUENCE IF EXISTS ledger_entry_number_seq;

--bun:split

DROP TABLE IF EXISTS ledger_accounts;

--bun:split

DROP FUNCTION IF EXISTS ledger_entries_append_only();

--bun:split

DROP FUNCTION IF EXISTS ledger_lines_append_only();

--bun:split

DROP FUNCTION IF EXISTS ledger_lines_balanced_trigger();

--bun:split

DROP FUNCTION IF EXISTS ledger_entries_balanced_trigger();

--bun:split

DROP FUNCTION IF EXISTS ledger_assert_entry_balanced(uuid);
