-- Every page item a poll, sweep or catch-up landed with an id, typed leniently like the stream's
-- events (typing_notes, extra_fields, raw), with where it stood (page, item; null for an item the
-- typed layout landed, see migration 013). An item byte-identical to its listing's last payload
-- was recorded as a repeat (raw_listing_repeats): it is typed from the text of the row it repeats,
-- a stored page item or, when same_via is 'stream', the stream event same_pass_id (a poll seeing
-- what the stream just announced), with its own envelope. Items without an id are in rejected_payloads. The repeats are joined to
-- the stored rows before any text is parsed, so a filter on the listing or the envelope (a model
-- reading a few listings, a build in chunks, an increment) reaches the raw tables first and only
-- the rows it selects are typed.
WITH items AS (
  SELECT app_id, observed_at, via, pass_id, page, item, load_id, ingested_at, listing_id, data
  FROM raw_listing_observations
  WHERE listing_id IS NOT NULL
  UNION ALL
  SELECT s.app_id, s.observed_at, s.via, s.pass_id, s.page, s.item, s.load_id, s.ingested_at, s.listing_id, d.data
  FROM (
    -- A no-op for the rows (a repeat's stored row has its via) that lowers DuckDB's estimate of the
    -- repeats a filter on `ingested_at` selects under the stored rows, so it builds its hash table
    -- on those repeats and reads the stored rows within their keys. Estimated at a fifth of all
    -- repeats, more than every stored row, they were the probe side: an increment read every stored
    -- row with its text to type a few repeats.
    SELECT * FROM raw_listing_repeats
    SEMI JOIN (SELECT DISTINCT via FROM raw_listing_observations) v ON v.via = same_via
  ) s
  JOIN raw_listing_observations d ON d.listing_id = s.listing_id AND d.via = s.same_via AND d.pass_id = s.same_pass_id
  UNION ALL
  SELECT s.app_id, s.observed_at, s.via, s.pass_id, s.page, s.item, s.load_id, s.ingested_at, s.listing_id, d.data
  FROM (
    -- The same no-op for a repeat of a stream event (the event is of its listing's game): estimated
    -- as many as the events, the repeats a filter selects were the probe side, and a read of a few
    -- listings or of an increment hashed every event landed with its text.
    SELECT r.* FROM raw_listing_repeats r
    SEMI JOIN (SELECT DISTINCT app_id FROM raw_listing_events) g ON g.app_id = r.app_id
    WHERE r.same_via = 'stream'
  ) s
  JOIN raw_listing_events d ON d.event_id = s.same_pass_id
)
SELECT app_id, observed_at, via, pass_id, page, item, load_id, ingested_at, listing_id,
       {{typed_columns(listing, j, keys)}},
       {{extra_keys(listing, data, keys)}} AS extra_fields, data AS raw
FROM (
  SELECT r.*, {{json_values(listing, r.data)}} AS j, json_keys(r.data) AS keys
  FROM items r
)
