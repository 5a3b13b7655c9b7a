-- The customer or vendor a recorded transaction is linked to (customer_id,
-- customer_external_id, vendor_id, vendor_external_id of the record
-- requests), kept as given: customers and vendors live in other services.
ALTER TABLE bank_transactions
    ADD COLUMN IF NOT EXISTS customer_id          uuid,
    ADD COLUMN IF NOT EXISTS customer_external_id text,
    ADD COLUMN IF NOT EXISTS vendor_id            uuid,
    ADD COLUMN IF NOT EXISTS vendor_external_id   text;
