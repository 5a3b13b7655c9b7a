ALTER TABLE customers DROP CONSTRAINT IF EXISTS customers_name_check;

--bun:split

ALTER TABLE customers ADD CONSTRAINT customers_name_check CHECK (individual_name IS NOT NULL OR company_name IS NOT NULL);
