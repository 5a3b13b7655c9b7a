DROP TABLE IF EXISTS invoice_write_offs;

--bun:split

DROP TABLE IF EXISTS payment_allocations;

--bun:split

DROP TABLE IF EXISTS invoice_payments;

--bun:split

DROP TABLE IF EXISTS invoice_lines;

--bun:split

DROP TABLE IF EXISTS invoices;
