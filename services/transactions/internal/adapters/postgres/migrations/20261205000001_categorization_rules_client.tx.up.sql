-- Categorization rules as the client SDK knows them: an external id
-- (a create with one the business used answers that rule), when the rule
-- last changed, when it was archived (POST .../archive: it no longer
-- applies and is listed only with include_archived=true), and the
-- suggestion it was created from. The conditions stay in draft.
ALTER TABLE categorization_rules
    ADD COLUMN IF NOT EXISTS external_id              text,
    ADD COLUMN IF NOT EXISTS updated_at               timestamptz,
    ADD COLUMN IF NOT EXISTS archived_at              timestamptz,
    ADD COLUMN IF NOT EXISTS created_by_suggestion_id uuid;

--bun:split

UPDATE categorization_rules SET updated_at = created_at WHERE updated_at IS NULL;

--bun:split

ALTER TABLE categorization_rules ALTER COLUMN updated_at SET NOT NULL;

--bun:split

CREATE UNIQUE INDEX IF NOT EXISTS categorization_rules_external_id_key
    ON categorization_rules (business_id, external_id) WHERE external_id IS NOT NULL;

--bun:split

-- Rule suggestions (a bank transaction's update_categorization_rules_suggestion):
-- one per counterparty of a business, made when a user categorizes a
-- transaction of a counterparty other uncategorized transactions share and
-- no rule covers. OPEN while offered; ACCEPTED when a rule is created with
-- created_by_suggestion_id; REJECTED by DELETE
-- /categorization-rules/suggestions/{id}. A counterparty is suggested once:
-- the unique key keeps a rejected one from coming back.
CREATE TABLE IF NOT EXISTS categorization_rule_suggestions (
    business_id       uuid        NOT NULL,
    id                uuid        NOT NULL,
    counterparty_id   uuid        NOT NULL,
    counterparty_key  text        NOT NULL,
    counterparty_name text,
    -- The category the user gave the transaction that prompted it
    -- (banking.Classification as JSON).
    category          jsonb       NOT NULL,
    transaction_id    uuid        NOT NULL,
    status            text        NOT NULL CHECK (status IN ('OPEN', 'ACCEPTED', 'REJECTED')),
    rule_id           uuid,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    CONSTRAINT categorization_rule_suggestions_pkey PRIMARY KEY (business_id, id),
    CONSTRAINT categorization_rule_suggestions_counterparty_key UNIQUE (business_id, counterparty_key)
);

--bun:split

CREATE INDEX IF NOT EXISTS categorization_rule_suggestions_transaction_idx
    ON categorization_rule_suggestions (business_id, transaction_id) WHERE status = 'OPEN';

--bun:split

-- A counterparty's uncategorized transactions, read by every categorize
-- call (is a rule worth suggesting?), by a suggestion's answer and by a
-- rule applied retroactively: without it each would scan the business.
CREATE INDEX IF NOT EXISTS bank_transactions_uncategorized_counterparty_idx
    ON bank_transactions (business_id, counterparty_key, date, id) WHERE category IS NULL;
