-- The ledger's guard functions name their tables and each other without a
-- schema: pin each to the schema it was created in, so that the balance
-- and append-only checks hold for a session with any search_path (a
-- script, a report tool or pgbench with schema-qualified names) instead
-- of failing on "relation ledger_entries does not exist".
ALTER FUNCTION ledger_assert_entry_balanced(uuid) SET search_path FROM CURRENT;

--bun:split

ALTER FUNCTION ledger_entries_balanced_trigger() SET search_path FROM CURRENT;

--bun:split

ALTER FUNCTION ledger_lines_balanced_trigger() SET search_path FROM CURRENT;

--bun:split

ALTER FUNCTION ledger_lines_append_only() SET search_path FROM CURRENT;

--bun:split

ALTER FUNCTION ledger_entries_append_only() SET search_path FROM CURRENT;
