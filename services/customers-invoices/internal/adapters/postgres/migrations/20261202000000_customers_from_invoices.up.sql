-- An invoice naming an unknown customer_external_id creates the customer
-- with that external id and no name (as the real product does); it gets
-- one when patched. POST /customers still requires a name, so a customer
-- without a name always has an external id.
ALTER TABLE customers DROP CONSTRAINT IF EXISTS customers_name_check;

--bun:split

ALTER TABLE customers ADD CONSTRAINT customers_name_check
    CHECK (individual_name IS NOT NULL OR company_name IS NOT NULL OR external_id IS NOT NULL);
