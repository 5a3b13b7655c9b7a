ALTER TABLE bank_transactions
    DROP COLUMN IF EXISTS customer_id,
    DROP COLUMN IF EXISTS customer_external_id,
    DROP COLUMN IF EXISTS vendor_id,
    DROP COLUMN IF EXISTS vendor_external_id;
