DROP TABLE IF EXISTS vendor_credit_allocations;

--bun:split

DROP TABLE IF EXISTS vendor_credits;
