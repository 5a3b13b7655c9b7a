-- A bill without a due date is due on receipt: due_sort (the key of
-- sort_by=due_at and of the due_at filters) is its received_at.
ALTER TABLE bills DROP CONSTRAINT IF EXISTS bills_due_sort_check;
UPDATE bills SET due_sort = received_at WHERE due_at IS NULL AND due_sort <> received_at;
ALTER TABLE bills ADD CONSTRAINT bills_due_sort_check CHECK (due_sort = coalesce(due_at, received_at));
