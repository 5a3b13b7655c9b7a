-- General ledger detail (GET /ledger/accounts/{id}/lines): an account's
-- lines in (entry_at, entry_number, id) order with a running balance, at
-- the same cost on any page of an account with millions of lines.
--
-- 1. Each line carries its entry's number, so that the order is one index
-- (below). The service writes it with the line; a writer that leaves it out
-- gets it from the entry (trigger ledger_lines_entry_number).
ALTER TABLE ledger_lines ADD COLUMN IF NOT EXISTS entry_number bigint;

--bun:split

-- The lines already written: the append-only guard is lifted for this one
-- statement of the migration's transaction (which holds the table's lock).
ALTER TABLE ledger_lines DISABLE TRIGGER ledger_lines_append_only;

--bun:split

UPDATE ledger_lines l SET entry_number = e.entry_number
  FROM ledger_entries e
 WHERE e.business_id = l.business_id AND e.id = l.entry_id AND l.entry_number IS NULL;

--bun:split

ALTER TABLE ledger_lines ENABLE TRIGGER ledger_lines_append_only;

--bun:split

ALTER TABLE ledger_lines ALTER COLUMN entry_number SET NOT NULL;

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

--bun:split

DROP TRIGGER IF EXISTS ledger_lines_entry_number ON ledger_lines;

--bun:split

CREATE TRIGGER ledger_lines_entry_number
    BEFORE INSERT ON ledger_lines
    FOR EACH ROW WHEN (NEW.entry_number IS NULL)
    EXECUTE FUNCTION ledger_lines_entry_number();

--bun:split

-- 2. The keyset of an account's lines. It replaces ledger_lines_account_idx
-- (its prefix) and carries direction and amount, so that the sums of a
-- boundary day below are read from the index alone.
CREATE INDEX IF NOT EXISTS ledger_lines_account_order_idx
    ON ledger_lines (business_id, account_id, entry_at, entry_number, id) INCLUDE (direction, amount);

--bun:split

DROP INDEX IF EXISTS ledger_lines_account_idx;

--bun:split

-- 3. Per account and UTC day, the debits, credits and number of its lines:
-- the balance before any instant is the sum of the days before it plus the
-- lines of its own day, a few thousand rows whatever the account's size.
-- Kept exact by the trigger below, in the transaction that writes the
-- lines (lines are append-only: inserts are the only change). Each row is
-- one of 8 stripes (the writing session's pid modulo 8), so that concurrent
-- postings to one account and day rarely wait for each other's commit on
-- one row; readers add the stripes up.
CREATE TABLE IF NOT EXISTS ledger_account_day_totals (
    business_id uuid     NOT NULL,
    account_id  uuid     NOT NULL,
    day         date     NOT NULL,
    stripe      smallint NOT NULL,
    debits      bigint   NOT NULL,
    credits     bigint   NOT NULL,
    lines       bigint   NOT NULL,
    CONSTRAINT ledger_account_day_totals_pkey PRIMARY KEY (business_id, account_id, day, stripe)
) WITH (fillfactor = 80);

--bun:split

-- One statement's lines, grouped (a bulk import adds to each account and
-- day once), in key order so that concurrent writers lock rows in the same
-- order.
CREATE OR REPLACE FUNCTION ledger_lines_day_totals() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO ledger_account_day_totals AS t (business_id, account_id, day, stripe, debits, credits, lines)
    SELECT n.business_id, n.account_id, (n.entry_at AT TIME ZONE 'UTC')::date, (pg_backend_pid() % 8)::smallint,
           coalesce(sum(n.amount) FILTER (WHERE n.direction = 'DEBIT'), 0),
           coalesce(sum(n.amount) FILTER (WHERE n.direction = 'CREDIT'), 0),
           count(*)
      FROM new_lines n
     GROUP BY 1, 2, 3
     ORDER BY 1, 2, 3
    ON CONFLICT (business_id, account_id, day, stripe) DO UPDATE
       SET debits = t.debits + EXCLUDED.debits, credits = t.credits + EXCLUDED.credits, lines = t.lines + EXCLUDED.lines;
    RETURN NULL;
END
$$;

--bun:split

DROP TRIGGER IF EXISTS ledger_lines_day_totals ON ledger_lines;

--bun:split

CREATE TRIGGER ledger_lines_day_totals
    AFTER INSERT ON ledger_lines
    REFERENCING NEW TABLE AS new_lines
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_lines_day_totals();

--bun:split

-- The lines already written (the table is locked since the ALTER TABLE
-- above: nothing is inserted between this sum and the trigger).
INSERT INTO ledger_account_day_totals (business_id, account_id, day, stripe, debits, credits, lines)
SELECT l.business_id, l.account_id, (l.entry_at AT TIME ZONE 'UTC')::date, 0,
       coalesce(sum(l.amount) FILTER (WHERE l.direction = 'DEBIT'), 0),
       coalesce(sum(l.amount) FILTER (WHERE l.direction = 'CREDIT'), 0),
       count(*)
  FROM ledger_lines l
 GROUP BY 1, 2, 3
ON CONFLICT (business_id, account_id, day, stripe) DO NOTHING;
