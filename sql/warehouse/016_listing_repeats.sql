-- A page item byte-identical to the last payload landed for its listing is not stored again: the
-- pass that saw it is recorded in raw_listing_repeats (where it stood, when, and which stored row
-- holds its text), so the warehouse grows with what changes, not with how often it is swept, and
-- every page received can still be rebuilt exactly.
CREATE TABLE raw_listing_repeats (
  via VARCHAR NOT NULL,               -- which pass saw it: poll | sweep | catch_up
  pass_id VARCHAR NOT NULL,           -- the sweep id or poll window; (via, pass_id, listing_id) is landed once
  page INTEGER NOT NULL,              -- the page of the pass that held the item (0 is the first)
  item INTEGER NOT NULL,              -- the item's index on that page (0 is the first)
  listing_id VARCHAR NOT NULL,        -- the item's id
  app_id INTEGER NOT NULL,            -- platform app id of the game the pass read
  observed_at TIMESTAMP NOT NULL,     -- when the collector requested the page (UTC)
  same_via VARCHAR NOT NULL,          -- the raw_listing_observations row holding the same text:
  same_pass_id VARCHAR NOT NULL,      --   (same_via, same_pass_id, listing_id)
  load_id VARCHAR NOT NULL,           -- batch that landed the row (loads.load_id)
  ingested_at TIMESTAMP NOT NULL      -- when that batch was written (UTC)
);

-- The last payload landed for each listing by a page item: its md5 and the row holding it.
CREATE TABLE listing_payload_marks (
  listing_id VARCHAR PRIMARY KEY,
  data_md5 UHUGEINT NOT NULL,         -- md5 of the text (md5_number)
  via VARCHAR NOT NULL,               -- the raw_listing_observations row: (via, pass_id, listing_id)
  pass_id VARCHAR NOT NULL
);

INSERT INTO listing_payload_marks
SELECT listing_id, md5_number(last.data), last.via, last.pass_id
FROM (
  SELECT listing_id, arg_max({'data': data, 'via': via, 'pass_id': pass_id}, (ingested_at, observed_at, page, item)) AS last
  FROM raw_listing_observations
  WHERE listing_id IS NOT NULL AND data IS NOT NULL
  GROUP BY listing_id
);
