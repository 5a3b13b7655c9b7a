DROP TABLE IF EXISTS bill_payment_allocations;

--bun:split

DROP TABLE IF EXISTS bill_payments;
