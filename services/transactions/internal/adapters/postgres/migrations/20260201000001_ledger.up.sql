-- The chart of accounts: one tree per business under five root accounts.
CREATE TABLE IF NOT EXISTS ledger_accounts (
    id              uuid        PRIMARY KEY,
    business_id     uuid        NOT NULL,
    parent_id       uuid,
    name            text        NOT NULL,
    account_number  text,
    stable_name     text,
    normality       text        NOT NULL CHECK (normality IN ('DEBIT', 'CREDIT')),
    account_type    text        NOT NULL CHECK (account_type IN ('ASSET', 'LIABILITY', 'EQUITY', 'REVENUE', 'EXPENSE')),
    account_subtype text        NOT NULL,
    is_default      boolean     NOT NULL DEFAULT false,
    position        integer     NOT NULL,
    archived_at     timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT ledger_accounts_business_id_key UNIQUE (business_id, id),
    -- NULL stable names never collide: only named accounts are unique.
    CONSTRAINT ledger_accounts_stable_name_key UNIQUE (business_id, stable_name),
    -- A parent belongs to the same business.
    CONSTRAINT ledger_accounts_parent_fkey FOREIGN KEY (business_id, parent_id)
        REFERENCES ledger_accounts (business_id, id)
);

--bun:split

CREATE INDEX IF NOT EXISTS ledger_accounts_parent_idx ON ledger_accounts (parent_id);

--bun:split

-- Entry numbers come from one sequence: monotonic within every business
-- (and across them), without a per-business counter row that would
-- serialise every posting of a business until its commit.
CREATE SEQUENCE IF NOT EXISTS ledger_entry_number_seq;

--bun:split

CREATE TABLE IF NOT EXISTS ledger_entries (
    id               uuid        PRIMARY KEY,
    business_id      uuid        NOT NULL,
    entry_number     bigint      NOT NULL DEFAULT nextval('ledger_entry_number_seq'),
    entry_type       text        NOT NULL,
    agent            text        NOT NULL,
    date             timestamptz NOT NULL,
    entry_at         timestamptz NOT NULL,
    source_type      text        NOT NULL,
    source_id        text        NOT NULL,
    source_version   text        NOT NULL DEFAULT '',
    reversal_of_id   uuid,
    reversal_id      uuid,
    memo             text,
    reference_number text,
    metadata         jsonb,
    tags             jsonb       NOT NULL DEFAULT '[]',
    created_at       timestamptz NOT NULL,
    CONSTRAINT ledger_entries_business_id_key UNIQUE (business_id, id),
    CONSTRAINT ledger_entries_reversal_of_fkey FOREIGN KEY (business_id, reversal_of_id)
        REFERENCES ledger_entries (business_id, id),
    CONSTRAINT ledger_entries_reversal_fkey FOREIGN KEY (business_id, reversal_id)
        REFERENCES ledger_entries (business_id, id),
    -- A reversal is never reversed itself.
    CONSTRAINT ledger_entries_reversal_chain_check CHECK (reversal_of_id IS NULL OR reversal_id IS NULL)
);

--bun:split

-- Each version of a source posts once...
CREATE UNIQUE INDEX IF NOT EXISTS ledger_entries_source_version_key
    ON ledger_entries (business_id, source_type, source_id, source_version) WHERE reversal_of_id IS NULL;

--bun:split

-- ...and a source has at most one live (unreversed) entry.
CREATE UNIQUE INDEX IF NOT EXISTS ledger_entries_source_live_key
    ON ledger_entries (business_id, source_type, source_id) WHERE reversal_of_id IS NULL AND reversal_id IS NULL;

--bun:split

-- An entry is reversed at most once.
CREATE UNIQUE INDEX IF NOT EXISTS ledger_entries_reversal_of_key
    ON ledger_entries (reversal_of_id) WHERE reversal_of_id IS NOT NULL;

--bun:split

-- Keyset pagination over the three sort keys.
CREATE INDEX IF NOT EXISTS ledger_entries_entry_at_idx ON ledger_entries (business_id, entry_at, id);

--bun:split

CREATE INDEX IF NOT EXISTS ledger_entries_entry_number_idx ON ledger_entries (business_id, entry_number, id);

--bun:split

CREATE INDEX IF NOT EXISTS ledger_entries_created_at_idx ON ledger_entries (business_id, created_at, id);

--bun:split

CREATE TABLE IF NOT EXISTS ledger_lines (
    id          uuid        PRIMARY KEY,
    entry_id    uuid        NOT NULL,
    business_id uuid        NOT NULL,
    line_number integer     NOT NULL,
    account_id  uuid        NOT NULL,
    direction   text        NOT NULL CHECK (direction IN ('DEBIT', 'CREDIT')),
    amount      bigint      NOT NULL CHECK (amount > 0),
    -- The entry's entry_at, copied so balances never join the entries.
    entry_at    timestamptz NOT NULL,
    memo        text,
    tags        jsonb       NOT NULL DEFAULT '[]',
    created_at  timestamptz NOT NULL,
    CONSTRAINT ledger_lines_entry_fkey FOREIGN KEY (business_id, entry_id)
        REFERENCES ledger_entries (business_id, id),
    CONSTRAINT ledger_lines_account_fkey FOREIGN KEY (business_id, account_id)
        REFERENCES ledger_accounts (business_id, id),
    CONSTRAINT ledger_lines_entry_line_key UNIQUE (entry_id, line_number)
);

--bun:split

-- Balances per account and period, and entries touching an account.
CREATE INDEX IF NOT EXISTS ledger_lines_account_idx ON ledger_lines (business_id, account_id, entry_at);

--bun:split

-- Balanced in the database, whatever code writes: an entry must have at
-- least two lines and equal debits and credits. Checked at commit (the
-- triggers below are deferred), so an entry and its lines are inserted in
-- any order within one transaction.
CREATE OR REPLACE FUNCTION ledger_assert_entry_balanced(p_entry uuid) RETURNS void
LANGUAGE plpgsql AS $$
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
     WHERE entry_id = p_entry;
    IF n < 2 THEN
        RAISE EXCEPTION 'ledger entry % has % line(s): an entry needs at least two', p_entry, n
            USING ERRCODE = 'check_violation', CONSTRAINT = 'ledger_entry_balanced';
    END IF;
    IF debits <> credits THEN
        RAISE EXCEPTION 'ledger entry % is unbalanced: debits % <> credits %', p_entry, debits, credits
            USING ERRCODE = 'check_violation', CONSTRAINT = 'ledger_entry_balanced';
    END IF;
END
$$;

--bun:split

CREATE OR REPLACE FUNCTION ledger_entries_balanced_trigger() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM ledger_assert_entry_balanced(NEW.id);
    RETURN NULL;
END
$$;

--bun:split

CREATE OR REPLACE FUNCTION ledger_lines_balanced_trigger() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM ledger_assert_entry_balanced(NEW.entry_id);
    RETURN NULL;
END
$$;

--bun:split

DROP TRIGGER IF EXISTS ledger_entries_balanced ON ledger_entries;

--bun:split

CREATE CONSTRAINT TRIGGER ledger_entries_balanced
    AFTER INSERT ON ledger_entries
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_entries_balanced_trigger();

--bun:split

DROP TRIGGER IF EXISTS ledger_lines_balanced ON ledger_lines;

--bun:split

CREATE CONSTRAINT TRIGGER ledger_lines_balanced
    AFTER INSERT ON ledger_lines
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_lines_balanced_trigger();

--bun:split

-- Append-only: lines never change or go; entries never go and change only
-- to record, once, the entry that reversed them.
CREATE OR REPLACE FUNCTION ledger_lines_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger lines are append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;

--bun:split

DROP TRIGGER IF EXISTS ledger_lines_append_only ON ledger_lines;

--bun:split

CREATE TRIGGER ledger_lines_append_only
    BEFORE UPDATE OR DELETE ON ledger_lines
    FOR EACH ROW EXECUTE FUNCTION ledger_lines_append_only();

--bun:split

DROP TRIGGER IF EXISTS ledger_lines_no_truncate ON ledger_lines;

--bun:split

CREATE TRIGGER ledger_lines_no_truncate
    BEFORE TRUNCATE ON ledger_lines
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_lines_append_only();

--bun:split

CREATE OR REPLACE FUNCTION ledger_entries_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE'
       AND OLD.reversal_id IS NULL AND NEW.reversal_id IS NOT NULL
       AND (to_jsonb(NEW) - 'reversal_id') = (to_jsonb(OLD) - 'reversal_id')
       AND EXISTS (SELECT 1 FROM ledger_entries r
                    WHERE r.id = NEW.reversal_id AND r.reversal_of_id = OLD.id AND r.business_id = OLD.business_id)
    THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'ledger entries are append-only: % refused (only setting reversal_id once, to the entry reversing it, is allowed)', TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;

--bun:split

DROP TRIGGER IF EXISTS ledger_entries_append_only ON ledger_entries;

--bun:split

CREATE TRIGGER ledger_entries_append_only
    BEFORE UPDATE OR DELETE ON ledger_entries
    FOR EACH ROW EXECUTE FUNCTION ledger_entries_append_only();

--bun:split

DROP TRIGGER IF EXISTS ledger_entries_no_truncate ON ledger_entries;

--bun:split

CREATE TRIGGER ledger_entries_no_truncate
    BEFORE TRUNCATE ON ledger_entries
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_append_only();

--bun:split

-- Manual journal entries (POST /ledger/journal-entries): the request as the
-- caller sent it, idempotent on external_id by the hash of its content.
CREATE TABLE IF NOT EXISTS ledger_journal_entries (
    id               uuid        PRIMARY KEY,
    business_id      uuid        NOT NULL,
    external_id      text,
    entry_id         uuid        NOT NULL,
    created_by       text        NOT NULL,
    memo             text        NOT NULL,
    reference_number text,
    metadata         jsonb,
    tags             jsonb       NOT NULL DEFAULT '[]',
    -- [{id, external_id, memo, line_item_id, tags}] in request order.
    line_items       jsonb       NOT NULL,
    request_hash     bytea       NOT NULL,
    created_at       timestamptz NOT NULL,
    CONSTRAINT ledger_journal_entries_external_id_key UNIQUE (business_id, external_id),
    CONSTRAINT ledger_journal_entries_entry_fkey FOREIGN KEY (business_id, entry_id)
        REFERENCES ledger_entries (business_id, id)
);
