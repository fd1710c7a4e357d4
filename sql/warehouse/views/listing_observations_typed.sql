-- Every page item a poll, sweep or catch-up landed with an id, typed leniently like the stream's
-- events (typing_notes, extra_fields, raw), with where it stood (page, item; null for an item the
-- typed layout landed, see migration 013). Items without an id are in rejected_payloads.
SELECT app_id, observed_at, via, pass_id, page, item, load_id, ingested_at, listing_id,
       {{typed_columns(listing, j, keys)}},
       {{extra_keys(listing, data, keys)}} AS extra_fields, data AS raw
FROM (
  SELECT r.app_id, r.observed_at, r.via, r.pass_id, r.page, r.item, r.load_id, r.ingested_at,
         coalesce(r.listing_id, r.data ->> '$.id') AS listing_id, r.data,
         {{json_values(listing, r.data)}} AS j, json_keys(r.data) AS keys
  FROM raw_listing_observations r
  WHERE r.listing_id IS NOT NULL
)
