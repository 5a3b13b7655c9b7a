DROP INDEX IF EXISTS bank_transactions_uncategorized_counterparty_idx;

--bun:split

DROP TABLE IF EXISTS categorization_rule_suggestions;

--bun:split

DROP INDEX IF EXISTS categorization_rules_external_id_key;

--bun:split

ALTER TABLE categorization_rules
    DROP COLUMN IF EXISTS external_id,
    DROP COLUMN IF EXISTS updated_at,
    DROP COLUMN IF EXISTS archived_at,
    DROP COLUMN IF EXISTS created_by_suggestion_id;
