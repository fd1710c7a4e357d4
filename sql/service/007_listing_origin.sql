-- Where a listing comes from (the platform or an external market) and whether the API may buy it.
ALTER TABLE listings ADD COLUMN source VARCHAR DEFAULT 'platform';
ALTER TABLE listings ADD COLUMN api_purchasable BOOLEAN DEFAULT true;
