-- What polls, sweeps and catch-ups see lands raw too: each item of a /listings page as the page
-- held it (its JSON text), with where it stood, in the same transaction as the source's progress;
-- typing happens in the view listing_observations (sql/warehouse/views/listing_observations_typed.sql), so one
-- malformed item can no longer fail a page and stall its source. The typed table of the former
-- layout stays, renamed, as a legacy source the view reads.
ALTER TABLE listing_observations RENAME TO legacy_listing_observations;

CREATE TABLE raw_listing_observations (
  via VARCHAR NOT NULL,               -- which pass saw it: poll | sweep | catch_up
  pass_id VARCHAR NOT NULL,           -- the sweep id or poll window; (via, pass_id, listing_id) is landed once
  page INTEGER NOT NULL,              -- the page of the pass that held the item (0 is the first)
  item INTEGER NOT NULL,              -- the item's index on that page (0 is the first)
  listing_id VARCHAR,                 -- the item's id when it is an object with a string id, else null (rejected)
  app_id INTEGER NOT NULL,            -- platform app id of the game the pass read
  data VARCHAR,                       -- the item's JSON text, as the page held it
  observed_at TIMESTAMP NOT NULL,     -- when the collector requested the page (UTC): the page shows the server at or after it
  load_id VARCHAR NOT NULL,           -- batch that landed the row (loads.load_id)
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);
