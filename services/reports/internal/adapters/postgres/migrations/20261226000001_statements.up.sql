-- Month totals for the statements that read balances (balance sheet, trial
-- balance, cash flows): a balance on a day is the months before it plus the
-- days of its month, so no statement reads more than a month of days.
--
-- account_months: account_days summed per month (the first day of the
-- month) and account, all tag sets together; cash_months: the same of
-- cash_days. Both are maintained in the transactions that write the days.
CREATE TABLE IF NOT EXISTS account_months (
    business_id uuid   NOT NULL,
    month       date   NOT NULL,
    account_id  uuid   NOT NULL,
    amount      bigint NOT NULL,
    CONSTRAINT account_months_pkey PRIMARY KEY (business_id, month, account_id)
);

--bun:split

CREATE TABLE IF NOT EXISTS cash_months (
    business_id uuid   NOT NULL,
    month       date   NOT NULL,
    account_id  uuid   NOT NULL,
    amount      bigint NOT NULL,
    CONSTRAINT cash_months_pkey PRIMARY KEY (business_id, month, account_id)
);

--bun:split

INSERT INTO account_months (business_id, month, account_id, amount)
SELECT business_id, date_trunc('month', day)::date, account_id, sum(amount)
FROM account_days GROUP BY 1, 2, 3
ON CONFLICT (business_id, month, account_id) DO NOTHING;

--bun:split

INSERT INTO cash_months (business_id, month, account_id, amount)
SELECT business_id, date_trunc('month', day)::date, account_id, sum(amount)
FROM cash_days GROUP BY 1, 2, 3
ON CONFLICT (business_id, month, account_id) DO NOTHING;

--bun:split

-- The P&L drill-down reads the entries and what payments recognized by day.
CREATE INDEX IF NOT EXISTS entries_day_idx ON entries (business_id, day);

--bun:split

CREATE INDEX IF NOT EXISTS cash_recognized_day_idx ON cash_recognized (business_id, day);

--bun:split

-- The cash basis leaves every line of a deferred document's entries out
-- until it is paid (not only its profit-and-loss lines), so that its
-- receivable or payable and its taxes are left out too and the cash-basis
-- balance sheet balances. role tells the document's lines apart:
-- 0 profit and loss, 1 other lines (taxes...), 2 the control account
-- (ACCOUNTS_RECEIVABLE, ACCOUNTS_PAYABLE).
ALTER TABLE cash_doc_lines ADD COLUMN IF NOT EXISTS role smallint NOT NULL DEFAULT 0;

--bun:split

-- Businesses whose read model predates the rules above are rebuilt from
-- their journal copy once, in the background, when the service starts.
CREATE TABLE IF NOT EXISTS rebuild_pending (
    business_id uuid        NOT NULL PRIMARY KEY,
    reason      text        NOT NULL,
    queued_at   timestamptz NOT NULL DEFAULT now()
);

--bun:split

INSERT INTO rebuild_pending (business_id, reason)
SELECT DISTINCT business_id, 'cash basis: every line of a document deferred' FROM cash_docs
ON CONFLICT (business_id) DO NOTHING;
