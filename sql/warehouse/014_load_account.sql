-- The account a load of the account source belongs to (GET /balance's account_id; null for market
-- sources and for loads before this column), so a warehouse that saw two keys' accounts keeps them apart.
ALTER TABLE loads ADD COLUMN account_id VARCHAR;
