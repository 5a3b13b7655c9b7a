ALTER TABLE bills DROP CONSTRAINT IF EXISTS bills_due_sort_check;
UPDATE bills SET due_sort = '9999-12-31 00:00:00+00' WHERE due_at IS NULL;
ALTER TABLE bills ADD CONSTRAINT bills_due_sort_check CHECK (due_sort = coalesce(due_at, '9999-12-31 00:00:00+00'));
