ALTER TABLE ledger_lines ADD CONSTRAINT ledger_lines_entry_fkey FOREIGN KEY (business_id, entry_id)
    REFERENCES ledger_entries (business_id, id);

--bun:split

CREATE OR REPLACE FUNCTION ledger_lines_balanced_trigger() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    PERFORM ledger_assert_entry_balanced(NEW.entry_id);
    RETURN NULL;
END
$$;

--bun:split

DROP TRIGGER IF EXISTS ledger_lines_balanced ON ledger_lines;

--bun:split

CREATE CONSTRAINT TRIGGER ledger_lines_balanced
    AFTER INSERT ON ledger_lines
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_lines_balanced_trigger();

--bun:split

DROP TRIGGER IF EXISTS ledger_lines_open_entries ON ledger_lines;

--bun:split

DROP FUNCTION IF EXISTS ledger_lines_open_entries();

--bun:split

CREATE OR REPLACE FUNCTION ledger_entries_balanced_trigger() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    PERFORM ledger_assert_entry_balanced(NEW.id);
    RETURN NULL;
END
$$;

--bun:split

ALTER TABLE ledger_entries DROP COLUMN IF EXISTS created_xid;

--bun:split

CREATE OR REPLACE FUNCTION ledger_lines_entry_number() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    SELECT e.entry_number INTO NEW.entry_number
      FROM ledger_entries e
     WHERE e.business_id = NEW.business_id AND e.id = NEW.entry_id;
    RETURN NEW;
END
$$;
