-- Less work per line of the journal, the same guarantees:
-- - each entry's balance is checked once, at commit, instead of once per
--   entry and once more per line (an import of n entries of two lines
--   queued 3n deferred checks; now n, plus one check per statement);
-- - a line's entry is looked up once per entry of its statement, instead
--   of a foreign key check (and a row lock) per line.
--
-- 1. An entry records the transaction that created it (the top-level
-- transaction, also from inside a savepoint; xid8 never wraps around).
-- Entries written before this column existed keep NULL: they are closed.
ALTER TABLE ledger_entries ADD COLUMN IF NOT EXISTS created_xid xid8;

--bun:split

ALTER TABLE ledger_entries ALTER COLUMN created_xid SET DEFAULT pg_current_xact_id();

--bun:split

-- 2. The entry's deferred check (ledger_entries_balanced) reads its lines
-- at commit, so lines written in the entry's own transaction are covered
-- by it. Its query is inlined (a call of ledger_assert_entry_balanced,
-- which sets its own search_path, only when it is about to fail, for the
-- message). It notes, for the rest of the transaction, that checks have
-- run: after SET CONSTRAINTS ... IMMEDIATE, lines still to come are
-- checked by their statement (3.).
CREATE OR REPLACE FUNCTION ledger_entries_balanced_trigger() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    n       bigint;
    debits  numeric;
    credits numeric;
BEGIN
    SELECT count(*),
           coalesce(sum(amount) FILTER (WHERE direction = 'DEBIT'), 0),
           coalesce(sum(amount) FILTER (WHERE direction = 'CREDIT'), 0)
      INTO n, debits, credits
      FROM ledger_lines
     WHERE entry_id = NEW.id;
    IF n < 2 OR debits <> credits THEN
        PERFORM ledger_assert_entry_balanced(NEW.id);
    END IF;
    PERFORM set_config('acct.ledger_entries_checked', 'on', true);
    RETURN NULL;
END
$$;

--bun:split

-- 3. Lines join only an existing entry of their business that their own
-- transaction created: a line added to a committed entry is refused at
-- once (it would escape the entry's check, which ran at that entry's
-- commit). This replaces the per-row foreign key to ledger_entries (the
-- same error: foreign_key_violation on ledger_lines_entry_fkey): one
-- index lookup per entry of the statement, without the foreign key's
-- row lock on each entry (entries are never deleted nor rekeyed: see
-- ledger_entries_append_only), instead of a lock per line and a deferred
-- check per line. The lookup is a subquery per entry, by id alone, on
-- purpose: the plan is cached for the session, and one made while the
-- journal was small must not be a join that scans it, nor a lookup on
-- (business_id, id) through an index of the business's entries (such as
-- (business_id, created_at, id)), which grows with the journal.
CREATE OR REPLACE FUNCTION ledger_lines_open_entries() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    bad_business uuid;
    bad_entry    uuid;
    creator      xid8;
BEGIN
    SELECT s.business_id, s.entry_id, s.creator INTO bad_business, bad_entry, creator
      FROM (SELECT d.business_id, d.entry_id,
                   (SELECT CASE WHEN e.business_id = d.business_id THEN coalesce(e.created_xid, '0'::xid8) END
                      FROM ledger_entries e WHERE e.id = d.entry_id) AS creator
              FROM (SELECT DISTINCT business_id, entry_id FROM new_lines) d) s
     WHERE s.creator IS DISTINCT FROM pg_current_xact_id()
     ORDER BY s.creator IS NULL DESC
     LIMIT 1;
    IF FOUND AND creator IS NULL THEN
        RAISE EXCEPTION 'insert or update on table "ledger_lines" violates foreign key constraint "ledger_lines_entry_fkey"'
            USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'ledger_lines_entry_fkey',
                  DETAIL = format('Key (business_id, entry_id)=(%s, %s) is not present in table "ledger_entries".', bad_business, bad_entry);
    END IF;
    IF FOUND THEN
        RAISE EXCEPTION 'ledger entry % is committed: lines are added only in the transaction that creates their entry', bad_entry
            USING ERRCODE = 'check_violation', CONSTRAINT = 'ledger_entry_balanced';
    END IF;
    IF current_setting('acct.ledger_entries_checked', true) = 'on' THEN
        PERFORM ledger_assert_entry_balanced(d.entry_id) FROM (SELECT DISTINCT entry_id FROM new_lines) d;
    END IF;
    RETURN NULL;
END
$$;

--bun:split

DROP TRIGGER IF EXISTS ledger_lines_open_entries ON ledger_lines;

--bun:split

CREATE TRIGGER ledger_lines_open_entries
    AFTER INSERT ON ledger_lines
    REFERENCING NEW TABLE AS new_lines
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_lines_open_entries();

--bun:split

DROP TRIGGER IF EXISTS ledger_lines_balanced ON ledger_lines;

--bun:split

DROP FUNCTION IF EXISTS ledger_lines_balanced_trigger();

--bun:split

ALTER TABLE ledger_lines DROP CONSTRAINT IF EXISTS ledger_lines_entry_fkey;

--bun:split

-- 4. A line written without its entry's number takes it from the entry,
-- looked up by id alone for the same reason as in 3.
CREATE OR REPLACE FUNCTION ledger_lines_entry_number() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    NEW.entry_number := (SELECT CASE WHEN e.business_id = NEW.business_id THEN e.entry_number END
                           FROM ledger_entries e WHERE e.id = NEW.entry_id);
    RETURN NEW;
END
$$;
