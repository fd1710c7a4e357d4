-- The durable log of changes to the live set: every listing that appears (new) or leaves (gone),
-- appended in the same transaction as the change, at a strictly increasing position.
CREATE TABLE listing_events (
  position BIGINT PRIMARY KEY,
  kind VARCHAR NOT NULL,                  -- new | gone
  app_id INTEGER NOT NULL,
  listing_id VARCHAR NOT NULL,
  listing VARCHAR,                        -- the Listing JSON of a new event, exactly as streamed
  created_at TIMESTAMP NOT NULL
);
