DROP TABLE IF EXISTS cash_recognized;
DROP TABLE IF EXISTS cash_allocations;
DROP TABLE IF EXISTS cash_payments;
DROP TABLE IF EXISTS cash_docs;
DROP TABLE IF EXISTS cash_doc_lines;
DROP TABLE IF EXISTS cash_days;
