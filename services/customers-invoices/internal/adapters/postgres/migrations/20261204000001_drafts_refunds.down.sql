DROP TABLE IF EXISTS invoice_refunds;

--bun:split

ALTER TABLE invoices DROP CONSTRAINT IF EXISTS invoices_balance_check;

--bun:split

ALTER TABLE invoices ADD CONSTRAINT invoices_balance_check CHECK (
    outstanding_balance = CASE WHEN voided_at IS NULL THEN total_amount - paid_amount - written_off_amount ELSE 0 END
    AND outstanding_balance >= 0);

--bun:split

ALTER TABLE invoices DROP COLUMN IF EXISTS payment_methods;

--bun:split

ALTER TABLE invoices DROP COLUMN IF EXISTS refunded_amount;

--bun:split

ALTER TABLE invoices DROP CONSTRAINT IF EXISTS invoices_status_check;

--bun:split

ALTER TABLE invoices ADD CONSTRAINT invoices_status_check CHECK (status IN
    ('SENT', 'PARTIALLY_PAID', 'PAID', 'VOIDED', 'PARTIALLY_WRITTEN_OFF', 'WRITTEN_OFF'));
