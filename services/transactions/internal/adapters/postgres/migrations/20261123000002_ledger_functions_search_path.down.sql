ALTER FUNCTION ledger_assert_entry_balanced(uuid) RESET search_path;

--bun:split

ALTER FUNCTION ledger_entries_balanced_trigger() RESET search_path;

--bun:split

ALTER FUNCTION ledger_lines_balanced_trigger() RESET search_path;

--bun:split

ALTER FUNCTION ledger_lines_append_only() RESET search_path;

--bun:split

ALTER FUNCTION ledger_entries_append_only() RESET search_path;
